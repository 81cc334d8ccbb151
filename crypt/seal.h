// Segmented AEAD: an object's (or a part's) bytes sealed with AES-256-GCM under its own random
// data key, in fixed-size plaintext segments, so a ranged read decrypts only the segments it
// touches and every segment is authenticated before any of its bytes is released.
//
// Sealed layout (no header: the caller's record keeps the wrapped data key and the plaintext
// size): segment 0, segment 1, ..., each = AES-256-GCM ciphertext (as long as its plaintext)
// followed by its 16-byte tag. Every segment holds kSegmentBytes of plaintext except the last,
// which holds 1..kSegmentBytes; an empty object is one sealed empty segment (16 bytes), so
// truncating an object to nothing is detected too.
//   nonce(i) = 4 zero bytes | i as 64-bit big-endian. Unique per key: every object and part
//              has its own random data key, and i never repeats within one.
//   aad(i)   = "cubby-seal-v1" 0x00 | i as 64-bit big-endian | last (0x01 for the final
//              segment, else 0x00) | context
// The index in the AAD and nonce detects reordered or swapped segments; the last flag detects
// truncation at a segment boundary and appended segments; `context` (the caller's choice, e.g.
// bucket/key/version/part) detects data moved to another object or part.
//
// Why 64 KiB segments: the tag costs 16 / 65536 = 0.02% of space; the per-segment cost
// (nonce set-up, AAD, tag) is well under 1% of sealing 64 KiB with AES-NI; a small ranged GET
// decrypts at most two segments (128 KiB) more than it asks for; a segment stays in L2 cache; and
// s3api's body pieces (kReceivePieceBytes, 256 KiB) are a whole number of segments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "crypt/key.h"
#include "crypt/status.h"

namespace cubby::crypt {

namespace internal {
class GcmContext;
}

inline constexpr size_t kSegmentBytes = 64 << 10;
inline constexpr size_t kSegmentTagBytes = 16;
inline constexpr size_t kSealedSegmentBytes = kSegmentBytes + kSegmentTagBytes;

// How many segments an object of `plaintext_size` bytes has (at least 1).
uint64_t SegmentCount(uint64_t plaintext_size);
// The sealed size of `plaintext_size` bytes: plaintext_size + 16 * SegmentCount.
uint64_t SealedSize(uint64_t plaintext_size);
// The plaintext size of sealed data of `sealed_size` bytes. kBadFormat: no plaintext size
// seals to it (less than one tag, or a last segment of 1..16 bytes, i.e. a tag with no room,
// or an empty last segment after a full one).
Result<uint64_t> PlaintextSize(uint64_t sealed_size);

// Receives output bytes (the view is valid only during the call); returns false to stop (the call
// then fails with kSinkFailed and the caller keeps its own reason, e.g. storage's kNoSpace, in the
// lambda's capture).
using Sink = std::function<bool(std::string_view)>;

// Seals a stream of plaintext pieces of any sizes into sealed bytes for a sink (e.g. storage's
// ObjectWriter::Append). Memory: two segments. The sink gets whole sealed segments, in order;
// a segment is sealed once it is known whether it is the last, so the sink lags the input by
// up to one segment. Not thread-safe. After any failure every call returns that failure.
class SealWriter {
 public:
  // `key` is copied; `context` as in the format above.
  SealWriter(const DataKey& key, std::string context, Sink sink);
  ~SealWriter();
  SealWriter(const SealWriter&) = delete;
  SealWriter& operator=(const SealWriter&) = delete;

  // Adds plaintext. kSinkFailed, kInternal; kInvalidArgument after Finish.
  Status Update(std::string_view plaintext);
  // Seals the last segment (an empty one if nothing was added) and hands it to the sink.
  // Afterwards plaintext_bytes() and sealed_bytes() are final and sealed_bytes() ==
  // SealedSize(plaintext_bytes()). A second Finish is kInvalidArgument.
  Status Finish();

  uint64_t plaintext_bytes() const { return plaintext_bytes_; }
  uint64_t sealed_bytes() const { return sealed_bytes_; }

 private:
  Status SealSegment(std::string_view plain, bool last);

