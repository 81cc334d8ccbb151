#include "s3api/auth/payload.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "s3api/auth/crypto.h"
#include "s3api/auth/sigv4.h"
#include "text/ascii.h"
#include "text/encoding.h"

namespace cubby::s3api::auth {
namespace {

using sigv4::kChunkSignatureKey;
using sigv4::kTrailerSignature;

// Framing is read through a small buffer; chunk data bypasses it where it can.
constexpr size_t kPendingBytes = 4096;
// A chunk header or trailer line; real ones are < 200 bytes.
constexpr size_t kMaxLineBytes = 4096;
constexpr size_t kMaxTrailers = 16;

// 1 to 16 hex digits, no sign, no spaces.
bool ParseHexSize(std::string_view digits, uint64_t* out) {
  return digits.size() <= 16 && text::ParseUint64(digits, out, 16);
}

bool IsLowerHex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

class ChunkedReader : public PayloadReader {
 public:
  ChunkedReader(const AuthResult& auth, std::unique_ptr<BodyReader> raw)
      : raw_(std::move(raw)),
        signed_(auth.payload == PayloadMode::kStreamingSigned ||
                auth.payload == PayloadMode::kStreamingSignedTrailer),
        with_trailer_(auth.payload == PayloadMode::kStreamingSignedTrailer ||
                      auth.payload == PayloadMode::kStreamingUnsignedTrailer),
        decoded_length_(auth.decoded_content_length),
        trailer_names_(auth.trailer_names),
        signing_key_(auth.signing_key),
        amz_date_(auth.amz_date),
        scope_(auth.scope),
        previous_signature_(auth.seed_signature),
        pending_(kPendingBytes) {}

  ReadResult Read(char* buf, size_t n) override {
    for (;;) {
      switch (state_) {
        case State::kFailed:
          return {0, error_};
        case State::kDone:
          return {0, ErrorCode::kNone};
        case State::kHeader: {
          std::string line;
          if (!ReadLine(&line) || !StartChunk(line)) return {0, error_};
          continue;
        }
        case State::kData:
          if (signed_) {
            if (chunk_pos_ < chunk_.size()) return ServeBuffered(buf, n);
            if (remaining_ <= n) return ReadSignedDirect(buf);
            if (!BufferSignedChunk()) return {0, error_};
            continue;
          }
          if (remaining_ == 0) {
            if (!ExpectCrlf()) return {0, error_};
            state_ = State::kHeader;
            continue;
          }
          return ReadUnsigned(buf, n);
        case State::kTrailer: {
          std::string line;
          if (!ReadLine(&line)) return {0, error_};
          if (line.empty()) {
            if (!FinishTrailers()) return {0, error_};
            state_ = State::kDone;
            return {0, ErrorCode::kNone};
          }
          if (!AddTrailerLine(line)) return {0, error_};
          continue;
        }
      }
    }
  }

  const std::vector<Header>& trailers() const override { return trailers_; }
  std::string_view error_message() const override { return message_; }

 private:
  enum class State { kHeader, kData, kTrailer, kDone, kFailed };

  bool Fail(ErrorCode code, std::string message) {
    state_ = State::kFailed;
    error_ = code;
    message_ = std::move(message);
    chunk_.clear();
    chunk_.shrink_to_fit();
    return false;
  }

  bool Truncated() {
    return Fail(ErrorCode::kIncompleteBody,
                "The aws-chunked request body ended before its final chunk and trailer.");
  }

  // Up to n bytes (n > 0) from the pending buffer, else straight from the raw body into dst.
  // False on end of body (IncompleteBody) or a raw error.
  bool ReadSome(char* dst, size_t n, size_t* got) {
    if (pending_pos_ < pending_end_) {
      *got = std::min(n, pending_end_ - pending_pos_);
      std::memcpy(dst, pending_.data() + pending_pos_, *got);
      pending_pos_ += *got;
      return true;
    }
    const ReadResult r = raw_->Read(dst, n);
    if (r.error != ErrorCode::kNone) return Fail(r.error, "");
    if (r.n == 0) return Truncated();
    *got = r.n;
    return true;
  }

