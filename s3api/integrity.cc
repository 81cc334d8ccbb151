// Receiving an object or part body with every integrity check AWS applies on the way in:
// payload hash or aws-chunked signatures (auth), Content-MD5, and the additional checksums.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html
#include <algorithm>
#include <array>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "s3api/auth/checksum.h"
#include "s3api/auth/crypto.h"
#include "s3api/handlers.h"
#include "text/ascii.h"
#include "text/encoding.h"

namespace cubby::s3api {

namespace {

constexpr size_t kReceiveBufferBytes = 64 << 10;
constexpr size_t kOverlapRing = 4;

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

// MD5 of a large body on a second thread, so that it overlaps what the calling thread does
// meanwhile: receiving (with the payload's SHA-256 and the additional checksum, which run in the
// reader chain) and storing. MD5 cannot be split, so a single stream goes at most at one core's
// MD5 speed; this keeps it from also paying for everything else.
//
// The caller fills the buffers of a small ring in turn (Next, then Submit) and may keep reading
// a submitted piece until its next Next; the worker hashes pieces in submission order and hands
// each buffer back. Memory: kOverlapRing x kReceivePieceBytes (pieces of 256 KiB to 1 MiB gave
// the same 64 MiB PUT rate; the smallest keeps 1 MiB per upload). The thread starts with the
// first piece; if it cannot be started, Submit hashes inline. The destructor stops the worker
// without waiting for the pieces still queued and joins it, so no thread outlives the object.
class Md5Worker {
 public:
  // `md5` may already hold a prefix of the body; it must outlive the worker.
  explicit Md5Worker(auth::Hasher& md5) : md5_(md5) {
    for (auto& buffer : buffers_) {
      buffer = std::make_unique_for_overwrite<char[]>(kReceivePieceBytes);
    }
  }
  ~Md5Worker() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    queued_.notify_one();
    if (thread_.joinable()) thread_.join();
  }
  Md5Worker(const Md5Worker&) = delete;
  Md5Worker& operator=(const Md5Worker&) = delete;

  // The buffer to fill next (kReceivePieceBytes); waits while the worker still hashes it.
  char* Next() {
    std::unique_lock lock(mu_);
    freed_.wait(lock, [this] { return submitted_ - hashed_ < kOverlapRing; });
    return buffers_[submitted_ % kOverlapRing].get();
  }
  // Queues the first `n` bytes of the buffer Next returned. REQUIRES: 0 < n <= kReceivePieceBytes.
  void Submit(size_t n) {
    if (!started_) {
      started_ = true;
      try {
        thread_ = std::thread([this] { Run(); });
      } catch (const std::system_error&) {
        // No thread (resource limits): hash on the caller's thread, as for a small body.
      }
    }
    if (!thread_.joinable()) {
      md5_.Update(std::string_view(buffers_[0].get(), n));
      return;
    }
    {
      std::lock_guard lock(mu_);
      sizes_[submitted_ % kOverlapRing] = n;
      ++submitted_;
    }
    queued_.notify_one();
  }
  // Waits until every submitted piece is hashed. `md5` is then complete.
  void Drain() {
    std::unique_lock lock(mu_);
    freed_.wait(lock, [this] { return hashed_ == submitted_; });
  }

 private:
  void Run() {
    std::unique_lock lock(mu_);
    for (;;) {
      queued_.wait(lock, [this] { return stop_ || hashed_ < submitted_; });
      if (stop_) return;
      const size_t slot = hashed_ % kOverlapRing;
      const std::string_view piece(buffers_[slot].get(), sizes_[slot]);
      lock.unlock();
      md5_.Update(piece);
      lock.lock();
      ++hashed_;
      freed_.notify_one();
    }
  }

  auth::Hasher& md5_;
  std::array<std::unique_ptr<char[]>, kOverlapRing> buffers_;
  std::mutex mu_;
  std::condition_variable queued_;  // signals the worker: a piece was submitted, or stop_
  std::condition_variable freed_;   // signals the caller: a piece was hashed
  std::array<size_t, kOverlapRing> sizes_{};
  uint64_t submitted_ = 0;  // pieces handed over so far; guarded by mu_
  uint64_t hashed_ = 0;     // pieces hashed so far; guarded by mu_
  bool stop_ = false;
  bool started_ = false;    // caller's thread only
  std::thread thread_;      // last: started after, and joined before, everything it uses
};

// The request body behind the reader chain, read with ReceiveBody's error responses.
class BodyPieces {
 public:
  BodyPieces(const Context& ctx, BodyReader& body, const auth::PayloadReader& payload,
             const auth::ChecksumReader* checksum, uint64_t max_size)
      : ctx_(ctx), body_(body), payload_(payload), checksum_(checksum), max_size_(max_size) {}

  // The next piece, up to `cap` bytes, into `buf`; *n == 0 at the end of the body.
  Failure Read(char* buf, size_t cap, size_t* n) {
    ReadResult r = body_.Read(buf, cap);
    if (r.error != ErrorCode::kNone) {
      std::string message(checksum_ != nullptr ? checksum_->error_message() : std::string_view{});
      if (message.empty()) message = std::string(payload_.error_message());
      return ErrorResponse(ctx_, r.error, message);
    }
    *n = r.n;
    if (r.n == 0) ended_ = true;
    total_ += r.n;
    if (total_ > max_size_) return ErrorResponse(ctx_, ErrorCode::kEntityTooLarge);
    return Failure::None();
  }
  uint64_t total() const { return total_; }
  bool ended() const { return ended_; }