  std::unique_ptr<internal::GcmContext> gcm_;
  std::string aad_;  // the AAD, context included; each segment rewrites its index and last flag
  Sink sink_;
  std::string plain_;   // the segment being filled (at most kSegmentBytes)
  std::string sealed_;  // output buffer of one sealed segment
  uint64_t next_index_ = 0;
  uint64_t plaintext_bytes_ = 0;
  uint64_t sealed_bytes_ = 0;
  bool finished_ = false;
  Status failure_;
};

// Which sealed bytes serve a plaintext range: read [sealed_offset, sealed_offset +
// sealed_length) of the stored data and give them to an OpenReader.
struct SealedRange {
  uint64_t plaintext_size = 0;    // of the whole object
  uint64_t first_segment = 0;     // index of the first segment read
  uint64_t sealed_offset = 0;     // = first_segment * kSealedSegmentBytes
  uint64_t sealed_length = 0;     // whole segments
  uint64_t skip = 0;              // plaintext bytes dropped from the start of the first segment
  uint64_t plaintext_length = 0;  // bytes the reader releases
};

// The segments holding plaintext bytes [first, last] (inclusive, as an HTTP Range) of an object
// of `plaintext_size` bytes. kInvalidArgument unless first <= last < plaintext_size.
Result<SealedRange> PlanRange(uint64_t plaintext_size, uint64_t first, uint64_t last);
// Every segment of the object (a whole GET, including an empty object's one empty segment,
// which authenticates that it is empty).
SealedRange PlanWhole(uint64_t plaintext_size);

// Opens whole segments of one object (or part) into the caller's memory, one call per segment,
// with no copy through a private buffer and no allocation per segment: for readers that hold
// whole sealed segments (s3api's plain reader), and the engine of OpenReader. Not thread-safe;
// any number of segments, in any order.
class SegmentOpener {
 public:
  // `key` is copied; `context` must equal the writer's; `plaintext_size` is the object's (or
  // part's) size, which fixes the segment count and so the last flag.
  SegmentOpener(const DataKey& key, std::string_view context, uint64_t plaintext_size);
  ~SegmentOpener();
  SegmentOpener(const SegmentOpener&) = delete;
  SegmentOpener& operator=(const SegmentOpener&) = delete;

  uint64_t segment_count() const { return segment_count_; }
  // Plaintext bytes of segment `index`: kSegmentBytes except for the last one.
  // REQUIRES: index < segment_count().
  size_t PlaintextBytes(uint64_t index) const;

  // Decrypts segment `index` from `sealed` (its whole sealed bytes: PlaintextBytes(index) + 16)
  // into out[0, PlaintextBytes(index)) and verifies its tag. OK: those bytes are authenticated.
  // kAuthFailed: the segment does not verify (damaged, another index or object, wrong last
  // flag, wrong key or context); `out` is then zeroed, the caller must not count it as read.
  // kInvalidArgument: index >= segment_count() or `sealed` is not that size. kInternal.
  // REQUIRES: `out` does not overlap `sealed`.
  Status Open(uint64_t index, std::string_view sealed, char* out);

 private:
  std::unique_ptr<internal::GcmContext> gcm_;
  uint64_t plaintext_size_;
  uint64_t segment_count_;
  std::string aad_;  // the AAD, context included; Open rewrites only the index and last flag
};

// Opens the sealed bytes of a SealedRange, fed in order in pieces of any sizes, and gives the
// sink exactly the plaintext asked for. Each segment is decrypted into a private buffer and its
// tag verified before any of its bytes reach the sink; a failing segment releases nothing and
// every later call returns the same kAuthFailed. Memory: two segments. Not thread-safe.
class OpenReader {
 public:
  // `key` is copied; `context` must equal the writer's.
  OpenReader(const DataKey& key, std::string context, const SealedRange& range, Sink sink);
  ~OpenReader();
  OpenReader(const OpenReader&) = delete;
  OpenReader& operator=(const OpenReader&) = delete;

  // Adds sealed bytes. kAuthFailed (a segment did not verify), kSinkFailed, kInternal;
  // kInvalidArgument: more bytes than range.sealed_length, or after Finish.
  Status Update(std::string_view sealed);
  // kAuthFailed if fewer than range.sealed_length bytes were given (the stored data is
  // truncated); else OK, with every asked byte released.
  Status Finish();

 private:
  Status OpenSegment(std::string_view sealed);

  SegmentOpener opener_;
  SealedRange range_;
  Sink sink_;
  uint64_t index_ = 0;     // of the segment being filled
  uint64_t fed_ = 0;       // sealed bytes given so far
  uint64_t released_ = 0;  // plaintext bytes given to the sink
  std::string sealed_;     // the segment being filled
  std::string plain_;      // decrypted, not yet verified
  bool finished_ = false;
  Status failure_;
};

// Whole-buffer conveniences (tests, small objects, the KMS's key material).
Result<std::string> SealAll(const DataKey& key, std::string_view context,
                            std::string_view plaintext);
// REQUIRES nothing of `sealed`: kAuthFailed if it is not exactly what SealAll gave for an object
// of plaintext_size bytes under key and context.
Result<std::string> OpenAll(const DataKey& key, std::string_view context, uint64_t plaintext_size,
                            std::string_view sealed);

}  // namespace cubby::crypt
