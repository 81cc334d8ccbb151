#include "s3api/auth/checksum.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

#include "s3api/auth/crypto.h"
#include "s3api/auth/payload.h"
#include "text/ascii.h"
#include "text/encoding.h"

namespace cubby::s3api::auth {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the slicing-by-8 CRCs load 8 bytes as a little-endian word");

// CRC parameters: reflected polynomials; init and xorout are all ones for all three, which is
// what lets one combine routine serve them all.
constexpr uint32_t kCrc32Poly = 0xedb88320u;
constexpr uint32_t kCrc32cPoly = 0x82f63b78u;
constexpr uint64_t kCrc64NvmePoly = 0x9a6c9329ac4bc9b5ull;

// ---- Table-driven reflected CRC, slicing-by-8 (8 table lookups per 8 input bytes).
template <typename T>
struct SliceTables {
  T t[8][256];
};

template <typename T>
SliceTables<T> MakeTables(T poly) {
  SliceTables<T> tb{};
  for (unsigned i = 0; i < 256; ++i) {
    T c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ poly : c >> 1;
    tb.t[0][i] = c;
  }
  for (unsigned i = 0; i < 256; ++i) {
    for (int s = 1; s < 8; ++s) tb.t[s][i] = (tb.t[s - 1][i] >> 8) ^ tb.t[0][tb.t[s - 1][i] & 0xff];
  }
  return tb;
}

// `crc` is the raw register (already inverted).
template <typename T>
T SliceUpdate(const SliceTables<T>& tb, T crc, const unsigned char* p, size_t n) {
  const auto& t = tb.t;
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    const uint64_t x = word ^ static_cast<uint64_t>(crc);
    crc = static_cast<T>(t[7][x & 0xff] ^ t[6][(x >> 8) & 0xff] ^ t[5][(x >> 16) & 0xff] ^
                         t[4][(x >> 24) & 0xff] ^ t[3][(x >> 32) & 0xff] ^
                         t[2][(x >> 40) & 0xff] ^ t[1][(x >> 48) & 0xff] ^ t[0][x >> 56]);
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
  return crc;
}

const SliceTables<uint32_t>& Crc32cTables() {
  static const SliceTables<uint32_t> tables = MakeTables<uint32_t>(kCrc32cPoly);
  return tables;
}

const SliceTables<uint64_t>& Crc64NvmeTables() {
  static const SliceTables<uint64_t> tables = MakeTables<uint64_t>(kCrc64NvmePoly);
  return tables;
}

#if defined(__x86_64__)
// The SSE4.2 crc32 instruction computes CRC32C; checked for at run time.
__attribute__((target("sse4.2"))) uint32_t Crc32cHardware(uint32_t crc, const unsigned char* p,
                                                          size_t n) {
  uint64_t c = crc;
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n-- > 0) c32 = _mm_crc32_u8(c32, *p++);
  return c32;
}

bool HasSse42() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

// ---- Combination (zlib's crc32_combine generalised to W-bit reflected CRCs).
// Polynomials over GF(2) are stored reflected: bit W-1 is x^0.
template <typename T>
T MultModP(T a, T b, T poly) {
  constexpr int kWidth = sizeof(T) * 8;
  T m = T{1} << (kWidth - 1);
  T p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) == 0) break;
    }
    m >>= 1;
    b = (b & 1) ? (b >> 1) ^ poly : b >> 1;
  }
  return p;
}

// x^(8 * len) mod poly.
template <typename T>
T XPow8N(uint64_t len, T poly) {
  constexpr int kWidth = sizeof(T) * 8;
  T p = T{1} << (kWidth - 1);  // x^0
  T x2k = T{1} << (kWidth - 1 - 8);  // x^8: one byte of zeros
  while (len != 0) {
    if (len & 1) p = MultModP(x2k, p, poly);
    len >>= 1;
    x2k = MultModP(x2k, x2k, poly);
  }
  return p;
}

template <typename T>
T Combine(T crc_a, T crc_b, uint64_t len_b, T poly) {
  return MultModP(XPow8N(len_b, poly), crc_a, poly) ^ crc_b;
}

