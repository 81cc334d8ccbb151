// Receiving an object or part body with every integrity check AWS applies on the way in:
// payload hash or aws-chunked signatures (auth), Content-MD5, and the additional checksums.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html
#include <vector>

#include "s3api/auth/checksum.h"
#include "s3api/auth/crypto.h"
#include "s3api/handlers.h"

namespace cubby::s3api {

namespace {

constexpr size_t kReceiveBufferBytes = 64 << 10;

bool IsStreaming(auth::PayloadMode mode) {
  switch (mode) {
    case auth::PayloadMode::kUnsigned:
    case auth::PayloadMode::kSha256:
      return false;
    case auth::PayloadMode::kStreamingSigned:
    case auth::PayloadMode::kStreamingUnsignedTrailer:
    case auth::PayloadMode::kStreamingSignedTrailer:
      return true;
  }
  return false;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

std::optional<HttpResponse> ReceiveBody(const Context& ctx, uint64_t max_size,
                                        std::optional<auth::ChecksumAlgorithm> required,
                                        const BodySink& sink, ReceivedBody* out) {
  const HttpRequest& request = ctx.request;
  // For aws-chunked bodies Content-Length counts the framing; the object is the decoded size.
  std::optional<uint64_t> length = request.content_length;
  const bool streaming = IsStreaming(ctx.auth.payload);
  if (streaming) length = ctx.auth.decoded_content_length;
  if (!length && request.Find("transfer-encoding") == nullptr) {
    return ErrorResponse(ctx, ErrorCode::kMissingContentLength);
  }
  if (length && *length > max_size) return ErrorResponse(ctx, ErrorCode::kEntityTooLarge);

  std::string expected_md5;
  if (const std::string* content_md5 = request.Find("content-md5")) {
    if (!auth::Base64Decode(*content_md5, &expected_md5) || expected_md5.size() != 16) {
      return ErrorResponse(ctx, ErrorCode::kInvalidDigest);
    }
  }
  auth::ChecksumSpecResult parsed = auth::ParseChecksumHeaders(request.headers);
  if (parsed.error != ErrorCode::kNone) return ErrorResponse(ctx, parsed.error, parsed.message);
  std::optional<auth::ChecksumSpec> spec = parsed.spec;
  if (required) {
    if (spec && spec->algorithm != *required) {
      return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                           "Checksum Type mismatch occurred, expected checksum Type: " +
                               Lower(auth::ChecksumName(*required)) + ", actual checksum Type: " +
                               Lower(auth::ChecksumName(spec->algorithm)));
    }
    if (!spec) spec = auth::ChecksumSpec{*required, std::nullopt, false};
  }

  std::unique_ptr<auth::PayloadReader> payload = ctx.Body();
  const auth::PayloadReader* payload_raw = payload.get();
  std::unique_ptr<BodyReader> body;
  const auth::ChecksumReader* checksum = nullptr;
  if (spec) {
    auto reader = std::make_unique<auth::ChecksumReader>(
        std::move(payload), spec->algorithm, spec->expected_b64,
        spec->from_trailer ? payload_raw : nullptr);
    checksum = reader.get();
    body = std::move(reader);
  } else {
    body = std::move(payload);
  }

  auth::Hasher md5(auth::HashAlgorithm::kMd5);
  std::vector<char> buf(kReceiveBufferBytes);
  uint64_t total = 0;
  for (;;) {
    ReadResult r = body->Read(buf.data(), buf.size());
    if (r.error != ErrorCode::kNone) {
      std::string message(checksum != nullptr ? checksum->error_message() : std::string_view{});
      if (message.empty()) message = std::string(payload_raw->error_message());
      return ErrorResponse(ctx, r.error, message);
    }
    if (r.n == 0) break;
    total += r.n;
    if (total > max_size) return ErrorResponse(ctx, ErrorCode::kEntityTooLarge);
    std::string_view chunk(buf.data(), r.n);
    md5.Update(chunk);
    storage::Status s = sink(chunk);
    if (!s.ok()) return StorageError(ctx, s);
  }
  if (!streaming && length && total != *length) {
    return ErrorResponse(ctx, ErrorCode::kIncompleteBody);
  }
  out->size = total;
  out->md5 = md5.Finish();
  if (!expected_md5.empty() && !auth::ConstantTimeEquals(out->md5, expected_md5)) {
    return ErrorResponse(ctx, ErrorCode::kBadDigest);
  }
  if (checksum != nullptr) {
    out->checksum_name = std::string(auth::ChecksumName(checksum->algorithm()));
    out->checksum_b64 = checksum->computed();
  }
  return std::nullopt;
}

}  // namespace cubby::s3api
