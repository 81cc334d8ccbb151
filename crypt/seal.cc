#include "crypt/seal.h"

#include <algorithm>
#include <cstring>

#include "crypt/gcm_internal.h"

namespace cubby::crypt {
namespace {

constexpr char kAadLabel[] = "cubby-seal-v1";  // followed by its NUL in the AAD
constexpr size_t kAadFixedBytes = sizeof kAadLabel + 8 + 1;

void PutBigEndian64(uint64_t v, unsigned char* out) {
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<unsigned char>(v & 0xff);
    v >>= 8;
  }
}

void MakeNonce(uint64_t index, unsigned char nonce[12]) {
  std::memset(nonce, 0, 4);
  PutBigEndian64(index, nonce + 4);
}

// The AAD of a segment in *aad, its index and last flag still to be set (SetAadSegment): built
// once per writer or opener, so sealing and opening a segment allocates nothing.
void MakeAad(std::string_view context, std::string* aad) {
  aad->resize(kAadFixedBytes + context.size());
  auto* p = reinterpret_cast<unsigned char*>(aad->data());
  std::memcpy(p, kAadLabel, sizeof kAadLabel);
  std::memcpy(p + kAadFixedBytes, context.data(), context.size());
}

void SetAadSegment(uint64_t index, bool last, std::string* aad) {
  auto* p = reinterpret_cast<unsigned char*>(aad->data());
  PutBigEndian64(index, p + sizeof kAadLabel);
  p[sizeof kAadLabel + 8] = last ? 1 : 0;
}

unsigned char* U(std::string& s) { return reinterpret_cast<unsigned char*>(s.data()); }

// Plaintext bytes of segment `index` of an object of `plaintext_size` bytes.
uint64_t SegmentPlaintextBytes(uint64_t plaintext_size, uint64_t index) {
  uint64_t start = index * kSegmentBytes;
  return std::min<uint64_t>(kSegmentBytes, plaintext_size - start);
}

}  // namespace

uint64_t SegmentCount(uint64_t plaintext_size) {
  if (plaintext_size == 0) return 1;
  return (plaintext_size + kSegmentBytes - 1) / kSegmentBytes;
}

uint64_t SealedSize(uint64_t plaintext_size) {
  return plaintext_size + kSegmentTagBytes * SegmentCount(plaintext_size);
}

Result<uint64_t> PlaintextSize(uint64_t sealed_size) {
  const uint64_t full = sealed_size / kSealedSegmentBytes;
  const uint64_t rest = sealed_size % kSealedSegmentBytes;
  if (rest == 0 && full > 0) return full * kSegmentBytes;
  if (rest == kSegmentTagBytes && full == 0) return uint64_t{0};
  if (rest > kSegmentTagBytes) return full * kSegmentBytes + rest - kSegmentTagBytes;
  return Status(Code::kBadFormat,
                "no plaintext seals to " + std::to_string(sealed_size) + " bytes");
}

// ---- SealWriter

SealWriter::SealWriter(const DataKey& key, std::string context, Sink sink)
    : gcm_(std::make_unique<internal::GcmContext>(true, key)), sink_(std::move(sink)) {
  MakeAad(context, &aad_);
  if (!gcm_->ok()) failure_ = Status(Code::kInternal, "AES-256-GCM context setup failed");
}

SealWriter::~SealWriter() = default;

Status SealWriter::SealSegment(std::string_view plain, bool last) {
  SetAadSegment(next_index_, last, &aad_);
  unsigned char nonce[12];
  MakeNonce(next_index_, nonce);
  const size_t n = plain.size();
  sealed_.resize(n + kSegmentTagBytes);
  Status s =
      gcm_->Seal(nonce, U(aad_), aad_.size(), reinterpret_cast<const unsigned char*>(plain.data()),
                 n, U(sealed_), U(sealed_) + n);
  if (!s.ok()) return s;
  if (!sink_(sealed_)) return Status(Code::kSinkFailed, "the sink refused a sealed segment");
  ++next_index_;
  plaintext_bytes_ += n;
  sealed_bytes_ += sealed_.size();
  return Status::Ok();
}