 private:
  const Context& ctx_;
  BodyReader& body_;
  const auth::PayloadReader& payload_;
  const auth::ChecksumReader* checksum_;
  const uint64_t max_size_;
  uint64_t total_ = 0;
  bool ended_ = false;
};

// The rest of the body into `sink`, with MD5 on an Md5Worker. Each piece is stored as soon as
// it is read, while it is still in this core's cache (storing each 1 MiB buffer once it was
// full made the copy into the page cache several times as costly); MD5 gets a buffer when it
// is full.
Failure ReceiveOverlapped(const Context& ctx, BodyPieces& body, auth::Hasher& md5,
                          const BodySink& sink) {
  Md5Worker worker(md5);
  while (!body.ended()) {
    char* buf = worker.Next();
    size_t filled = 0;
    while (filled < kReceivePieceBytes) {
      size_t n = 0;
      if (Failure failure = body.Read(buf + filled, kReceivePieceBytes - filled, &n)) {
        return failure;
      }
      if (n == 0) break;
      storage::Status s = sink(std::string_view(buf + filled, n));
      if (!s.ok()) return StorageError(ctx, s);
      filled += n;
    }
    if (filled > 0) worker.Submit(filled);
  }
  worker.Drain();
  return Failure::None();
}

}  // namespace

Failure ReadIntegrityHeaders(const Context& ctx, const HttpRequest& request,
                             std::string* expected_md5, std::optional<auth::ChecksumSpec>* spec) {
  expected_md5->clear();
  if (const std::string* content_md5 = request.Find("content-md5")) {
    if (!text::Base64Decode(*content_md5, expected_md5) || expected_md5->size() != 16) {
      return ErrorResponse(ctx, ErrorCode::kInvalidDigest);
    }
  }
  auth::ChecksumSpecResult parsed = auth::ParseChecksumHeaders(request.headers);
  if (parsed.error != ErrorCode::kNone) return ErrorResponse(ctx, parsed.error, parsed.message);
  *spec = parsed.spec;
  return Failure::None();
}

Failure ReceiveStream(const Context& ctx, BodyReader& reader, const auth::PayloadReader& payload,
                      const auth::ChecksumReader* checksum, std::optional<uint64_t> length,
                      uint64_t max_size, const BodySink& sink, ReceivedBody* out) {
  BodyPieces body(ctx, reader, payload, checksum, max_size);
  // Small bodies (and the start of one of unknown size) are hashed inline: a thread is not
  // worth it for them. Above kReceiveOverlapBytes MD5 moves to a worker thread.
  auth::Hasher md5(auth::HashAlgorithm::kMd5);
  if (!length || *length <= kReceiveOverlapBytes) {
    // Sized to the body when it is known to be small, and not zeroed: a 4 KiB PUT should not
    // clear (and take from the arena) a 64 KiB buffer for every request.
    const size_t buf_size = length ? static_cast<size_t>(std::clamp<uint64_t>(
                                         *length, 1, kReceiveBufferBytes))
                                   : kReceiveBufferBytes;
    auto buf = std::make_unique_for_overwrite<char[]>(buf_size);
    while (!body.ended() && body.total() <= kReceiveOverlapBytes) {
      size_t n = 0;
      if (Failure failure = body.Read(buf.get(), buf_size, &n)) return failure;
      if (n == 0) break;
      std::string_view piece(buf.get(), n);
      md5.Update(piece);
      storage::Status s = sink(piece);
      if (!s.ok()) return StorageError(ctx, s);
    }
  }
  if (!body.ended()) {
    if (Failure failure = ReceiveOverlapped(ctx, body, md5, sink)) return failure;
  }
  out->size = body.total();
  out->md5 = md5.Finish();
  if (checksum != nullptr) {
    out->checksum_name = std::string(auth::ChecksumName(checksum->algorithm()));
    out->checksum_b64 = checksum->computed();
  }
  return Failure::None();
}

Failure ReceiveBody(const Context& ctx, uint64_t max_size,
                    std::optional<auth::ChecksumAlgorithm> required, const BodySink& sink,
                    ReceivedBody* out) {
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
  std::optional<auth::ChecksumSpec> spec;
  if (Failure failure = ReadIntegrityHeaders(ctx, request, &expected_md5, &spec)) return failure;
  if (required) {
    if (spec && spec->algorithm != *required) {
      return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                           "Checksum Type mismatch occurred, expected checksum Type: " +
                               text::AsciiLowercase(auth::ChecksumName(*required)) + ", actual checksum Type: " +
                               text::AsciiLowercase(auth::ChecksumName(spec->algorithm)));
    }
    if (!spec) spec = auth::ChecksumSpec{*required, std::nullopt, false};
  }

  std::unique_ptr<auth::PayloadReader> payload = ctx.Body();
  const auth::PayloadReader* payload_raw = payload.get();
  std::unique_ptr<BodyReader> reader;
  const auth::ChecksumReader* checksum = nullptr;
  if (spec) {
    auto checksum_reader = std::make_unique<auth::ChecksumReader>(
        std::move(payload), spec->algorithm, spec->expected_b64,
        spec->from_trailer ? payload_raw : nullptr);
    checksum = checksum_reader.get();
    reader = std::move(checksum_reader);
  } else {
    reader = std::move(payload);
  }
  if (Failure failure =
          ReceiveStream(ctx, *reader, *payload_raw, checksum, length, max_size, sink, out)) {
    return failure;
  }
  if (!streaming && length && out->size != *length) {
    return ErrorResponse(ctx, ErrorCode::kIncompleteBody);
  }
  if (!expected_md5.empty() && !auth::ConstantTimeEquals(out->md5, expected_md5)) {
    return ErrorResponse(ctx, ErrorCode::kBadDigest);
  }
  return Failure::None();
}

}  // namespace cubby::s3api