template <typename T>
std::string BigEndian(T v) {
  std::string out(sizeof(T), '\0');
  for (size_t i = 0; i < sizeof(T); ++i) {
    out[sizeof(T) - 1 - i] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
  return out;
}

template <typename T>
T FromBigEndian(std::string_view raw) {
  T v = 0;
  for (unsigned char c : raw) v = (v << 8) | c;
  return v;
}

// One row per ChecksumAlgorithm, in the enum's order: its name, its header, the size of its
// value, and whether it is a CRC (which combine across parts).
struct ChecksumInfo {
  ChecksumAlgorithm algorithm;
  std::string_view name, header;
  size_t size;
  bool crc;
};
constexpr ChecksumInfo kChecksums[] = {
    {ChecksumAlgorithm::kCrc32, "CRC32", "x-amz-checksum-crc32", 4, true},
    {ChecksumAlgorithm::kCrc32c, "CRC32C", "x-amz-checksum-crc32c", 4, true},
    {ChecksumAlgorithm::kSha1, "SHA1", "x-amz-checksum-sha1", 20, false},
    {ChecksumAlgorithm::kSha256, "SHA256", "x-amz-checksum-sha256", 32, false},
    {ChecksumAlgorithm::kCrc64Nvme, "CRC64NVME", "x-amz-checksum-crc64nvme", 8, true},
};
constexpr bool RowsFollowTheEnum() {
  for (size_t i = 0; i < std::size(kChecksums); ++i) {
    if (kChecksums[i].algorithm != kAllChecksumAlgorithms[i]) return false;
  }
  return std::size(kChecksums) == kAllChecksumAlgorithms.size();
}
static_assert(RowsFollowTheEnum(), "one kChecksums row per ChecksumAlgorithm, in its order");

const ChecksumInfo& Info(ChecksumAlgorithm algorithm) {
  return kChecksums[static_cast<size_t>(algorithm)];
}

}  // namespace

std::string_view ChecksumName(ChecksumAlgorithm algorithm) { return Info(algorithm).name; }
std::string_view ChecksumHeaderName(ChecksumAlgorithm algorithm) { return Info(algorithm).header; }
size_t ChecksumSize(ChecksumAlgorithm algorithm) { return Info(algorithm).size; }
bool IsCrc(ChecksumAlgorithm algorithm) { return Info(algorithm).crc; }

std::optional<ChecksumAlgorithm> ParseChecksumAlgorithm(std::string_view name) {
  for (ChecksumAlgorithm a : kAllChecksumAlgorithms) {
    if (text::EqualsIgnoreCase(name, ChecksumName(a))) return a;
  }
  return std::nullopt;
}

std::optional<ChecksumAlgorithm> ChecksumAlgorithmFromHeader(std::string_view header_name) {
  for (ChecksumAlgorithm a : kAllChecksumAlgorithms) {
    if (text::EqualsIgnoreCase(header_name, ChecksumHeaderName(a))) return a;
  }
  return std::nullopt;
}

bool IsValidChecksumValue(ChecksumAlgorithm algorithm, std::string_view b64) {
  std::string raw;
  return text::Base64Decode(b64, &raw) && raw.size() == ChecksumSize(algorithm);
}

uint32_t Crc32(uint32_t crc, std::string_view data) {
  return static_cast<uint32_t>(
      crc32_z(crc, reinterpret_cast<const Bytef*>(data.data()), data.size()));
}

uint32_t Crc32c(uint32_t crc, std::string_view data) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
#if defined(__x86_64__)
  if (HasSse42()) return ~Crc32cHardware(~crc, p, data.size());
#endif
  return Crc32cPortable(crc, data);
}

uint32_t Crc32cPortable(uint32_t crc, std::string_view data) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  return ~SliceUpdate<uint32_t>(Crc32cTables(), ~crc, p, data.size());
}

uint64_t Crc64Nvme(uint64_t crc, std::string_view data) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  return ~SliceUpdate<uint64_t>(Crc64NvmeTables(), ~crc, p, data.size());
}

uint32_t Crc32Combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b) {
  return Combine<uint32_t>(crc_a, crc_b, len_b, kCrc32Poly);
}
uint32_t Crc32cCombine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b) {
  return Combine<uint32_t>(crc_a, crc_b, len_b, kCrc32cPoly);
}
uint64_t Crc64NvmeCombine(uint64_t crc_a, uint64_t crc_b, uint64_t len_b) {
  return Combine<uint64_t>(crc_a, crc_b, len_b, kCrc64NvmePoly);
}

// ---- Checksummer

struct Checksummer::Impl {
  uint64_t crc = 0;
  std::optional<Hasher> hasher;
};

