#include "bench/http_client.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "text/ascii.h"

namespace cubby::bench {
namespace {

std::string ErrnoText(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

bool ParseEndpoint(std::string_view url, Endpoint* out, std::string* error) {
  constexpr std::string_view kScheme = "http://";
  if (url.substr(0, kScheme.size()) != kScheme) {
    *error = "endpoint must start with http:// (TLS is not benchmarked)";
    return false;
  }
  std::string_view rest = url.substr(kScheme.size());
  rest = rest.substr(0, rest.find('/'));
  std::string_view host;
  std::string_view port;
  if (!rest.empty() && rest.front() == '[') {  // [v6]:port
    size_t close = rest.find(']');
    if (close == std::string_view::npos) {
      *error = "endpoint: unterminated [ in host";
      return false;
    }
    host = rest.substr(1, close - 1);
    std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') {
        *error = "endpoint: expected :port after ]";
        return false;
      }
      port = after.substr(1);
    }
  } else {
    size_t colon = rest.rfind(':');
    host = rest.substr(0, colon);
    if (colon != std::string_view::npos) port = rest.substr(colon + 1);
  }
  if (host.empty()) {
    *error = "endpoint: empty host";
    return false;
  }
  uint64_t port_number = 80;
  if (!port.empty() && (!text::ParseUint64(port, &port_number, 10) || port_number == 0 ||
                        port_number > 65535)) {
    *error = "endpoint: invalid port";
    return false;
  }
  out->host = std::string(host);
  out->port = static_cast<uint16_t>(port_number);
  bool v6 = host.find(':') != std::string_view::npos;
  out->host_header = (v6 ? "[" + out->host + "]" : out->host);
  if (!port.empty()) out->host_header += ":" + std::to_string(out->port);
  return true;
}

const std::string* Response::Find(std::string_view lowercase_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lowercase_name) return &value;
  }
  return nullptr;
}

HttpConnection::HttpConnection(Endpoint endpoint, std::chrono::milliseconds io_timeout)
    : endpoint_(std::move(endpoint)), io_timeout_(io_timeout), buf_(kRecvBuffer) {}

HttpConnection::~HttpConnection() { Close(); }

void HttpConnection::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  begin_ = end_ = 0;
}

bool HttpConnection::Fail(std::string message, std::string* error) {
  *error = std::move(message);
  Close();
  return false;
}

bool HttpConnection::Connect(std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* result = nullptr;
  std::string port = std::to_string(endpoint_.port);
  int rc = ::getaddrinfo(endpoint_.host.c_str(), port.c_str(), &hints, &result);
  if (rc != 0) {
    *error = std::string("resolve ") + endpoint_.host + ": " + ::gai_strerror(rc);
    return false;
  }
  std::string last_error = "connect: no address";
  for (addrinfo* ai = result; ai != nullptr; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last_error = ErrnoText("socket");
      continue;
    }
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(io_timeout_.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((io_timeout_.count() % 1000) * 1000);
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
      fd_ = fd;
      break;
    }
    last_error = ErrnoText("connect");
    ::close(fd);
  }
  ::freeaddrinfo(result);
  if (fd_ < 0) {
    *error = last_error;
    return false;
  }
  begin_ = end_ = 0;
  return true;
}

bool HttpConnection::Send(std::string_view head, std::string_view body, std::string* error) {
  if (fd_ < 0 && !Connect(error)) return false;
  saw_first_byte_ = false;
  // Head and the first body piece in one sendmsg so a small request is one segment.
  size_t head_sent = 0;
  size_t body_sent = 0;
  while (head_sent < head.size() || body_sent < body.size()) {
    iovec iov[2];
    int iovcnt = 0;
    if (head_sent < head.size()) {
      iov[iovcnt++] = {const_cast<char*>(head.data() + head_sent), head.size() - head_sent};
    }
    size_t piece = std::min(kSendPiece, body.size() - body_sent);
    if (piece > 0) iov[iovcnt++] = {const_cast<char*>(body.data() + body_sent), piece};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<size_t>(iovcnt);
    ssize_t n = ::sendmsg(fd_, &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Fail(errno == EAGAIN ? "send: timed out" : ErrnoText("send"), error);
    }
    size_t sent = static_cast<size_t>(n);
    size_t from_head = std::min(sent, head.size() - head_sent);
    head_sent += from_head;
    body_sent += sent - from_head;
  }
  return true;
}

