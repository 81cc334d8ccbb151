// Bucket quotas (issue 17): the pure check (ExceededQuota, QuotaMessage) as a table, and each
// write path of S3Service refused with 403 QuotaExceeded, nothing stored, over a real Store.
#include "s3api/quota.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "service_fixture.h"

namespace cubby::s3api {
namespace {

using test_support::Reply;
using test_support::Req;
using test_support::Tag;

TEST(QuotaTest, ExceededQuotaTable) {
  using Limit = QuotaRefusal::Limit;
  struct Case {
    const char* what;
    storage::BucketQuota quota;
    storage::BucketStats usage;
    uint64_t bytes, objects;
    std::optional<Limit> refused;
  };
  const std::vector<Case> cases = {
      {"no quota", {}, {100, 100}, UINT64_MAX, 1, std::nullopt},
      {"bytes fit exactly", {.bytes = 10}, {1, 4}, 6, 1, std::nullopt},
      {"bytes one over", {.bytes = 10}, {1, 4}, 7, 1, Limit::kBytes},
      {"zero bytes at the limit", {.bytes = 10}, {0, 10}, 0, 1, std::nullopt},
      {"zero bytes over a lowered limit", {.bytes = 10}, {0, 11}, 0, 0, Limit::kBytes},
      {"no overflow", {.bytes = UINT64_MAX}, {0, UINT64_MAX}, UINT64_MAX, 1, Limit::kBytes},
      {"largest fits", {.bytes = UINT64_MAX}, {0, 1}, UINT64_MAX - 1, 1, std::nullopt},
      {"objects fit", {.objects = 3}, {2, 0}, 5, 1, std::nullopt},
      {"objects full", {.objects = 3}, {3, 0}, 5, 1, Limit::kObjects},
      {"objects full, none added", {.objects = 3}, {5, 0}, 5, 0, std::nullopt},
      {"zero objects allowed", {.objects = 0}, {0, 0}, 0, 1, Limit::kObjects},
      {"bytes first", {.bytes = 1, .objects = 0}, {0, 0}, 2, 1, Limit::kBytes},
      {"both fit", {.bytes = 10, .objects = 2}, {1, 5}, 5, 1, std::nullopt},
  };
  for (const Case& c : cases) {
    std::optional<QuotaRefusal> r = ExceededQuota(c.quota, c.usage, c.bytes, c.objects);
    ASSERT_EQ(r.has_value(), c.refused.has_value()) << c.what;
    if (r) {
      EXPECT_EQ(r->limit, *c.refused) << c.what;
      EXPECT_EQ(r->value, *c.refused == Limit::kBytes ? *c.quota.bytes : *c.quota.objects);
    }
  }
}

TEST(QuotaTest, Message) {
  using Limit = QuotaRefusal::Limit;
  EXPECT_EQ(QuotaMessage({Limit::kBytes, 1048576}),
            "The bucket's quota of 1048576 bytes would be exceeded.");
  EXPECT_EQ(QuotaMessage({Limit::kBytes, 1}), "The bucket's quota of 1 byte would be exceeded.");
  EXPECT_EQ(QuotaMessage({Limit::kObjects, 10}),
            "The bucket's quota of 10 objects would be exceeded.");
  EXPECT_EQ(QuotaMessage({Limit::kObjects, 1}),
            "The bucket's quota of 1 object would be exceeded.");
}

class QuotaServiceTest : public test_support::ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    MakeBucket("qbk");
  }
  void SetQuota(storage::BucketQuota quota) {
    ASSERT_TRUE(store_
                    ->UpdateBucket("qbk",
                                   [&](storage::BucketRecord* b) {
                                     b->quota = quota;
                                     return storage::Status::Ok();
                                   })
                    .ok());
  }
  storage::BucketStats Usage() { return store_->GetBucketStats("qbk").value(); }
  static void ExpectRefused(const Reply& r, const std::string& message) {
    EXPECT_EQ(r.status(), 403) << r.body;
    EXPECT_EQ(r.Code(), "QuotaExceeded");
    std::string got = Tag(r.body, "Message");  // XML-escaped: the apostrophe is &apos;
    for (size_t at; (at = got.find("&apos;")) != std::string::npos;) got.replace(at, 6, "'");
    EXPECT_EQ(got, message);
    EXPECT_EQ(r.summary.error, "QuotaExceeded");
  }
  std::string Create(const std::string& key) {
    Reply r = Do("POST", "/qbk/" + key, "uploads");
    EXPECT_EQ(r.status(), 200) << r.body;
    return Tag(r.body, "UploadId");
  }
  Reply Part(const std::string& key, const std::string& id, int number, std::string data) {
    Req r;
    r.method = "PUT";
    r.path = "/qbk/" + key;
    r.query = "partNumber=" + std::to_string(number) + "&uploadId=" + id;
    r.body = std::move(data);
    return Send(std::move(r));
  }
  Reply Complete(const std::string& key, const std::string& id, const std::string& parts) {
    Req r;
    r.method = "POST";
    r.path = "/qbk/" + key;
    r.query = "uploadId=" + id;
    r.body = "<CompleteMultipartUpload>" + parts + "</CompleteMultipartUpload>";
    return Send(std::move(r));
  }
  static std::string PartXml(int number, const std::string& etag) {
    return "<Part><PartNumber>" + std::to_string(number) + "</PartNumber><ETag>" + etag +
           "</ETag></Part>";
  }
};

