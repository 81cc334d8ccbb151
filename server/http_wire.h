// The server's pure pieces of HTTP/1.1: Beast header → s3api::HttpRequest, the response head as
// bytes, reason phrases, dates and request ids. No sockets here, so all of it is unit-tested.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

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