Checksummer::Checksummer(ChecksumAlgorithm algorithm)
    : algorithm_(algorithm), impl_(std::make_unique<Impl>()) {
  switch (algorithm) {
    case ChecksumAlgorithm::kSha1: impl_->hasher.emplace(HashAlgorithm::kSha1); break;
    case ChecksumAlgorithm::kSha256: impl_->hasher.emplace(HashAlgorithm::kSha256); break;
    case ChecksumAlgorithm::kCrc32:
    case ChecksumAlgorithm::kCrc32c:
    case ChecksumAlgorithm::kCrc64Nvme:
      break;
  }
}

Checksummer::~Checksummer() = default;
Checksummer::Checksummer(Checksummer&&) noexcept = default;
Checksummer& Checksummer::operator=(Checksummer&&) noexcept = default;

void Checksummer::Update(std::string_view data) {
  switch (algorithm_) {
    case ChecksumAlgorithm::kCrc32:
      impl_->crc = Crc32(static_cast<uint32_t>(impl_->crc), data);
      break;
    case ChecksumAlgorithm::kCrc32c:
      impl_->crc = Crc32c(static_cast<uint32_t>(impl_->crc), data);
      break;
    case ChecksumAlgorithm::kCrc64Nvme:
      impl_->crc = Crc64Nvme(impl_->crc, data);
      break;
    case ChecksumAlgorithm::kSha1:
    case ChecksumAlgorithm::kSha256:
      impl_->hasher->Update(data);
      break;
  }
}

std::string Checksummer::FinishRaw() {
  switch (algorithm_) {
    case ChecksumAlgorithm::kCrc32:
    case ChecksumAlgorithm::kCrc32c:
      return BigEndian(static_cast<uint32_t>(impl_->crc));
    case ChecksumAlgorithm::kCrc64Nvme:
      return BigEndian(impl_->crc);
    case ChecksumAlgorithm::kSha1:
    case ChecksumAlgorithm::kSha256:
      return impl_->hasher->Finish();
  }
  return {};
}

std::string Checksummer::Finish() { return text::Base64Encode(FinishRaw()); }

std::string ComputeChecksum(ChecksumAlgorithm algorithm, std::string_view data) {
  Checksummer c(algorithm);
  c.Update(data);
  return c.Finish();
}

std::optional<std::string> CompositeChecksum(ChecksumAlgorithm algorithm,
                                             const std::vector<std::string>& part_checksums_b64) {
  if (part_checksums_b64.empty()) return std::nullopt;
  Checksummer c(algorithm);
  for (const std::string& b64 : part_checksums_b64) {
    std::string raw;
    if (!text::Base64Decode(b64, &raw) || raw.size() != ChecksumSize(algorithm)) return std::nullopt;
    c.Update(raw);
  }
  return c.Finish() + "-" + std::to_string(part_checksums_b64.size());
}

std::optional<std::string> FullObjectChecksum(ChecksumAlgorithm algorithm,
                                              const std::vector<PartChecksum>& parts) {
  if (!IsCrc(algorithm) || parts.empty()) return std::nullopt;
  uint64_t crc = 0;
  bool first = true;
  for (const PartChecksum& part : parts) {
    std::string raw;
    if (!text::Base64Decode(part.b64, &raw) || raw.size() != ChecksumSize(algorithm)) {
      return std::nullopt;
    }
    if (first) {
      crc = FromBigEndian<uint64_t>(raw);
      first = false;
      continue;
    }
    switch (algorithm) {
      case ChecksumAlgorithm::kCrc32:
        crc = Crc32Combine(static_cast<uint32_t>(crc), FromBigEndian<uint32_t>(raw), part.size);
        break;
      case ChecksumAlgorithm::kCrc32c:
        crc = Crc32cCombine(static_cast<uint32_t>(crc), FromBigEndian<uint32_t>(raw), part.size);
        break;
      case ChecksumAlgorithm::kCrc64Nvme:
        crc = Crc64NvmeCombine(crc, FromBigEndian<uint64_t>(raw), part.size);
        break;
      case ChecksumAlgorithm::kSha1:
      case ChecksumAlgorithm::kSha256:
        return std::nullopt;
    }
  }
  if (algorithm == ChecksumAlgorithm::kCrc64Nvme) return text::Base64Encode(BigEndian(crc));
  return text::Base64Encode(BigEndian(static_cast<uint32_t>(crc)));
}

// ---- Request headers