  bool ReadExact(char* dst, size_t n) {
    while (n > 0) {
      size_t got = 0;
      if (!ReadSome(dst, n, &got)) return false;
      dst += got;
      n -= got;
    }
    return true;
  }

  // Refills the pending buffer when it is empty. *eof on a clean end of the raw body.
  bool Fill(bool* eof) {
    *eof = false;
    if (pending_pos_ < pending_end_) return true;
    const ReadResult r = raw_->Read(pending_.data(), pending_.size());
    if (r.error != ErrorCode::kNone) return Fail(r.error, "");
    pending_pos_ = 0;
    pending_end_ = r.n;
    *eof = r.n == 0;
    return true;
  }

  // One line terminated by CRLF, without it.
  bool ReadLine(std::string* line) {
    line->clear();
    for (;;) {
      bool eof = false;
      if (!Fill(&eof)) return false;
      if (eof) return Truncated();
      const char* begin = pending_.data() + pending_pos_;
      const char* end = pending_.data() + pending_end_;
      const char* nl = std::find(begin, end, '\n');
      line->append(begin, nl);
      pending_pos_ += static_cast<size_t>(nl - begin);
      if (line->size() > kMaxLineBytes) {
        return Fail(ErrorCode::kInvalidRequest, "An aws-chunked chunk header is too long.");
      }
      if (nl == end) continue;
      ++pending_pos_;  // the '\n'
      if (line->empty() || line->back() != '\r') {
        return Fail(ErrorCode::kInvalidRequest,
                    "An aws-chunked line is not terminated by CRLF.");
      }
      line->pop_back();
      return true;
    }
  }

  bool ExpectCrlf() {
    char crlf[2];
    if (!ReadExact(crlf, 2)) return false;
    if (crlf[0] != '\r' || crlf[1] != '\n') {
      return Fail(ErrorCode::kInvalidRequest, "An aws-chunked chunk is not followed by CRLF.");
    }
    return true;
  }

  // "<hex>;chunk-signature=<sig>" (signed) or "<hex>[;ext]" (unsigned).
  bool StartChunk(std::string_view line) {
    const size_t semi = line.find(';');
    uint64_t size = 0;
    if (!ParseHexSize(line.substr(0, semi), &size)) {
      return Fail(ErrorCode::kInvalidRequest, "An aws-chunked chunk size is not a hex number.");
    }
    if (signed_) {
      const std::string_view ext = semi == std::string_view::npos ? "" : line.substr(semi + 1);
      if (!ext.starts_with(kChunkSignatureKey) ||
          !IsLowerHex64(ext.substr(kChunkSignatureKey.size()))) {
        return Fail(ErrorCode::kInvalidRequest,
                    "An aws-chunked chunk header has no valid chunk-signature.");
      }
      chunk_signature_ = std::string(ext.substr(kChunkSignatureKey.size()));
    }
    if (size > kMaxChunkSize) {
      return Fail(ErrorCode::kInvalidRequest, "An aws-chunked chunk is larger than " +
                                                  std::to_string(kMaxChunkSize) + " bytes.");
    }
    if (size > decoded_length_ - total_) {
      return Fail(ErrorCode::kIncompleteBody,
                  "The aws-chunked body is longer than x-amz-decoded-content-length.");
    }
    total_ += size;
    remaining_ = size;
    if (size == 0) {
      if (signed_ && !VerifyChunk({})) return false;
      state_ = State::kTrailer;
      return true;
    }
    state_ = State::kData;
    return true;
  }

  bool VerifyChunk(std::string_view data) {
    const std::string expected =
        sigv4::ChunkSignature(signing_key_, amz_date_, scope_, previous_signature_, data);
    if (!ConstantTimeEquals(expected, chunk_signature_)) {
      return Fail(ErrorCode::kSignatureDoesNotMatch,
                  "The chunk-signature of an aws-chunked chunk does not match.");
    }
    previous_signature_ = expected;
    return true;
  }

