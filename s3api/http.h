// The HTTP exchange as s3api sees it: no sockets, no Beast. The server fills an HttpRequest
// from the wire, hands the body over as a BodyReader, and writes the HttpResponse back,
// pulling a streamed body from its BodySource. Tests drive S3Service with strings.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "s3api/errors.h"

namespace cubby::s3api {

struct Header {
  std::string name;   // lowercase
  std::string value;  // as received, surrounding whitespace trimmed
};

struct HttpRequest {
  std::string method;                   // "GET", "PUT", ...
  std::string target;                   // raw request-target: "/bucket/key%20x?list-type=2"
  std::vector<Header> headers;          // in arrival order; repeated names kept
  std::optional<uint64_t> content_length;  // absent for chunked transfer-encoding
  std::string remote_address;           // "ip:port" ("[v6]:port"), for logs and aws:SourceIp
  bool secure = false;                  // it came over TLS (aws:SecureTransport)
  std::string_view tls_version;         // secure: "1.2", "1.3" (s3:TlsVersion); else empty
  std::string request_id;               // set by the server, echoed as x-amz-request-id

  // First header with this (lowercase) name, or nullptr.
  const std::string* Find(std::string_view name) const;
};

// A field of a multipart/form-data body (a POST Object form; form_data.h reads them).
struct FormField {
  std::string name;  // lowercase: AWS matches form field names case-insensitively
  std::string value;
};

// The value of the first field named `name` (lowercase), or nullptr. (Inline, as FindHeader, so
// that s3api/auth uses it without s3api's objects.)
inline const std::string* FindFormField(const std::vector<FormField>& fields,
                                        std::string_view name) {
  for (const FormField& f : fields) {
    if (f.name == name) return &f.value;
  }
  return nullptr;
}

struct ReadResult {
  size_t n = 0;                          // bytes produced; 0 with kNone means end of body
  ErrorCode error = ErrorCode::kNone;    // e.g. kIncompleteBody, kRequestTimeout, kBadDigest
};

// The request body, pulled in pieces. Readers stack: socket → (aws-chunked decoding) →
// payload hash check. A reader reports an integrity error (wrong sha256, wrong chunk signature)
// no later than the Read that returns end of body, so a writer that commits only after seeing
// end of body never stores unverified data.
class BodyReader {
 public:
  virtual ~BodyReader() = default;
  virtual ReadResult Read(char* buf, size_t n) = 0;
};

// Bytes of a response body that sit in a file: `length` bytes of `fd` from `offset`.
struct FileSpan {
  int fd = -1;
  uint64_t offset = 0;
  size_t length = 0;
};

struct FileSpanResult {
  std::optional<FileSpan> span;        // nullopt with kNone: the next bytes are not in a file
  ErrorCode error = ErrorCode::kNone;  // e.g. kInternalError: the file is missing or unreadable
};

// A streamed response body of a known length (HttpResponse::content_length bytes).
class BodySource {
 public:
  virtual ~BodySource() = default;
  virtual ReadResult Read(char* buf, size_t n) = 0;

  // Optional zero-copy path. When the body's next bytes sit in a file: up to `max` of them as a
  // FileSpan (length 1..max), and the position advances past them as if Read had returned
  // them; the server may then send them with sendfile(2). The fd belongs to the source and
  // stays valid until the next NextFileSpan or Read call or the source's destruction. A span is
  // nullopt when the next bytes are not in a file or the body has ended: the caller uses Read,
  // and may ask again after it. The server asks only where it can use a span (plain TCP, not
  // TLS). Default: never a span. REQUIRES: max > 0.
  virtual FileSpanResult NextFileSpan(size_t max) {
    (void)max;
    return {};
  }

  // True when producing the bytes costs real work (an encrypted object's plaintext is decrypted
  // segment by segment) and no file span will come: the server may then call Read from a
  // second thread, producing the next pieces while it sends the ones before (one caller at a
  // time, never concurrently). Default: false.
  virtual bool ProducedBytes() const { return false; }
};

struct HttpResponse {
  int status = 200;
  std::vector<Header> headers;           // Content-Length is added by the server
  std::string body;                      // used when source is null
  std::unique_ptr<BodySource> source;    // streamed body; then content_length is its size
  // With source: its size. For a HEAD response (no source, empty body): the Content-Length
  // the matching GET would have; the server advertises it and sends no body.
  uint64_t content_length = 0;
  bool close_connection = false;         // e.g. the request body was not consumed

  void Set(std::string name, std::string value) {
    headers.push_back({std::move(name), std::move(value)});
  }
};

// The whole of a small request body (an XML document, a form, a JSON call), read into *out.
// kTooLarge when the declared Content-Length or the bytes read pass `limit`: reading stops
// there and the rest stays unread (the server drains it or closes). kFailed: the reader's
// error is in `error` (a timeout, a broken chunk, a wrong payload hash).
struct BoundedBody {
  enum Outcome { kRead, kTooLarge, kFailed } outcome = kRead;
  ErrorCode error = ErrorCode::kNone;
};
BoundedBody ReadBoundedBody(BodyReader& body, std::optional<uint64_t> declared_length, size_t limit,
                            std::string* out);

// A BodyReader over a string, for tests and for requests whose body is already in memory.
class StringBodyReader : public BodyReader {
 public:
  explicit StringBodyReader(std::string data) : data_(std::move(data)) {}
  ReadResult Read(char* buf, size_t n) override;

 private:
  std::string data_;
  size_t pos_ = 0;
};

}  // namespace cubby::s3api