TEST_F(QuotaServiceTest, NoQuotaNoLimit) {
  EXPECT_EQ(Put("/qbk/a", std::string(5000, 'x')).status(), 200);
  EXPECT_EQ(Usage().bytes, 5000u);
}

TEST_F(QuotaServiceTest, PutObjectBytes) {
  SetQuota({.bytes = 100});
  EXPECT_EQ(Put("/qbk/a", std::string(60, 'a')).status(), 200);
  // Declared size over: refused before the body is read, nothing stored.
  ExpectRefused(Put("/qbk/b", std::string(41, 'b')),
                "The bucket's quota of 100 bytes would be exceeded.");
  EXPECT_FALSE(ObjectExists("qbk", "b"));
  EXPECT_EQ(Usage().bytes, 60u);
  // An overwrite counts its full new size (60 + 60 > 100).
  ExpectRefused(Put("/qbk/a", std::string(60, 'c')),
                "The bucket's quota of 100 bytes would be exceeded.");
  EXPECT_EQ(Put("/qbk/b", std::string(40, 'b')).status(), 200);
  EXPECT_EQ(Usage().bytes, 100u);
  EXPECT_EQ(Put("/qbk/empty", "").status(), 200) << "zero bytes at the limit fit";
}

// A body of unknown size (chunked transfer-encoding) passes the first check and is refused
// before the commit, its data released.
TEST_F(QuotaServiceTest, PutObjectOfUnknownSizeRefusedAtCommit) {
  SetQuota({.bytes = 100});
  const uint64_t pieces_before = store_->DebugCountDataPieces().value();
  Req r;
  r.method = "PUT";
  r.path = "/qbk/big";
  r.body = std::string(20000, 'z');  // chunked data, not inline
  r.content_length = std::optional<uint64_t>();
  r.headers = {{"transfer-encoding", "chunked"}};
  ExpectRefused(Send(std::move(r)), "The bucket's quota of 100 bytes would be exceeded.");
  EXPECT_FALSE(ObjectExists("qbk", "big"));
  EXPECT_EQ(Usage().bytes, 0u);
  EXPECT_EQ(store_->DebugCountDataPieces().value(), pieces_before);
}

TEST_F(QuotaServiceTest, PutObjectObjects) {
  SetQuota({.objects = 2});
  EXPECT_EQ(Put("/qbk/a", "1").status(), 200);
  EXPECT_EQ(Put("/qbk/b", "2").status(), 200);
  ExpectRefused(Put("/qbk/c", "3"), "The bucket's quota of 2 objects would be exceeded.");
  EXPECT_FALSE(ObjectExists("qbk", "c"));
  // Overwriting a current object adds none.
  EXPECT_EQ(Put("/qbk/a", "one").status(), 200);
  EXPECT_EQ(Usage().objects, 2u);
  // Deleting one makes room again.
  EXPECT_EQ(Do("DELETE", "/qbk/b").status(), 204);
  EXPECT_EQ(Put("/qbk/c", "3").status(), 200);
}