Status SealWriter::Update(std::string_view plaintext) {
  if (!failure_.ok()) return failure_;
  if (finished_) return Status(Code::kInvalidArgument, "SealWriter::Update after Finish");
  while (!plaintext.empty()) {
    // A full segment is sealed only now that more bytes follow: it is not the last.
    if (plain_.size() == kSegmentBytes) {
      failure_ = SealSegment(plain_, false);
      if (!failure_.ok()) return failure_;
      plain_.clear();
    }
    // Whole segments with more bytes after them are sealed straight from the caller's piece,
    // without a copy into plain_.
    if (plain_.empty() && plaintext.size() > kSegmentBytes) {
      failure_ = SealSegment(plaintext.substr(0, kSegmentBytes), false);
      if (!failure_.ok()) return failure_;
      plaintext.remove_prefix(kSegmentBytes);
      continue;
    }
    size_t n = std::min(plaintext.size(), kSegmentBytes - plain_.size());
    plain_.append(plaintext.substr(0, n));
    plaintext.remove_prefix(n);
  }
  return Status::Ok();
}

Status SealWriter::Finish() {
  if (!failure_.ok()) return failure_;
  if (finished_) return Status(Code::kInvalidArgument, "SealWriter::Finish called twice");
  finished_ = true;
  failure_ = SealSegment(plain_, true);
  plain_.clear();
  return failure_;
}

// ---- Ranges

Result<SealedRange> PlanRange(uint64_t plaintext_size, uint64_t first, uint64_t last) {
  if (first > last || last >= plaintext_size) {
    return Status(Code::kInvalidArgument, "range " + std::to_string(first) + "-" +
                                              std::to_string(last) + " outside an object of " +
                                              std::to_string(plaintext_size) + " bytes");
  }
  SealedRange r;
  r.plaintext_size = plaintext_size;
  r.first_segment = first / kSegmentBytes;
  const uint64_t last_segment = last / kSegmentBytes;
  r.sealed_offset = r.first_segment * kSealedSegmentBytes;
  r.sealed_length = (last_segment - r.first_segment) * kSealedSegmentBytes +
                    SegmentPlaintextBytes(plaintext_size, last_segment) + kSegmentTagBytes;
  r.skip = first - r.first_segment * kSegmentBytes;
  r.plaintext_length = last - first + 1;
  return r;
}

SealedRange PlanWhole(uint64_t plaintext_size) {
  SealedRange r;
  r.plaintext_size = plaintext_size;
  r.sealed_length = SealedSize(plaintext_size);
  r.plaintext_length = plaintext_size;
  return r;
}

// ---- SegmentOpener

SegmentOpener::SegmentOpener(const DataKey& key, std::string_view context, uint64_t plaintext_size)
    : gcm_(std::make_unique<internal::GcmContext>(false, key)),
      plaintext_size_(plaintext_size),
      segment_count_(SegmentCount(plaintext_size)) {
  MakeAad(context, &aad_);
}

SegmentOpener::~SegmentOpener() = default;

size_t SegmentOpener::PlaintextBytes(uint64_t index) const {
  return static_cast<size_t>(SegmentPlaintextBytes(plaintext_size_, index));
}

Status SegmentOpener::Open(uint64_t index, std::string_view sealed, char* out) {
  if (index >= segment_count_) {
    return Status(Code::kInvalidArgument,
                  "segment " + std::to_string(index) + " of " + std::to_string(segment_count_));
  }
  const size_t n = PlaintextBytes(index);
  if (sealed.size() != n + kSegmentTagBytes) {
    return Status(Code::kInvalidArgument, "sealed segment of " + std::to_string(sealed.size()) +
                                              " bytes, not " +
                                              std::to_string(n + kSegmentTagBytes));
  }
  SetAadSegment(index, index + 1 == segment_count_, &aad_);
  unsigned char nonce[12];
  MakeNonce(index, nonce);
  const auto* in = reinterpret_cast<const unsigned char*>(sealed.data());
  Status s =
      gcm_->Open(nonce, U(aad_), aad_.size(), in, n, in + n, reinterpret_cast<unsigned char*>(out));
  if (s.ok()) return s;
  // GCM decrypts before it checks the tag: the bytes in `out` are unauthenticated.
  std::memset(out, 0, n);
  if (s.code() == Code::kAuthFailed) {
    return Status(Code::kAuthFailed,
                  "sealed segment " + std::to_string(index) + " does not authenticate");
  }
  return s;
}

// ---- OpenReader

