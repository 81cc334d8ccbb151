#include "server/poll_stream.h"

#include <poll.h>
#include <sys/sendfile.h>

#include <algorithm>
#include <cerrno>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/error.hpp>

namespace cubby::server {
namespace {

boost::system::error_code Errno(int err) {
  return boost::system::error_code(err, boost::system::system_category());
}

}  // namespace

boost::system::error_code PollStream::Wait(short events) {
  while (true) {
    auto timeout = stall_timeout_;
    if (deadline_) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline_ - Clock::now());
      timeout = std::min(timeout, left);
    }
    if (timeout.count() <= 0) return boost::asio::error::timed_out;
    pollfd fds[2] = {{fd_, events, 0}, {stop_fd_, POLLIN, 0}};
    nfds_t nfds = (watch_stop_ && stop_fd_ >= 0) ? 2 : 1;
    int rc = ::poll(fds, nfds, static_cast<int>(std::min<int64_t>(timeout.count(), 1 << 30)));
    if (rc < 0) {
      if (errno == EINTR) continue;
      return Errno(errno);
    }
    if (rc == 0) return boost::asio::error::timed_out;
    if (nfds == 2 && (fds[1].revents & POLLIN)) return boost::asio::error::operation_aborted;
    // POLLERR / POLLHUP: let recv/send report what happened.
    if (fds[0].revents != 0) return {};
  }
}

boost::system::error_code PollStream::WaitReadable() {
  if (ssl_ != nullptr && SSL_pending(ssl_) > 0) return {};
  return Wait(POLLIN);
}

boost::system::error_code PollStream::TlsWaitOrError(int ret) {
  int err = SSL_get_error(ssl_, ret);
  switch (err) {
    case SSL_ERROR_WANT_READ:
      return Wait(POLLIN);
    case SSL_ERROR_WANT_WRITE:
      return Wait(POLLOUT);
    case SSL_ERROR_ZERO_RETURN:
      return boost::asio::error::eof;
    case SSL_ERROR_SYSCALL: {
      int saved = errno;
      ERR_clear_error();
      // A peer that closed without close_notify, as OpenSSL before 3 reported it.
      if (saved == 0 || saved == EAGAIN) return boost::asio::error::eof;
      return Errno(saved);
    }
    case SSL_ERROR_SSL: {
      // OpenSSL 3 reports a TCP FIN without close_notify as SSL_ERROR_SSL with "unexpected eof
      // while reading". Python's ssl (so boto3) and pgbackrest close idle keep-alive
      // connections that way: the client leaving, the same EOF a plain socket gives (the HTTP
      // framing, not TLS, catches a request cut short). Any other failure is a TLS error.
      const bool unexpected_eof =
          ERR_GET_LIB(ERR_peek_error()) == ERR_LIB_SSL &&
          ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING;
      ERR_clear_error();
      if (unexpected_eof) return boost::asio::error::eof;
      return boost::asio::error::no_protocol_option;
    }
    default:
      ERR_clear_error();
      return boost::asio::error::no_protocol_option;
  }
}

boost::system::error_code PollStream::Handshake() {
  while (true) {
    ERR_clear_error();
    int ret = SSL_do_handshake(ssl_);
    if (ret == 1) return {};
    if (auto ec = TlsWaitOrError(ret)) return ec;
  }
}

void PollStream::ShutdownTls() {
  if (ssl_ == nullptr) return;
  ERR_clear_error();
  SSL_shutdown(ssl_);
  ERR_clear_error();
}

size_t PollStream::TlsRead(void* data, size_t size, boost::system::error_code& ec) {
  while (true) {
    ERR_clear_error();
    size_t n = 0;
    int ret = SSL_read_ex(ssl_, data, size, &n);
    if (ret == 1) return n;
    if ((ec = TlsWaitOrError(ret))) return 0;
  }
}

size_t PollStream::TlsWrite(const void* data, size_t size, boost::system::error_code& ec) {
  while (true) {
    ERR_clear_error();
    size_t n = 0;
    int ret = SSL_write_ex(ssl_, data, size, &n);
    if (ret == 1) return n;
    if ((ec = TlsWaitOrError(ret))) return 0;
  }
}

size_t PollStream::ReadIov(iovec* iov, size_t count, boost::system::error_code& ec) {
  ec = {};
  if (count == 0) return 0;
  if (ssl_ != nullptr) return TlsRead(iov[0].iov_base, iov[0].iov_len, ec);
  while (true) {
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = count;
    ssize_t n = ::recvmsg(fd_, &msg, 0);
    if (n > 0) return static_cast<size_t>(n);
    if (n == 0) {
      ec = boost::asio::error::eof;
      return 0;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      ec = Errno(errno);
      return 0;
    }
    if ((ec = Wait(POLLIN))) return 0;
  }
}

size_t PollStream::WriteIov(const iovec* iov, size_t count, boost::system::error_code& ec) {
  ec = {};
  if (count == 0) return 0;
  // One buffer per call: SSL_write has no gather form, and write_some may write less.
  if (ssl_ != nullptr) return TlsWrite(iov[0].iov_base, iov[0].iov_len, ec);
  while (true) {
    msghdr msg{};
    msg.msg_iov = const_cast<iovec*>(iov);
    msg.msg_iovlen = count;
    // MSG_NOSIGNAL: a peer that went away is an error code, not a SIGPIPE.
    ssize_t n = ::sendmsg(fd_, &msg, MSG_NOSIGNAL);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      ec = Errno(errno);
      return 0;
    }
    if ((ec = Wait(POLLOUT))) return 0;
  }
}

boost::system::error_code PollStream::SendFile(int in_fd, uint64_t offset, size_t length,
                                               size_t* sent) {
  *sent = 0;
  while (*sent < length) {
    off_t off = static_cast<off_t>(offset + *sent);
    ssize_t n = ::sendfile(fd_, in_fd, &off, length - *sent);
    if (n > 0) {
      *sent += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) return boost::asio::error::eof;  // the file is shorter than promised
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Errno(errno);
    if (auto ec = Wait(POLLOUT)) return ec;
  }
  return {};
}

boost::system::error_code PollStream::WriteAll(const char* data, size_t size) {
  while (size > 0) {
    boost::system::error_code ec;
    size_t n = write_some(boost::asio::const_buffer(data, size), ec);
    if (ec) return ec;
    data += n;
    size -= n;
  }
  return {};
}

}  // namespace cubby::server