TEST_F(QuotaServiceTest, CopyObject) {
  MakeBucket("src");
  ASSERT_EQ(Put("/src/big", std::string(80, 'x')).status(), 200);
  SetQuota({.bytes = 100, .objects = 1});
  EXPECT_EQ(Put("/qbk/a", std::string(30, 'a')).status(), 200);
  ExpectRefused(Put("/qbk/c", "", {{"x-amz-copy-source", "/src/big"}}),
                "The bucket's quota of 100 bytes would be exceeded.");
  ExpectRefused(Put("/qbk/c", "", {{"x-amz-copy-source", "/qbk/a"}}),
                "The bucket's quota of 1 object would be exceeded.");
  EXPECT_FALSE(ObjectExists("qbk", "c"));
  // Onto itself with new metadata changes no usage: allowed at the limit.
  EXPECT_EQ(
      Put("/qbk/a", "", {{"x-amz-copy-source", "/qbk/a"}, {"x-amz-metadata-directive", "REPLACE"}})
          .status(),
      200);
  EXPECT_EQ(Usage().bytes, 30u);
  EXPECT_EQ(Usage().objects, 1u);
}

TEST_F(QuotaServiceTest, MultipartPartsAndComplete) {
  SetQuota({.bytes = 10 * 1024 * 1024});
  std::string id = Create("mp");
  const std::string part1(5 * 1024 * 1024, 'a'), part2(5 * 1024 * 1024, 'b');
  Reply p1 = Part("mp", id, 1, part1);
  ASSERT_EQ(p1.status(), 200) << p1.body;
  Reply p2 = Part("mp", id, 2, part2);
  ASSERT_EQ(p2.status(), 200) << p2.body;
  // A part larger than the quota is refused; parts in progress are not counted.
  ExpectRefused(Part("mp", id, 3, std::string(10 * 1024 * 1024 + 1, 'c')),
                "The bucket's quota of 10485760 bytes would be exceeded.");
  // Another object fills the bucket: the complete would pass the quota and is refused, the
  // upload stays.
  ASSERT_EQ(Put("/qbk/other", "12345").status(), 200);
  const std::string parts = PartXml(1, p1.Header("ETag")) + PartXml(2, p2.Header("ETag"));
  ExpectRefused(Complete("mp", id, parts),
                "The bucket's quota of 10485760 bytes would be exceeded.");
  EXPECT_FALSE(ObjectExists("qbk", "mp"));
  EXPECT_TRUE(store_->GetUpload("qbk", "mp", id).ok());
  // Deleting the other object lets the retry succeed.
  ASSERT_EQ(Do("DELETE", "/qbk/other").status(), 204);
  Reply done = Complete("mp", id, parts);
  EXPECT_EQ(done.status(), 200) << done.body;
  EXPECT_EQ(Usage().bytes, 10u * 1024 * 1024);
}

TEST_F(QuotaServiceTest, UploadPartCopy) {
  ASSERT_EQ(Put("/qbk/src", std::string(50, 's')).status(), 200);
  SetQuota({.bytes = 90});
  std::string id = Create("mp");
  ExpectRefused(Send({.method = "PUT",
                      .path = "/qbk/mp",
                      .query = "partNumber=1&uploadId=" + id,
                      .headers = {{"x-amz-copy-source", "/qbk/src"}}}),
                "The bucket's quota of 90 bytes would be exceeded.");
  Reply ok = Send(
      {.method = "PUT",
       .path = "/qbk/mp",
       .query = "partNumber=1&uploadId=" + id,
       .headers = {{"x-amz-copy-source", "/qbk/src"}, {"x-amz-copy-source-range", "bytes=0-39"}}});
  EXPECT_EQ(ok.status(), 200) << ok.body;
}

}  // namespace
}  // namespace cubby::s3api