OpenReader::OpenReader(const DataKey& key, std::string context, const SealedRange& range, Sink sink)
    : opener_(key, context, range.plaintext_size),
      range_(range),
      sink_(std::move(sink)),
      index_(range.first_segment) {
  // A small object or range needs less than a segment's buffer.
  sealed_.reserve(
      static_cast<size_t>(std::min<uint64_t>(kSealedSegmentBytes, range.sealed_length)));
}

OpenReader::~OpenReader() = default;

Status OpenReader::OpenSegment(std::string_view sealed) {
  const size_t n = sealed.size() - kSegmentTagBytes;
  plain_.resize(n);
  if (Status s = opener_.Open(index_, sealed, plain_.data()); !s.ok()) return s;
  // Verified: release the part of this segment inside the asked range.
  const uint64_t want_begin = range_.first_segment * kSegmentBytes + range_.skip + released_;
  const uint64_t want_end =
      range_.first_segment * kSegmentBytes + range_.skip + range_.plaintext_length;
  const uint64_t seg_begin = index_ * kSegmentBytes;
  const uint64_t begin = std::max(want_begin, seg_begin);
  const uint64_t end = std::min<uint64_t>(want_end, seg_begin + n);
  if (begin < end) {
    std::string_view out(plain_.data() + (begin - seg_begin), end - begin);
    if (!sink_(out)) return Status(Code::kSinkFailed, "the sink refused opened bytes");
    released_ += end - begin;
  }
  ++index_;
  return Status::Ok();
}

Status OpenReader::Update(std::string_view sealed) {
  if (!failure_.ok()) return failure_;
  if (finished_) return Status(Code::kInvalidArgument, "OpenReader::Update after Finish");
  if (sealed.size() > range_.sealed_length - fed_) {
    return Status(Code::kInvalidArgument, "more sealed bytes than the range holds");
  }
  fed_ += sealed.size();
  while (!sealed.empty()) {
    const uint64_t want = SegmentPlaintextBytes(range_.plaintext_size, index_) + kSegmentTagBytes;
    // A whole segment in the caller's piece is opened from there, without a copy.
    if (sealed_.empty() && sealed.size() >= want) {
      failure_ = OpenSegment(sealed.substr(0, want));
      if (!failure_.ok()) return failure_;
      sealed.remove_prefix(want);
      continue;
    }
    size_t n = static_cast<size_t>(std::min<uint64_t>(sealed.size(), want - sealed_.size()));
    sealed_.append(sealed.substr(0, n));
    sealed.remove_prefix(n);
    if (sealed_.size() == want) {
      failure_ = OpenSegment(sealed_);
      sealed_.clear();
      if (!failure_.ok()) return failure_;
    }
  }
  return Status::Ok();
}

Status OpenReader::Finish() {
  if (!failure_.ok()) return failure_;
  if (finished_) return Status(Code::kInvalidArgument, "OpenReader::Finish called twice");
  finished_ = true;
  if (fed_ < range_.sealed_length) {
    failure_ =
        Status(Code::kAuthFailed, "sealed data ends after " + std::to_string(fed_) + " of " +
                                      std::to_string(range_.sealed_length) + " bytes (truncated)");
  }
  return failure_;
}

// ---- Whole buffers

Result<std::string> SealAll(const DataKey& key, std::string_view context,
                            std::string_view plaintext) {
  std::string out;
  out.reserve(SealedSize(plaintext.size()));
  SealWriter writer(key, std::string(context), [&](std::string_view piece) {
    out.append(piece);
    return true;
  });
  Status s = writer.Update(plaintext);
  if (s.ok()) s = writer.Finish();
  if (!s.ok()) return s;
  return out;
}

Result<std::string> OpenAll(const DataKey& key, std::string_view context, uint64_t plaintext_size,
                            std::string_view sealed) {
  const SealedRange range = PlanWhole(plaintext_size);
  if (sealed.size() != range.sealed_length) {
    return Status(Code::kAuthFailed, "sealed data of " + std::to_string(sealed.size()) +
                                         " bytes for " + std::to_string(plaintext_size) +
                                         " plaintext bytes");
  }
  std::string out;
  out.reserve(plaintext_size);
  OpenReader reader(key, std::string(context), range, [&](std::string_view piece) {
    out.append(piece);
    return true;
  });
  Status s = reader.Update(sealed);
  if (s.ok()) s = reader.Finish();
  if (!s.ok()) return s;
  return out;
}

}  // namespace cubby::crypt