  // The whole chunk fits the caller's buffer: read, check and hand it over in one copy. The
  // buffer's contents are not the caller's to use unless the result says so.
  ReadResult ReadSignedDirect(char* buf) {
    const size_t size = remaining_;
    if (!ReadExact(buf, size) || !ExpectCrlf() || !VerifyChunk(std::string_view(buf, size))) {
      return {0, error_};
    }
    remaining_ = 0;
    state_ = State::kHeader;
    return {size, ErrorCode::kNone};
  }

  bool BufferSignedChunk() {
    chunk_.resize(remaining_);
    chunk_pos_ = 0;
    if (!ReadExact(chunk_.data(), chunk_.size()) || !ExpectCrlf() ||
        !VerifyChunk(std::string_view(chunk_.data(), chunk_.size()))) {
      return false;
    }
    remaining_ = 0;
    return true;
  }

  ReadResult ServeBuffered(char* buf, size_t n) {
    const size_t k = std::min(n, chunk_.size() - chunk_pos_);
    std::memcpy(buf, chunk_.data() + chunk_pos_, k);
    chunk_pos_ += k;
    if (chunk_pos_ == chunk_.size()) {
      chunk_.clear();
      chunk_pos_ = 0;
      state_ = State::kHeader;
    }
    return {k, ErrorCode::kNone};
  }

  ReadResult ReadUnsigned(char* buf, size_t n) {
    size_t got = 0;
    if (!ReadSome(buf, std::min<uint64_t>(n, remaining_), &got)) return {0, error_};
    remaining_ -= got;
    return {got, ErrorCode::kNone};
  }

  bool AddTrailerLine(std::string_view line) {
    if (!with_trailer_) {
      return Fail(ErrorCode::kInvalidRequest,
                  "The aws-chunked body has trailing headers but x-amz-content-sha256 declares "
                  "none.");
    }
    if (!trailer_signature_.empty()) {
      return Fail(ErrorCode::kInvalidRequest,
                  "x-amz-trailer-signature must be the last trailing header.");
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || text::TrimOws(line.substr(0, colon)).empty()) {
      return Fail(ErrorCode::kInvalidRequest, "A trailing header line is malformed.");
    }
    std::string name = text::AsciiLowercase(text::TrimOws(line.substr(0, colon)));
    std::string value(text::TrimOws(line.substr(colon + 1)));
    if (name == kTrailerSignature) {
      if (!signed_ || value.empty()) {
        return Fail(ErrorCode::kInvalidRequest, "Unexpected x-amz-trailer-signature.");
      }
      trailer_signature_ = std::move(value);
      return true;
    }
    if (std::find(trailer_names_.begin(), trailer_names_.end(), name) == trailer_names_.end()) {
      return Fail(ErrorCode::kInvalidRequest,
                  "The trailing header " + name + " is not declared in x-amz-trailer.");
    }
    for (const Header& h : trailers_) {
      if (h.name == name) {
        return Fail(ErrorCode::kInvalidRequest, "The trailing header " + name + " is repeated.");
      }
    }
    if (trailers_.size() >= kMaxTrailers) {
      return Fail(ErrorCode::kInvalidRequest, "Too many trailing headers.");
    }
    trailers_.push_back({std::move(name), std::move(value)});
    return true;
  }

  bool FinishTrailers() {
    for (const std::string& name : trailer_names_) {
      bool found = false;
      for (const Header& h : trailers_) found = found || h.name == name;
      if (!found) {
        return Fail(ErrorCode::kInvalidRequest,
                    "The trailing header " + name + " declared in x-amz-trailer is missing.");
      }
    }
    if (signed_ && with_trailer_) {
      if (trailer_signature_.empty()) {
        return Fail(ErrorCode::kSignatureDoesNotMatch,
                    "The aws-chunked trailer has no x-amz-trailer-signature.");
      }
      const std::string expected = sigv4::Signature(
          signing_key_,
          sigv4::TrailerStringToSign(amz_date_, scope_, previous_signature_, trailers_));
      if (!ConstantTimeEquals(expected, trailer_signature_)) {
        return Fail(ErrorCode::kSignatureDoesNotMatch,
                    "The x-amz-trailer-signature does not match.");
      }
    }
    if (total_ != decoded_length_) {
      return Fail(ErrorCode::kIncompleteBody,
                  "The aws-chunked body is shorter than x-amz-decoded-content-length.");
    }
    bool eof = false;
    if (!Fill(&eof)) return false;
    if (!eof) {
      return Fail(ErrorCode::kInvalidRequest,
                  "The request body continues after the end of the aws-chunked encoding.");
    }
    return true;
  }

