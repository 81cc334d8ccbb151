// PollStream: Beast's SyncReadStream/SyncWriteStream over a socket's file descriptor, with
// timeouts but no async machinery. Each read_some/write_some waits in poll(2) for at most the
// stall timeout (and never past the deadline, if one is set) before recv/send, so a client that
// stops sending or reading can never pin a connection thread forever.
//
// Errors reported through the error_code overloads:
//   boost::asio::error::timed_out          the wait ran out (stall timeout or deadline)
//   boost::asio::error::operation_aborted  the stop fd became readable while watch_stop is set
//   boost::asio::error::eof                the peer closed its sending side (read_some); with
//                                          TLS, with or without a close_notify
//   a system error                         from recv/send/poll
// The throwing overloads exist only because Beast's stream concepts require them; the server
// calls the error_code ones.
//
// Not thread-safe: one connection thread uses a stream. The fd is not owned; it is switched to
// non-blocking mode by the caller (recv/send never block; poll does the waiting).
//
// TLS: after set_ssl(ssl) (an SSL object bound to the same fd) reads and writes go through
// SSL_read_ex/SSL_write_ex, and SSL_ERROR_WANT_READ/WANT_WRITE wait in poll(2) like a plain
// EAGAIN, so the timeouts hold for TLS too. The SSL object is not owned.
#pragma once

#include <sys/socket.h>
#include <sys/uio.h>

#include <chrono>
#include <cstddef>
#include <optional>

#include <boost/asio/buffer.hpp>
#include <boost/system/error_code.hpp>
#include <boost/system/system_error.hpp>

typedef struct ssl_st SSL;

namespace cubby::server {

class PollStream {
 public:
  using Clock = std::chrono::steady_clock;

  // `stop_fd`: a descriptor that becomes (and stays) readable when the server stops; -1 if none.
  PollStream(int fd, int stop_fd) : fd_(fd), stop_fd_(stop_fd) {}

  int fd() const { return fd_; }
  // The longest a single read_some/write_some waits for progress.
  void set_stall_timeout(std::chrono::milliseconds timeout) { stall_timeout_ = timeout; }
  // An absolute limit for waits, e.g. "the whole header within 60 s". nullopt: none.
  void set_deadline(std::optional<Clock::time_point> deadline) { deadline_ = deadline; }
  // When true, a readable stop fd aborts a wait (used between requests, not inside one).
  void set_watch_stop(bool watch) { watch_stop_ = watch; }

  // Waits until the socket is readable (or the peer closed), without consuming anything. With
  // TLS, bytes already decrypted count as readable.
  boost::system::error_code WaitReadable();

  // Switches the stream to TLS over `ssl` (whose fd is this stream's). REQUIRES: no bytes of the
  // connection were read yet.
  void set_ssl(SSL* ssl) { ssl_ = ssl; }
  // The TLS handshake (the side set on the SSL: SSL_set_accept_state/connect_state), bounded by the stall timeout and deadline. An error
  // code (timed_out, eof, or a TLS failure as boost::asio::error::no_protocol_option) on failure.
  boost::system::error_code Handshake();
  // Sends a TLS close_notify (best effort, no waiting). No-op without TLS.
  void ShutdownTls();

  template <class MutableBufferSequence>
  size_t read_some(const MutableBufferSequence& buffers, boost::system::error_code& ec) {
    iovec iov[kMaxIov];
    size_t count = ToIovec(boost::asio::buffer_sequence_begin(buffers),
                           boost::asio::buffer_sequence_end(buffers), iov);
    return ReadIov(iov, count, ec);
  }
  template <class MutableBufferSequence>
  size_t read_some(const MutableBufferSequence& buffers) {
    boost::system::error_code ec;
    size_t n = read_some(buffers, ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }

  template <class ConstBufferSequence>
  size_t write_some(const ConstBufferSequence& buffers, boost::system::error_code& ec) {
    iovec iov[kMaxIov];
    size_t count = ToIovec(boost::asio::buffer_sequence_begin(buffers),
                           boost::asio::buffer_sequence_end(buffers), iov);
    return WriteIov(iov, count, ec);
  }
  template <class ConstBufferSequence>
  size_t write_some(const ConstBufferSequence& buffers) {
    boost::system::error_code ec;
    size_t n = write_some(buffers, ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }

  // Writes all of `data`, waiting as needed. Returns the first error.
  boost::system::error_code WriteAll(const char* data, size_t size);

  // Sends `length` bytes of the file `in_fd` from `offset` with sendfile(2) (no copy through
  // user space), waiting like WriteAll: each wait is bounded by the stall timeout and deadline.
  // *sent counts the bytes that left, on error too. Errors as for WriteAll, and
  // boost::asio::error::eof when the file ends before `length` bytes. SIGPIPE is not
  // suppressed here (sendfile has no MSG_NOSIGNAL): block or ignore it in the calling thread.
  // REQUIRES: no TLS (set_ssl not called).
  boost::system::error_code SendFile(int in_fd, uint64_t offset, size_t length, size_t* sent);

 private:
  static constexpr size_t kMaxIov = 16;

  template <class Iterator>
  static size_t ToIovec(Iterator begin, Iterator end, iovec* iov) {
    size_t count = 0;
    for (auto it = begin; it != end && count < kMaxIov; ++it) {
      auto buffer = boost::asio::buffer(*it);
      if (buffer.size() == 0) continue;
      iov[count].iov_base = const_cast<void*>(static_cast<const void*>(buffer.data()));
      iov[count].iov_len = buffer.size();
      ++count;
    }
    return count;
  }

  size_t ReadIov(iovec* iov, size_t count, boost::system::error_code& ec);
  size_t TlsRead(void* data, size_t size, boost::system::error_code& ec);
  size_t TlsWrite(const void* data, size_t size, boost::system::error_code& ec);
  // After an SSL call failed with `ret`: waits as SSL asks (returns {} to retry) or the error.
  boost::system::error_code TlsWaitOrError(int ret);
  size_t WriteIov(const iovec* iov, size_t count, boost::system::error_code& ec);
  // Waits for `events` on fd_; returns an error on timeout, stop, or poll failure.
  boost::system::error_code Wait(short events);

  int fd_;
  int stop_fd_;
  std::chrono::milliseconds stall_timeout_{60'000};
  std::optional<Clock::time_point> deadline_;
  bool watch_stop_ = false;
  SSL* ssl_ = nullptr;
};

}  // namespace cubby::server