bool HttpConnection::Fill(std::string* error) {
  if (begin_ == end_) {
    begin_ = end_ = 0;
  } else if (end_ == buf_.size()) {
    if (begin_ == 0) return Fail("response header too large", error);
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  for (;;) {
    ssize_t n = ::recv(fd_, buf_.data() + end_, buf_.size() - end_, 0);
    if (n > 0) {
      if (!saw_first_byte_) {
        saw_first_byte_ = true;
        first_byte_ = std::chrono::steady_clock::now();
      }
      end_ += static_cast<size_t>(n);
      return true;
    }
    if (n == 0) return Fail("connection closed by server", error);
    if (errno == EINTR) continue;
    return Fail(errno == EAGAIN ? "recv: timed out" : ErrnoText("recv"), error);
  }
}

bool HttpConnection::ReadLine(std::string* line, std::string* error) {
  size_t scanned = begin_;
  for (;;) {
    const char* start = buf_.data() + scanned;
    const char* nl = static_cast<const char*>(std::memchr(start, '\n', end_ - scanned));
    if (nl != nullptr) {
      size_t end = static_cast<size_t>(nl - buf_.data());
      size_t len = end - begin_;
      if (len > 0 && buf_[end - 1] == '\r') --len;
      line->assign(buf_.data() + begin_, len);
      begin_ = end + 1;
      return true;
    }
    if (end_ - begin_ >= kMaxHeaderBytes) return Fail("response line too long", error);
    size_t offset = end_ - begin_;  // Fill may move the unread bytes to the front
    if (!Fill(error)) return false;
    scanned = begin_ + offset;
  }
}

bool HttpConnection::ReadBody(uint64_t n, const BodySink& sink, Response* out,
                              std::string* error) {
  while (n > 0) {
    if (begin_ == end_ && !Fill(error)) {
      *error = "body cut short (" + *error + ")";
      return false;
    }
    size_t take = static_cast<size_t>(std::min<uint64_t>(n, end_ - begin_));
    const char* data = buf_.data() + begin_;
    if (out->body_prefix.size() < Response::kBodyPrefixLimit) {
      out->body_prefix.append(
          data, std::min(take, Response::kBodyPrefixLimit - out->body_prefix.size()));
    }
    if (sink) sink(out->body_bytes, data, take);
    out->body_bytes += take;
    begin_ += take;
    n -= take;
  }
  return true;
}

bool HttpConnection::ReadChunked(const BodySink& sink, Response* out, std::string* error) {
  std::string line;
  for (;;) {
    if (!ReadLine(&line, error)) return false;
    std::string_view size_text = text::TrimOws(std::string_view(line).substr(0, line.find(';')));
    uint64_t size = 0;
    if (!text::ParseUint64(size_text, &size, 16)) return Fail("malformed chunk size", error);
    if (size == 0) break;
    if (!ReadBody(size, sink, out, error)) return false;
    if (!ReadLine(&line, error)) return false;
    if (!line.empty()) return Fail("chunk not followed by CRLF", error);
  }
  do {  // trailers, up to the empty line
    if (!ReadLine(&line, error)) return false;
  } while (!line.empty());
  return true;
}

bool HttpConnection::ReadResponse(bool head_request, const BodySink& sink, Response* out,
                                  std::string* error) {
  *out = Response{};
  if (fd_ < 0) return Fail("not connected", error);
  std::string line;
  if (!ReadLine(&line, error)) return false;
  // "HTTP/1.1 200 OK"
  std::string_view status_line = line;
  if (status_line.substr(0, 5) != "HTTP/" || status_line.size() < 12) {
    return Fail("malformed status line", error);
  }
  bool http10 = status_line.substr(0, 8) == "HTTP/1.0";
  uint64_t status = 0;
  if (!text::ParseUint64(status_line.substr(9, 3), &status, 10)) {
    return Fail("malformed status code", error);
  }
  out->status = static_cast<int>(status);
  out->keep_alive = !http10;
  std::optional<uint64_t> content_length;
  bool chunked = false;
  size_t header_bytes = line.size();
  for (;;) {
    if (!ReadLine(&line, error)) return false;
    if (line.empty()) break;
    header_bytes += line.size();
    if (header_bytes > kMaxHeaderBytes) return Fail("response header too large", error);
    size_t colon = line.find(':');
    if (colon == std::string::npos) return Fail("malformed header line", error);
    std::string name = text::AsciiLowercase(text::TrimOws(std::string_view(line).substr(0, colon)));
    std::string value(text::TrimOws(std::string_view(line).substr(colon + 1)));
    if (name == "content-length") {
      uint64_t length = 0;
      if (!text::ParseUint64(value, &length, 10)) return Fail("malformed Content-Length", error);
      content_length = length;
    } else if (name == "transfer-encoding") {
      chunked = text::AsciiLowercase(value).find("chunked") != std::string::npos;
    } else if (name == "connection") {
      std::string v = text::AsciiLowercase(value);
      if (v.find("close") != std::string::npos) out->keep_alive = false;
      if (v.find("keep-alive") != std::string::npos) out->keep_alive = true;
    }
    out->headers.emplace_back(std::move(name), std::move(value));
  }
  out->first_byte = first_byte_;

  bool no_body = head_request || status == 204 || status == 304 || (status >= 100 && status < 200);
  bool ok = true;
  if (no_body) {
  } else if (chunked) {
    ok = ReadChunked(sink, out, error);
  } else if (content_length) {
    ok = ReadBody(*content_length, sink, out, error);
  } else {
    // No length: the body runs to EOF. We refuse rather than guess, as keep-alive is the
    // point of this client and S3 servers always frame their bodies.
    return Fail("response without Content-Length or chunked encoding", error);
  }
  if (!ok) return false;
  if (!out->keep_alive) Close();
  return true;
}

}  // namespace cubby::bench