  std::unique_ptr<BodyReader> raw_;
  const bool signed_;
  const bool with_trailer_;
  const uint64_t decoded_length_;
  const std::vector<std::string> trailer_names_;
  const std::string signing_key_;  // secret material
  const std::string amz_date_;
  const std::string scope_;
  std::string previous_signature_;

  State state_ = State::kHeader;
  ErrorCode error_ = ErrorCode::kNone;
  std::string message_;

  std::vector<char> pending_;  // framing read-ahead
  size_t pending_pos_ = 0;
  size_t pending_end_ = 0;

  uint64_t total_ = 0;      // decoded bytes announced by chunk headers so far
  uint64_t remaining_ = 0;  // of the current chunk, not yet read from the wire
  std::string chunk_signature_;
  std::vector<char> chunk_;  // a signed chunk larger than the caller's buffer, once verified
  size_t chunk_pos_ = 0;

  std::vector<Header> trailers_;
  std::string trailer_signature_;
};

// Hashes the body as it passes and checks it against x-amz-content-sha256 at end of body.
class Sha256CheckingReader : public BodyReader {
 public:
  Sha256CheckingReader(std::unique_ptr<BodyReader> raw, std::string expected_hex)
      : raw_(std::move(raw)), expected_hex_(std::move(expected_hex)) {}

  ReadResult Read(char* buf, size_t n) override {
    if (finished_) return {0, final_error_};
    ReadResult r = raw_->Read(buf, n);
    if (r.error != ErrorCode::kNone) return r;
    if (r.n > 0) {
      hasher_.Update(std::string_view(buf, r.n));
      return r;
    }
    finished_ = true;
    if (text::HexEncode(hasher_.Finish()) != expected_hex_) {
      final_error_ = ErrorCode::kXAmzContentSHA256Mismatch;
    }
    return {0, final_error_};
  }

 private:
  std::unique_ptr<BodyReader> raw_;
  std::string expected_hex_;  // lowercase
  Hasher hasher_{HashAlgorithm::kSha256};
  bool finished_ = false;
  ErrorCode final_error_ = ErrorCode::kNone;
};

// A PayloadReader over a non-streaming body: no trailers.
class PlainPayloadReader : public PayloadReader {
 public:
  explicit PlainPayloadReader(std::unique_ptr<BodyReader> inner) : inner_(std::move(inner)) {}
  ReadResult Read(char* buf, size_t n) override { return inner_->Read(buf, n); }
  const std::vector<Header>& trailers() const override { return trailers_; }
  std::string_view error_message() const override { return {}; }

 private:
  std::unique_ptr<BodyReader> inner_;
  std::vector<Header> trailers_;
};

// For a payload mode WrapBody does not know (unreachable: the switch is exhaustive).
class InternalErrorReader : public BodyReader {
 public:
  ReadResult Read(char*, size_t) override { return {0, ErrorCode::kInternalError}; }
};

}  // namespace

std::unique_ptr<PayloadReader> WrapBody(const AuthResult& auth, std::unique_ptr<BodyReader> raw) {
  switch (auth.payload) {
    case PayloadMode::kUnsigned:
      return std::make_unique<PlainPayloadReader>(std::move(raw));
    case PayloadMode::kSha256:
      return std::make_unique<PlainPayloadReader>(
          std::make_unique<Sha256CheckingReader>(std::move(raw), auth.payload_sha256));
    case PayloadMode::kStreamingSigned:
    case PayloadMode::kStreamingUnsignedTrailer:
    case PayloadMode::kStreamingSignedTrailer:
      return std::make_unique<ChunkedReader>(auth, std::move(raw));
  }
  return std::make_unique<PlainPayloadReader>(std::make_unique<InternalErrorReader>());
}

}  // namespace cubby::s3api::auth
