// PutObject's integrity checks through S3Service::Handle: additional checksums (header,
// trailer, computed), aws-chunked bodies in the three streaming modes, and that a failed upload
// leaves nothing behind.
#include <string>
#include <vector>

#include "s3api/auth/checksum.h"
#include "test/s3api/service_fixture.h"

namespace cubby::s3api {
namespace {

using namespace test_support;  // NOLINT: the fixture

class IntegrityTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    MakeBucket("bkt");
  }
  Reply PutChunked(std::string key, auth::ChunkedBodyInput in, std::vector<Header> headers = {},
                   std::function<void(std::string*)> tamper = nullptr) {
    Req r;
    r.method = "PUT";
    r.path = "/bkt/" + key;
    r.headers = std::move(headers);
    r.chunked = std::move(in);
    r.tamper = std::move(tamper);
    return Send(std::move(r));
  }
  const std::string data_ = std::string(9000, 'q') + "end";
};

TEST_F(IntegrityTest, ChecksumHeaderPerAlgorithm) {
  for (auth::ChecksumAlgorithm a : auth::kAllChecksumAlgorithms) {
    const std::string header(auth::ChecksumHeaderName(a));
    SCOPED_TRACE(header);
    const std::string good = auth::ComputeChecksum(a, data_);
    Reply put = Put("/bkt/k", data_, {{header, good}});
    ASSERT_EQ(put.status(), 200) << put.body;
    EXPECT_EQ(put.Header(header), good);
    Reply with_mode = Get("/bkt/k", {{"x-amz-checksum-mode", "ENABLED"}});
    EXPECT_EQ(with_mode.Header(header), good);
    EXPECT_EQ(with_mode.Header("x-amz-checksum-type"), "FULL_OBJECT");
    EXPECT_EQ(Get("/bkt/k").Header(header), "<absent>");
    Reply ranged = Get("/bkt/k", {{"x-amz-checksum-mode", "ENABLED"}, {"range", "bytes=0-9"}});
    EXPECT_EQ(ranged.status(), 206);
    EXPECT_EQ(ranged.Header(header), "<absent>");

    ASSERT_EQ(Do("DELETE", "/bkt/k").status(), 204);
    Reply bad = Put("/bkt/k", data_, {{header, auth::ComputeChecksum(a, "other")}});
    EXPECT_EQ(bad.status(), 400);
    EXPECT_EQ(bad.Code(), "BadDigest");
    EXPECT_FALSE(ObjectExists("bkt", "k"));
    EXPECT_EQ(Put("/bkt/k", data_, {{header, "not base64!"}}).Code(), "InvalidRequest");
    EXPECT_EQ(Put("/bkt/k", data_, {{header, auth::Base64Encode("short")}}).Code(),
              "InvalidRequest");
    EXPECT_FALSE(ObjectExists("bkt", "k"));
  }
}

TEST_F(IntegrityTest, MoreThanOneChecksumIsInvalid) {
  Reply r = Put("/bkt/k", data_,
                {{"x-amz-checksum-crc32", auth::ComputeChecksum(auth::ChecksumAlgorithm::kCrc32, data_)},
                 {"x-amz-checksum-sha1", auth::ComputeChecksum(auth::ChecksumAlgorithm::kSha1, data_)}});
  EXPECT_EQ(r.Code(), "InvalidRequest");
  EXPECT_FALSE(ObjectExists("bkt", "k"));
}

TEST_F(IntegrityTest, AlgorithmWithoutValueIsComputed) {
  Reply r = Put("/bkt/k", data_, {{"x-amz-sdk-checksum-algorithm", "CRC32C"}});
  ASSERT_EQ(r.status(), 200) << r.body;
  std::string expected = auth::ComputeChecksum(auth::ChecksumAlgorithm::kCrc32c, data_);
  EXPECT_EQ(r.Header("x-amz-checksum-crc32c"), expected);
  Req head;
  head.method = "HEAD";
  head.path = "/bkt/k";
  head.headers = {{"x-amz-checksum-mode", "ENABLED"}};
  EXPECT_EQ(Send(head).Header("x-amz-checksum-crc32c"), expected);
}

