// Additional checksums (x-amz-checksum-*): CRC32, CRC32C, CRC64NVME, SHA1, SHA256; the
// incremental Checksummer, the reader that checks a body against a header or trailer value,
// and the multipart combinations (COMPOSITE and FULL_OBJECT).
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html
// Values travel as base64 of the big-endian checksum (CRCs) or of the raw digest (SHA).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "s3api/errors.h"
#include "s3api/http.h"

namespace cubby::s3api::auth {

class PayloadReader;  // payload.h

enum class ChecksumAlgorithm { kCrc32, kCrc32c, kSha1, kSha256, kCrc64Nvme };

inline constexpr std::array<ChecksumAlgorithm, 5> kAllChecksumAlgorithms = {
    ChecksumAlgorithm::kCrc32, ChecksumAlgorithm::kCrc32c, ChecksumAlgorithm::kSha1,
    ChecksumAlgorithm::kSha256, ChecksumAlgorithm::kCrc64Nvme};

// "CRC32", "CRC32C", "SHA1", "SHA256", "CRC64NVME" (the x-amz-checksum-algorithm values and
// the keys of ObjectMeta.checksums).
std::string_view ChecksumName(ChecksumAlgorithm algorithm);
// "x-amz-checksum-crc32", ... (lowercase, as HttpRequest stores header names).
std::string_view ChecksumHeaderName(ChecksumAlgorithm algorithm);
// Raw size in bytes: 4, 4, 20, 32, 8.
size_t ChecksumSize(ChecksumAlgorithm algorithm);
// True for the CRC types, which can be combined into a FULL_OBJECT checksum.
bool IsCrc(ChecksumAlgorithm algorithm);

// Case-insensitive "CRC32"/"crc32"/...; nullopt for anything else.
std::optional<ChecksumAlgorithm> ParseChecksumAlgorithm(std::string_view name);
// Case-insensitive "x-amz-checksum-crc32"/...; nullopt for anything else (including
// x-amz-checksum-algorithm, -type and -mode).
std::optional<ChecksumAlgorithm> ChecksumAlgorithmFromHeader(std::string_view header_name);

// True if `b64` is valid base64 of exactly ChecksumSize(algorithm) bytes.
bool IsValidChecksumValue(ChecksumAlgorithm algorithm, std::string_view b64);

// Raw CRCs (standard init/xorout handling: pass 0 to start, the previous result to continue).
uint32_t Crc32(uint32_t crc, std::string_view data);    // zlib / IEEE 802.3
uint32_t Crc32c(uint32_t crc, std::string_view data);   // Castagnoli
uint64_t Crc64Nvme(uint64_t crc, std::string_view data);
// The table-driven CRC32C that Crc32c uses when the CPU has no SSE4.2 (exposed for its test).
uint32_t Crc32cPortable(uint32_t crc, std::string_view data);
// crc(A || B) from crc(A), crc(B) and |B| (zlib's crc32_combine, for each CRC type).
uint32_t Crc32Combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);
uint32_t Crc32cCombine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);
uint64_t Crc64NvmeCombine(uint64_t crc_a, uint64_t crc_b, uint64_t len_b);

// Incremental checksum of one algorithm. Not thread-safe; movable.
class Checksummer {
 public:
  explicit Checksummer(ChecksumAlgorithm algorithm);
  ~Checksummer();
  Checksummer(Checksummer&&) noexcept;
  Checksummer& operator=(Checksummer&&) noexcept;

  ChecksumAlgorithm algorithm() const { return algorithm_; }
  void Update(std::string_view data);
  // Raw big-endian bytes (ChecksumSize long). The checksummer must not be used afterwards.
  std::string FinishRaw();
  // base64 of FinishRaw(), as AWS sends it.
  std::string Finish();

 private:
  struct Impl;
  ChecksumAlgorithm algorithm_;
  std::unique_ptr<Impl> impl_;
};

