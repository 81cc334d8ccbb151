// The server's pure pieces of HTTP/1.1: Beast header → s3api::HttpRequest, the response head as
// bytes, reason phrases, dates and request ids. No sockets here, so all of it is unit-tested.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/beast/http/message.hpp>

#include "s3api/http.h"

namespace cubby::server {

// The request as S3Service sees it: method string, raw target, headers in arrival order with
// lowercase names and trimmed values, and `content_length` (absent when the request has no
// Content-Length header, e.g. Transfer-Encoding: chunked).
s3api::HttpRequest ToHttpRequest(const boost::beast::http::request_header<>& header,
                                 std::optional<uint64_t> content_length,
                                 std::string remote_address, std::string request_id);

// "OK", "Not Found", ...; "Unknown" for a status without a standard phrase.
std::string_view ReasonPhrase(int status);

// 1xx, 204 and 304 responses never carry a body or Content-Length.
bool StatusForbidsBody(int status);

struct ResponseFraming {
  bool head_request = false;  // the response to HEAD: headers only
  bool close = false;         // announce Connection: close
  std::string date;           // the Date header's value
};

// The number of body bytes the server writes after the head: 0 for HEAD and for 1xx/204/304,
// else `content_length` with a source or body.size().
uint64_t ResponseBodySize(const s3api::HttpResponse& response, bool head_request);

// Status line and headers, ending with the empty line. The handler's headers are written in
// order, except hop-by-hop framing the server owns (Connection, Transfer-Encoding, Keep-Alive)
// and Content-Length: the server writes Content-Length itself (body size, or content_length
// with a source or for HEAD with an empty body), except that for HEAD a handler's
// Content-Length header is kept (it describes the object, not this empty body). None for
// 1xx/204/304. Date and Server are added unless the handler set them.
// CR, LF and NUL inside a handler's header are replaced by spaces (no response splitting).
std::string SerializeResponseHead(const s3api::HttpResponse& response,
                                  const ResponseFraming& framing);

// Limits on the framing of a `Transfer-Encoding: chunked` request body (RFC 9112 section 7.1)
// that a parser must buffer whole before it can act on it.
struct ChunkLimits {
  // A chunk line: the size and its extensions, without the CRLF. Real clients send a few hex
  // digits and at most a short extension; the aws-chunked decoder allows the same 4 KiB.
  size_t max_line = 4096;
  // The trailer section: every trailer field with its CRLF, and the final CRLF. The server
  // passes its request header limit.
  size_t max_trailer = 64 << 10;
};

enum class ChunkFraming { kOk, kLineTooLong, kTrailerTooLarge };

// Judges the bytes of a chunked body that the parser holds unconsumed while it stands at a
// chunk line: `pending` starts with the CRLF that ends the previous chunk's data when
// `after_data`, then the chunk line, and for the last chunk (size 0) the trailer section.
// kLineTooLong once the line is known to exceed limits.max_line (complete or not: a line still
// without its CRLF is judged by the bytes so far), kTrailerTooLarge once the trailer section is
// known to exceed limits.max_trailer; kOk while what arrived is within the limits. Malformed
// framing is left to the parser. Reads at most max_line + max_trailer + 8 bytes of `pending`.
ChunkFraming CheckChunkFraming(std::string_view pending, bool after_data,
                               const ChunkLimits& limits);

// Request ids: 16 uppercase hex digits, unique within the process (a bijective mix of a random
// per-process seed plus a counter), unpredictable across processes. Thread-safe.
class RequestIdGenerator {
 public:
  RequestIdGenerator();                             // seeded from std::random_device
  explicit RequestIdGenerator(uint64_t seed) : seed_(seed) {}
  std::string Next();

 private:
  uint64_t seed_;
  std::atomic<uint64_t> counter_{0};
};

}  // namespace cubby::server
