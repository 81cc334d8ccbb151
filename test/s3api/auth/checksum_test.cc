// Checksums: published check values ("123456789"), vectors computed with Python's zlib/hashlib
// and a bit-at-a-time reference (the "big" row), incremental == one-shot, the CRC combination
// against a CRC of the concatenation, the request-header parsing and ChecksumReader.
#include "s3api/auth/checksum.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "s3api/auth/crypto.h"
#include "s3api/auth/payload.h"
#include "text/encoding.h"

namespace cubby::s3api::auth {
namespace {

std::string Big() {
  std::string s;
  for (int i = 0; i < 5000; ++i) s.push_back(static_cast<char>((i * 31 + 7) & 0xff));
  return s;
}

struct Vector {
  ChecksumAlgorithm algorithm;
  std::string input;
  std::string b64;
};

std::vector<Vector> Vectors() {
  using A = ChecksumAlgorithm;
  return {
      {A::kCrc32, "", "AAAAAA=="},
      {A::kCrc32, "123456789", "y/Q5Jg=="},  // 0xcbf43926
      {A::kCrc32, Big(), "itnxKQ=="},
      {A::kCrc32c, "", "AAAAAA=="},
      {A::kCrc32c, "123456789", "4waSgw=="},  // 0xe3069283
      {A::kCrc32c, Big(), "K3nWHg=="},
      {A::kCrc64Nvme, "", "AAAAAAAAAAA="},
      {A::kCrc64Nvme, "123456789", "rosUhgp5mIg="},  // 0xae8b14860a799888
      {A::kCrc64Nvme, Big(), "OCVVg8gk280="},
      {A::kSha1, "", "2jmj7l5rSw0yVb/vlWAYkK/YBwk="},
      {A::kSha1, "123456789", "98O8HYCOBHMq32eZZczDTKeuNEE="},
      {A::kSha1, Big(), "JsHhuKLwyQsB7Dv8vIDViAZzjUc="},
      {A::kSha256, "", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="},
      {A::kSha256, "123456789", "FeKw08M4keuw8e9gnsQZQgwg4yDOlMZfvIwzEkSOsiU="},
      {A::kSha256, Big(), "HpL9mPETq6Cnjggwygbid1kSNw/qsRLfxXvzJYuBBZU="},
  };
}

TEST(ChecksumTest, Vectors) {
  for (const Vector& v : Vectors()) {
    SCOPED_TRACE(testing::Message() << ChecksumName(v.algorithm) << " len=" << v.input.size());
    EXPECT_EQ(ComputeChecksum(v.algorithm, v.input), v.b64);
    std::string raw;
    ASSERT_TRUE(text::Base64Decode(v.b64, &raw));
    EXPECT_EQ(raw.size(), ChecksumSize(v.algorithm));
    EXPECT_TRUE(IsValidChecksumValue(v.algorithm, v.b64));
  }
}

TEST(ChecksumTest, IncrementalEqualsOneShotForEverySplit) {
  for (const Vector& v : Vectors()) {
    SCOPED_TRACE(ChecksumName(v.algorithm));
    for (size_t piece : {1u, 3u, 7u, 8u, 9u, 64u, 1000u}) {
      Checksummer c(v.algorithm);
      for (size_t i = 0; i < v.input.size(); i += piece) {
        c.Update(std::string_view(v.input).substr(i, piece));
      }
      EXPECT_EQ(c.Finish(), v.b64) << "piece=" << piece;
    }
  }
}

// A bit-at-a-time reflected CRC, independent of the slicing tables and SSE4.2.
uint64_t ReferenceCrc(std::string_view data, uint64_t poly, int width) {
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  uint64_t c = mask;
  for (unsigned char b : data) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ poly : c >> 1;
  }
  return c ^ mask;
}

TEST(ChecksumTest, CrcsMatchBitwiseReferenceAtEveryLengthAndAlignment) {
  std::mt19937 rng(42);
  std::string buf(300, '\0');
  for (char& c : buf) c = static_cast<char>(rng());
  for (size_t offset = 0; offset < 9; ++offset) {
    for (size_t len = 0; len + offset <= buf.size(); len += 13) {
      const std::string_view d = std::string_view(buf).substr(offset, len);
      EXPECT_EQ(Crc32(0, d), ReferenceCrc(d, 0xedb88320u, 32));
      EXPECT_EQ(Crc32c(0, d), ReferenceCrc(d, 0x82f63b78u, 32));
      EXPECT_EQ(Crc32cPortable(0, d), ReferenceCrc(d, 0x82f63b78u, 32));
      EXPECT_EQ(Crc64Nvme(0, d), ReferenceCrc(d, 0x9a6c9329ac4bc9b5ull, 64));
    }
  }
}

TEST(ChecksumTest, CombineEqualsCrcOfConcatenation) {
  std::mt19937 rng(7);
  for (size_t len_a : {0u, 1u, 5u, 1000u}) {
    for (size_t len_b : {0u, 1u, 8u, 4097u}) {
      std::string a(len_a, '\0'), b(len_b, '\0');
      for (char& c : a) c = static_cast<char>(rng());
      for (char& c : b) c = static_cast<char>(rng());
      const std::string ab = a + b;
      SCOPED_TRACE(testing::Message() << len_a << "+" << len_b);
      EXPECT_EQ(Crc32Combine(Crc32(0, a), Crc32(0, b), len_b), Crc32(0, ab));
      EXPECT_EQ(Crc32cCombine(Crc32c(0, a), Crc32c(0, b), len_b), Crc32c(0, ab));
      EXPECT_EQ(Crc64NvmeCombine(Crc64Nvme(0, a), Crc64Nvme(0, b), len_b), Crc64Nvme(0, ab));
    }
  }
}

TEST(ChecksumTest, FullObjectChecksumOfParts) {
  const std::string object = Big() + "tail" + Big();
  const std::vector<size_t> sizes = {1000, 3000, 6004};
  for (ChecksumAlgorithm a : kAllChecksumAlgorithms) {
    SCOPED_TRACE(ChecksumName(a));
    std::vector<PartChecksum> parts;
    size_t pos = 0;
    for (size_t s : sizes) {
      parts.push_back({ComputeChecksum(a, object.substr(pos, s)), s});
      pos += s;
    }
    ASSERT_EQ(pos, object.size());
    const std::optional<std::string> full = FullObjectChecksum(a, parts);
    if (!IsCrc(a)) {
      EXPECT_FALSE(full.has_value());
      continue;
    }
    ASSERT_TRUE(full.has_value());
    EXPECT_EQ(*full, ComputeChecksum(a, object));
    parts[1].b64 = "not base64!";
    EXPECT_FALSE(FullObjectChecksum(a, parts).has_value());
    EXPECT_FALSE(FullObjectChecksum(a, {}).has_value());
  }
}

TEST(ChecksumTest, CompositeChecksum) {
  for (ChecksumAlgorithm a : kAllChecksumAlgorithms) {
    SCOPED_TRACE(ChecksumName(a));
    const std::vector<std::string> parts = {ComputeChecksum(a, "part one"),
                                            ComputeChecksum(a, "part two")};
    std::string raw1, raw2;
    ASSERT_TRUE(text::Base64Decode(parts[0], &raw1));
    ASSERT_TRUE(text::Base64Decode(parts[1], &raw2));
    EXPECT_EQ(CompositeChecksum(a, parts), ComputeChecksum(a, raw1 + raw2) + "-2");
    EXPECT_FALSE(CompositeChecksum(a, {}).has_value());
    EXPECT_FALSE(CompositeChecksum(a, {parts[0], "AAAA"}).has_value());  // wrong size
  }
  // AWS's shape: the checksum of two CRC32 values, then "-2".
  EXPECT_EQ(CompositeChecksum(ChecksumAlgorithm::kCrc32, {"y/Q5Jg==", "y/Q5Jg=="}),
            ComputeChecksum(ChecksumAlgorithm::kCrc32, "\xcb\xf4\x39\x26\xcb\xf4\x39\x26") +
                "-2");
}

TEST(ChecksumTest, Names) {
  struct Case {
    std::string_view text;
    std::optional<ChecksumAlgorithm> name, header;
  };
  using A = ChecksumAlgorithm;
  const Case cases[] = {
      {"CRC32", A::kCrc32, std::nullopt},
      {"crc32c", A::kCrc32c, std::nullopt},
      {"Sha1", A::kSha1, std::nullopt},
      {"SHA256", A::kSha256, std::nullopt},
      {"CRC64NVME", A::kCrc64Nvme, std::nullopt},
      {"MD5", std::nullopt, std::nullopt},
      {"", std::nullopt, std::nullopt},
      {"x-amz-checksum-crc32", std::nullopt, A::kCrc32},
      {"X-Amz-Checksum-CRC32C", std::nullopt, A::kCrc32c},
      {"x-amz-checksum-sha1", std::nullopt, A::kSha1},
      {"x-amz-checksum-sha256", std::nullopt, A::kSha256},
      {"x-amz-checksum-crc64nvme", std::nullopt, A::kCrc64Nvme},
      {"x-amz-checksum-algorithm", std::nullopt, std::nullopt},
      {"x-amz-checksum-type", std::nullopt, std::nullopt},
      {"x-amz-checksum-mode", std::nullopt, std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(ParseChecksumAlgorithm(c.text), c.name);
    EXPECT_EQ(ChecksumAlgorithmFromHeader(c.text), c.header);
  }
  for (ChecksumAlgorithm a : kAllChecksumAlgorithms) {
    EXPECT_EQ(ParseChecksumAlgorithm(ChecksumName(a)), a);
    EXPECT_EQ(ChecksumAlgorithmFromHeader(ChecksumHeaderName(a)), a);
  }
}

TEST(ChecksumTest, ParseChecksumHeaders) {
  using A = ChecksumAlgorithm;
  struct Case {
    std::string name;
    std::vector<Header> headers;
    ErrorCode error;
    std::optional<A> algorithm;
    std::optional<std::string> expected;
    bool from_trailer;
  };
  const Case cases[] = {
      {"none", {{"content-type", "x"}}, ErrorCode::kNone, std::nullopt, std::nullopt, false},
      {"header", {{"x-amz-checksum-crc32", "y/Q5Jg=="}}, ErrorCode::kNone, A::kCrc32,
       "y/Q5Jg==", false},
      {"header with sdk algorithm",
       {{"x-amz-sdk-checksum-algorithm", "crc32"}, {"x-amz-checksum-crc32", "y/Q5Jg=="}},
       ErrorCode::kNone, A::kCrc32, "y/Q5Jg==", false},
      {"trailer", {{"x-amz-trailer", "x-amz-checksum-crc64nvme"}}, ErrorCode::kNone,
       A::kCrc64Nvme, std::nullopt, true},
      {"sdk algorithm alone", {{"x-amz-sdk-checksum-algorithm", "SHA256"}}, ErrorCode::kNone,
       A::kSha256, std::nullopt, false},
      {"checksum-type is not an algorithm", {{"x-amz-checksum-type", "FULL_OBJECT"}},
       ErrorCode::kNone, std::nullopt, std::nullopt, false},
      {"two headers",
       {{"x-amz-checksum-crc32", "y/Q5Jg=="}, {"x-amz-checksum-crc32c", "4waSgw=="}},
       ErrorCode::kInvalidRequest, std::nullopt, std::nullopt, false},
      {"header and trailer",
       {{"x-amz-checksum-crc32", "y/Q5Jg=="}, {"x-amz-trailer", "x-amz-checksum-crc32"}},
       ErrorCode::kInvalidRequest, std::nullopt, std::nullopt, false},
      {"value too short", {{"x-amz-checksum-sha256", "y/Q5Jg=="}}, ErrorCode::kInvalidRequest,
       std::nullopt, std::nullopt, false},
      {"value not base64", {{"x-amz-checksum-crc32", "!!!!"}}, ErrorCode::kInvalidRequest,
       std::nullopt, std::nullopt, false},
      {"unknown sdk algorithm", {{"x-amz-sdk-checksum-algorithm", "MD5"}},
       ErrorCode::kInvalidRequest, std::nullopt, std::nullopt, false},
      {"sdk algorithm disagrees",
       {{"x-amz-sdk-checksum-algorithm", "CRC32C"}, {"x-amz-checksum-crc32", "y/Q5Jg=="}},
       ErrorCode::kInvalidRequest, std::nullopt, std::nullopt, false},
      {"unknown trailer checksum", {{"x-amz-trailer", "x-amz-checksum-md5"}},
       ErrorCode::kInvalidRequest, std::nullopt, std::nullopt, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const ChecksumSpecResult r = ParseChecksumHeaders(c.headers);
    EXPECT_EQ(r.error, c.error);
    if (c.error != ErrorCode::kNone) {
      EXPECT_FALSE(r.message.empty());
      continue;
    }
    ASSERT_EQ(r.spec.has_value(), c.algorithm.has_value());
    if (!r.spec) continue;
    EXPECT_EQ(r.spec->algorithm, *c.algorithm);
    EXPECT_EQ(r.spec->expected_b64, c.expected);
    EXPECT_EQ(r.spec->from_trailer, c.from_trailer);
  }
}

// A PayloadReader with fixed bytes and trailers, to feed ChecksumReader.
class FakePayload : public PayloadReader {
 public:
  FakePayload(std::string data, std::vector<Header> trailers, size_t piece = 1000,
              ErrorCode error = ErrorCode::kNone)
      : data_(std::move(data)), trailers_(std::move(trailers)), piece_(piece), error_(error) {}
  ReadResult Read(char* buf, size_t n) override {
    if (pos_ == data_.size() && error_ != ErrorCode::kNone) return {0, error_};
    const size_t k = std::min({n, piece_, data_.size() - pos_});
    std::copy_n(data_.data() + pos_, k, buf);
    pos_ += k;
    return {k, ErrorCode::kNone};
  }
  const std::vector<Header>& trailers() const override { return trailers_; }
  std::string_view error_message() const override { return "inner detail"; }

 private:
  std::string data_;
  std::vector<Header> trailers_;
  size_t piece_;
  ErrorCode error_;
  size_t pos_ = 0;
};

struct Outcome {
  std::string bytes;
  ErrorCode error = ErrorCode::kNone;
};

Outcome DrainAll(BodyReader& r, size_t buf_size = 777) {
  Outcome o;
  std::vector<char> buf(buf_size);
  for (;;) {
    const ReadResult res = r.Read(buf.data(), buf.size());
    o.bytes.append(buf.data(), res.n);
    if (res.error != ErrorCode::kNone || res.n == 0) {
      o.error = res.error;
      return o;
    }
  }
}

TEST(ChecksumReaderTest, HeaderAndTrailerValues) {
  const std::string body = Big();
  using A = ChecksumAlgorithm;
  struct Case {
    std::string name;
    A algorithm;
    std::optional<std::string> expected;
    std::vector<Header> trailers;
    ErrorCode error;
    std::string message;
  };
  const std::string crc32 = ComputeChecksum(A::kCrc32, body);
  const std::string sha1 = ComputeChecksum(A::kSha1, body);
  const Case cases[] = {
      {"header ok", A::kCrc32, crc32, {}, ErrorCode::kNone, ""},
      {"header wrong", A::kCrc32, "y/Q5Jg==", {}, ErrorCode::kBadDigest,
       "The CRC32 you specified did not match the calculated checksum."},
      {"trailer ok", A::kSha1, std::nullopt, {{"x-amz-checksum-sha1", sha1}}, ErrorCode::kNone,
       ""},
      {"trailer wrong", A::kSha1, std::nullopt,
       {{"x-amz-checksum-sha1", ComputeChecksum(A::kSha1, "x")}}, ErrorCode::kBadDigest,
       "The SHA1 you specified did not match the calculated checksum."},
      {"trailer malformed", A::kSha1, std::nullopt, {{"x-amz-checksum-sha1", "AAAA"}},
       ErrorCode::kInvalidRequest, "Value for x-amz-checksum-sha1 trailing header is invalid."},
      {"header wins over trailer", A::kCrc32, crc32, {{"x-amz-checksum-crc32", "AAAAAA=="}},
       ErrorCode::kNone, ""},
      {"nothing to compare", A::kCrc32, std::nullopt, {}, ErrorCode::kNone, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto payload = std::make_unique<FakePayload>(body, c.trailers, 100);
    const PayloadReader* source = payload.get();
    ChecksumReader reader(std::move(payload), c.algorithm, c.expected, source);
    EXPECT_EQ(reader.computed(), "");
    const Outcome o = DrainAll(reader);
    EXPECT_EQ(o.bytes, body);  // every byte handed on before the verdict
    EXPECT_EQ(o.error, c.error);
    EXPECT_EQ(reader.error_message(), c.message);
    EXPECT_EQ(reader.computed(), ComputeChecksum(c.algorithm, body));
    char ch;
    EXPECT_EQ(reader.Read(&ch, 1).error, c.error);  // the verdict repeats
  }
}

TEST(ChecksumReaderTest, InnerErrorPassesThroughWithItsMessage) {
  auto payload = std::make_unique<FakePayload>("abc", std::vector<Header>{}, 1,
                                               ErrorCode::kSignatureDoesNotMatch);
  const PayloadReader* source = payload.get();
  ChecksumReader reader(std::move(payload), ChecksumAlgorithm::kCrc32, std::nullopt, source);
  const Outcome o = DrainAll(reader);
  EXPECT_EQ(o.error, ErrorCode::kSignatureDoesNotMatch);
  EXPECT_EQ(reader.error_message(), "inner detail");
  EXPECT_EQ(reader.computed(), "");
}

}  // namespace
}  // namespace cubby::s3api::auth