TEST_F(IntegrityTest, StreamingModes) {
  const std::string crc = auth::ComputeChecksum(auth::ChecksumAlgorithm::kCrc32, data_);
  struct Case {
    auth::PayloadMode mode;
    std::vector<Header> trailers;
  };
  for (const Case& c : std::vector<Case>{
           {auth::PayloadMode::kStreamingSigned, {}},
           {auth::PayloadMode::kStreamingSignedTrailer, {{"x-amz-checksum-crc32", crc}}},
           {auth::PayloadMode::kStreamingUnsignedTrailer, {{"x-amz-checksum-crc32", crc}}},
       }) {
    SCOPED_TRACE(std::string(ModeName(c.mode)));
    auth::ChunkedBodyInput in{.mode = c.mode, .data = data_, .chunk_size = 4096,
                              .trailers = c.trailers};
    Reply r = PutChunked("k", in, {{"content-encoding", "gzip"}});
    ASSERT_EQ(r.status(), 200) << r.body;
    EXPECT_EQ(r.Header("ETag"), "\"" + Md5Hex(data_) + "\"");
    Reply got = Get("/bkt/k", {{"x-amz-checksum-mode", "ENABLED"}});
    EXPECT_EQ(got.body, data_);
    // "aws-chunked" is framing, not an encoding of the stored object.
    EXPECT_EQ(got.Header("Content-Encoding"), "gzip");
    EXPECT_EQ(got.Header("x-amz-checksum-crc32"), c.trailers.empty() ? "<absent>" : crc);
    ASSERT_EQ(Do("DELETE", "/bkt/k").status(), 204);

    if (!c.trailers.empty()) {
      auth::ChunkedBodyInput wrong = in;
      wrong.trailers = {{"x-amz-checksum-crc32",
                         auth::ComputeChecksum(auth::ChecksumAlgorithm::kCrc32, "x")}};
      EXPECT_EQ(PutChunked("k", wrong).Code(), "BadDigest");
      EXPECT_FALSE(ObjectExists("bkt", "k"));
    }
    Reply truncated =
        PutChunked("k", in, {}, [](std::string* body) { body->resize(body->size() / 2); });
    EXPECT_EQ(truncated.Code(), "IncompleteBody");
    EXPECT_FALSE(ObjectExists("bkt", "k"));
  }
}

TEST_F(IntegrityTest, BadChunkSignatureStoresNothing) {
  auth::ChunkedBodyInput in{.data = data_, .chunk_size = 4096};
  Reply r = PutChunked("k", in, {}, [](std::string* body) { (*body)[body->size() - 40] ^= 1; });
  EXPECT_EQ(r.status(), 403);
  EXPECT_EQ(r.Code(), "SignatureDoesNotMatch");
  EXPECT_FALSE(ObjectExists("bkt", "k"));
  storage::Result<uint64_t> chunks = store_->DebugCountDataChunks();
  ASSERT_TRUE(chunks.ok());
  EXPECT_EQ(*chunks, 0u);
}

TEST_F(IntegrityTest, ContentEncodingListDropsOnlyAwsChunked) {
  auth::ChunkedBodyInput in{.data = "small"};
  ASSERT_EQ(PutChunked("a", in, {{"content-encoding", "aws-chunked"}}).status(), 200);
  EXPECT_EQ(Get("/bkt/a").Header("Content-Encoding"), "<absent>");
  ASSERT_EQ(PutChunked("b", in, {{"content-encoding", "aws-chunked, br"}}).status(), 200);
  EXPECT_EQ(Get("/bkt/b").Header("Content-Encoding"), "br");
}

TEST_F(IntegrityTest, DecodedLengthIsTheObjectSize) {
  Req r;
  r.method = "PUT";
  r.path = "/bkt/huge";
  r.chunked = auth::ChunkedBodyInput{.data = "x"};
  r.tamper = nullptr;
  // The fixture declares the real decoded size; claim more than 5 GiB instead.
  r.headers = {{"x-amz-decoded-content-length", std::to_string((5ull << 30) + 1)}};
  Reply reply = Send(r);
  EXPECT_EQ(reply.Code(), "EntityTooLarge");
  EXPECT_FALSE(ObjectExists("bkt", "huge"));
}

}  // namespace
}  // namespace cubby::s3api
