// A minimal blocking HTTP/1.1 client for the load generator: one TCP connection, keep-alive,
// requests written from memory in pieces, responses parsed incrementally (status line,
// headers, Content-Length or chunked bodies) and handed to a sink without being buffered.
// It is deliberately small so that its cost is visible and predictable in the client's CPU
// column; it is not a general HTTP client (no TLS, no redirects, no pipelining).
//
// Thread-safety: a connection is used by one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cubby::bench {

// "http://host:port" (path and trailing slash ignored). Only plain http: TLS cost is not what
// this benchmark measures.
struct Endpoint {
  std::string host;         // IP literal or name, IPv6 without brackets
  uint16_t port = 80;
  std::string host_header;  // "host:port" as sent in Host (and signed)
};

// Returns false with a one-line `error` for anything but http://host[:port][/].
bool ParseEndpoint(std::string_view url, Endpoint* out, std::string* error);

struct Response {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lowercase
  uint64_t body_bytes = 0;       // body bytes received (after chunk decoding)
  std::string body_prefix;       // the first kBodyPrefixLimit bytes, for error messages
  bool keep_alive = true;        // false: the connection must not be reused
  std::chrono::steady_clock::time_point first_byte;  // first response byte arrived

  static constexpr size_t kBodyPrefixLimit = 4096;
  const std::string* Find(std::string_view lowercase_name) const;
};

// Receives the body in pieces as they arrive; `offset` is the position of `data` in the body.
using BodySink = std::function<void(uint64_t offset, const char* data, size_t n)>;

class HttpConnection {
 public:
  // `io_timeout` bounds every single send/recv (SO_SNDTIMEO/SO_RCVTIMEO), so a stalled server
  // turns into an error instead of a hung benchmark.
  HttpConnection(Endpoint endpoint, std::chrono::milliseconds io_timeout);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Connects if not connected, then writes `head` (request line and headers, ending in an empty
  // line) followed by `body`, in pieces of at most kSendPiece bytes straight from `body`'s
  // memory. Returns false with `error` set on any socket error; the connection is closed then.
  bool Send(std::string_view head, std::string_view body, std::string* error);

  // Reads one response. `head_request`: the response to HEAD has no body whatever its headers
  // say. Body bytes go to `sink` (may be empty). Returns false with `error` on a socket error,
  // timeout, malformed response or a body cut short; the connection is closed then, as it is
  // after a response that does not allow keep-alive.
  bool ReadResponse(bool head_request, const BodySink& sink, Response* out, std::string* error);

  void Close();
  bool connected() const { return fd_ >= 0; }

  static constexpr size_t kSendPiece = 1 << 20;
  static constexpr size_t kRecvBuffer = 256 << 10;
  static constexpr size_t kMaxHeaderBytes = 64 << 10;

 private:
  bool Connect(std::string* error);
  // Receives more bytes into buf_ (compacting it first). False on EOF/error.
  bool Fill(std::string* error);
  // A CRLF-terminated line from buf_ (without the CRLF), reading more as needed.
  bool ReadLine(std::string* line, std::string* error);
  // Delivers exactly n body bytes to the sink, starting with what is buffered.
  bool ReadBody(uint64_t n, const BodySink& sink, Response* out, std::string* error);
  bool ReadChunked(const BodySink& sink, Response* out, std::string* error);
  bool Fail(std::string message, std::string* error);

  Endpoint endpoint_;
  std::chrono::milliseconds io_timeout_;
  int fd_ = -1;
  std::vector<char> buf_;
  size_t begin_ = 0;  // unread bytes are buf_[begin_, end_)
  size_t end_ = 0;
  bool saw_first_byte_ = false;
  std::chrono::steady_clock::time_point first_byte_;
};

}  // namespace cubby::bench