ChecksumSpecResult ParseChecksumHeaders(const std::vector<Header>& headers) {
  auto invalid = [](std::string message) {
    ChecksumSpecResult r;
    r.error = ErrorCode::kInvalidRequest;
    r.message = std::move(message);
    return r;
  };
  std::optional<ChecksumSpec> spec;
  std::optional<ChecksumAlgorithm> sdk_algorithm;
  constexpr std::string_view kMultiple =
      "Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.";
  for (const Header& h : headers) {
    if (std::optional<ChecksumAlgorithm> a = ChecksumAlgorithmFromHeader(h.name)) {
      if (spec) return invalid(std::string(kMultiple));
      if (!IsValidChecksumValue(*a, h.value)) {
        return invalid("Value for " + std::string(ChecksumHeaderName(*a)) +
                       " header is invalid.");
      }
      spec = ChecksumSpec{*a, h.value, false};
    } else if (h.name == "x-amz-trailer") {
      std::string_view rest = h.value;
      while (!rest.empty()) {
        const size_t comma = rest.find(',');
        const std::string_view name = text::TrimOws(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (name.empty()) continue;
        if (std::optional<ChecksumAlgorithm> t = ChecksumAlgorithmFromHeader(name)) {
          if (spec) return invalid(std::string(kMultiple));
          spec = ChecksumSpec{*t, std::nullopt, true};
        } else if (name.size() >= 15 && text::EqualsIgnoreCase(name.substr(0, 15), "x-amz-checksum-")) {
          return invalid("The value specified in the x-amz-trailer header is not supported");
        }
      }
    } else if (h.name == "x-amz-sdk-checksum-algorithm") {
      sdk_algorithm = ParseChecksumAlgorithm(h.value);
      if (!sdk_algorithm) {
        return invalid("Value for x-amz-sdk-checksum-algorithm header is invalid.");
      }
    }
  }
  if (sdk_algorithm) {
    if (spec && spec->algorithm != *sdk_algorithm) {
      return invalid("Value for x-amz-sdk-checksum-algorithm header is invalid.");
    }
    if (!spec) spec = ChecksumSpec{*sdk_algorithm, std::nullopt, false};
  }
  ChecksumSpecResult r;
  r.spec = std::move(spec);
  return r;
}

// ---- ChecksumReader

ChecksumReader::ChecksumReader(std::unique_ptr<BodyReader> inner, ChecksumAlgorithm algorithm,
                               std::optional<std::string> expected_b64,
                               const PayloadReader* trailer_source)
    : inner_(std::move(inner)),
      algorithm_(algorithm),
      expected_b64_(std::move(expected_b64)),
      trailer_source_(trailer_source),
      checksummer_(algorithm) {}

ReadResult ChecksumReader::Read(char* buf, size_t n) {
  if (finished_) return {0, final_error_};
  ReadResult r = inner_->Read(buf, n);
  if (r.error != ErrorCode::kNone) {
    message_ = trailer_source_ != nullptr ? std::string(trailer_source_->error_message()) : "";
    return r;
  }
  if (r.n > 0) {
    checksummer_.Update(std::string_view(buf, r.n));
    return r;
  }
  finished_ = true;
  std::string computed_raw = checksummer_.FinishRaw();
  computed_ = text::Base64Encode(computed_raw);
  const std::string* expected = expected_b64_ ? &*expected_b64_ : nullptr;
  bool from_trailer = false;
  if (expected == nullptr && trailer_source_ != nullptr) {
    expected = trailer_source_->Trailer(ChecksumHeaderName(algorithm_));
    from_trailer = true;
  }
  if (expected == nullptr) return {0, ErrorCode::kNone};
  std::string expected_raw;
  if (!text::Base64Decode(*expected, &expected_raw) || expected_raw.size() != ChecksumSize(algorithm_)) {
    final_error_ = ErrorCode::kInvalidRequest;
    message_ = "Value for " + std::string(ChecksumHeaderName(algorithm_)) +
               (from_trailer ? " trailing header is invalid." : " header is invalid.");
  } else if (!ConstantTimeEquals(expected_raw, computed_raw)) {
    final_error_ = ErrorCode::kBadDigest;
    message_ = "The " + std::string(ChecksumName(algorithm_)) +
               " you specified did not match the calculated checksum.";
  }
  return {0, final_error_};
}

std::string_view ChecksumReader::error_message() const { return message_; }

}  // namespace cubby::s3api::auth