// One-shot: base64 checksum of `data`.
std::string ComputeChecksum(ChecksumAlgorithm algorithm, std::string_view data);

// Multipart COMPOSITE checksum: the checksum of the concatenated raw part checksums, rendered
// "<base64>-<number of parts>". nullopt if a part value is not valid for `algorithm` or
// `part_checksums_b64` is empty.
std::optional<std::string> CompositeChecksum(ChecksumAlgorithm algorithm,
                                             const std::vector<std::string>& part_checksums_b64);

struct PartChecksum {
  std::string b64;  // the part's checksum
  uint64_t size;    // the part's size in bytes
};
// Multipart FULL_OBJECT checksum for the CRC types: the CRC of the whole object, combined from
// the parts in order (no "-N" suffix). nullopt for SHA types, an invalid value or no parts.
std::optional<std::string> FullObjectChecksum(ChecksumAlgorithm algorithm,
                                              const std::vector<PartChecksum>& parts);

// What a request says about its checksum, from its headers:
//  - x-amz-checksum-<alg>: <base64>          → expected value known up front
//  - x-amz-trailer: x-amz-checksum-<alg>     → expected value arrives in the trailer
//  - x-amz-sdk-checksum-algorithm: <ALG> alone → compute only (nothing to compare)
struct ChecksumSpec {
  ChecksumAlgorithm algorithm;
  std::optional<std::string> expected_b64;  // from the header
  bool from_trailer = false;                // expected value is in the trailer
};
struct ChecksumSpecResult {
  ErrorCode error = ErrorCode::kNone;  // kInvalidRequest on any inconsistency below
  std::string message;
  std::optional<ChecksumSpec> spec;    // nullopt: the request names no checksum
};
// Errors (all InvalidRequest, AWS's messages): more than one x-amz-checksum-<alg> header (or
// one plus a trailer checksum); a value that is not base64 of the algorithm's size; an unknown
// x-amz-sdk-checksum-algorithm, or one that disagrees with the header/trailer algorithm; an
// x-amz-trailer naming an unknown x-amz-checksum-* header. Header names must be lowercase.
ChecksumSpecResult ParseChecksumHeaders(const std::vector<Header>& headers);

// Computes `algorithm` over the body as it streams through (no copy: data is read straight
// into the caller's buffer) and, at end of body, compares it with the expected value: the
// header value `expected_b64` if given, else the trailer ChecksumHeaderName(algorithm) from
// `trailer_source` if given and present. A mismatch is reported as kBadDigest on the Read
// that would return end of body ("The CRC32 you specified did not match the calculated
// checksum."); an expected trailer value that is not valid base64 of the right size is
// kInvalidRequest. Errors of `inner` pass through unchanged.
// REQUIRES: trailer_source, if not null, is `inner` or a reader below it, and outlives this one.
class ChecksumReader : public BodyReader {
 public:
  ChecksumReader(std::unique_ptr<BodyReader> inner, ChecksumAlgorithm algorithm,
                 std::optional<std::string> expected_b64, const PayloadReader* trailer_source);
  ReadResult Read(char* buf, size_t n) override;

  ChecksumAlgorithm algorithm() const { return algorithm_; }
  // base64 of the checksum of the whole body; "" until Read has returned end of body (also on
  // a mismatch, so the caller can log it).
  const std::string& computed() const { return computed_; }
  // Detail for the error document of the error last returned, or "" (then use the default).
  // For an error of `inner`, trailer_source's error_message() when trailer_source is set.
  std::string_view error_message() const;

 private:
  std::unique_ptr<BodyReader> inner_;
  ChecksumAlgorithm algorithm_;
  std::optional<std::string> expected_b64_;
  const PayloadReader* trailer_source_;
  Checksummer checksummer_;
  std::string computed_;
  bool finished_ = false;
  ErrorCode final_error_ = ErrorCode::kNone;
  std::string message_;
};

}  // namespace cubby::s3api::auth
