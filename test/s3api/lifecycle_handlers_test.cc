// Put/Get/DeleteBucketLifecycle(Configuration) and x-amz-expiration through S3Service::Handle,
// with a real Store in a temp folder and the fixture's fixed clock (2026-01-01T00:00:00Z).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "s3api/auth/crypto.h"
#include "s3api/handlers.h"
#include "test/s3api/service_fixture.h"
#include "text/encoding.h"
#include "text/time.h"

namespace cubby::s3api {
namespace {

using namespace test_support;  // NOLINT: the fixture

class LifecycleTest : public ServiceTest {
 protected:
  Reply PutLifecycle(const std::string& bucket, const std::string& xml, std::vector<Header> headers,
                     std::string key_id = kRootId) {
    Req r;
    r.method = "PUT";
    r.path = "/" + bucket;
    r.query = "lifecycle";
    r.body = xml;
    r.headers = std::move(headers);
    r.key_id = std::move(key_id);
    return Send(std::move(r));
  }
  Reply PutLifecycle(const std::string& bucket, const std::string& xml) {
    return PutLifecycle(bucket, xml, Md5Of(xml));
  }
  static std::vector<Header> Md5Of(const std::string& body) {
    return {{"content-md5", text::Base64Encode(auth::Md5(body))}};
  }
  static std::string Rule(const std::string& id, const std::string& filter,
                          const std::string& actions, const std::string& status = "Enabled") {
    return "<Rule><ID>" + id + "</ID><Filter>" + filter + "</Filter><Status>" + status +
           "</Status>" + actions + "</Rule>";
  }
  static std::string Config(const std::string& rules) {
    return "<LifecycleConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">" + rules +
           "</LifecycleConfiguration>";
  }
};

TEST_F(LifecycleTest, PutGetDeleteRoundTrip) {
  MakeBucket("bkt");
  Reply none = Do("GET", "/bkt", "lifecycle");
  EXPECT_EQ(none.status(), 404);
  EXPECT_EQ(none.Code(), "NoSuchLifecycleConfiguration");
  EXPECT_TRUE(Contains(none.body, "The lifecycle configuration does not exist"));

  const std::string xml =
      Config(Rule("r1", "<Prefix>logs/</Prefix>", "<Expiration><Days>30</Days></Expiration>") +
             Rule("r2", "",
                  "<AbortIncompleteMultipartUpload>"
                  "<DaysAfterInitiation>7</DaysAfterInitiation>"
                  "</AbortIncompleteMultipartUpload>",
                  "Disabled"));
  Reply put = PutLifecycle("bkt", xml);
  EXPECT_EQ(put.status(), 200) << put.body;
  EXPECT_EQ(put.summary.operation, "PutBucketLifecycleConfiguration");
  storage::Result<storage::BucketRecord> stored = store_->GetBucket("bkt");
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->lifecycle.rules.size(), 2u);
  EXPECT_EQ(stored->lifecycle.rules[0].filter.prefix, "logs/");
  EXPECT_FALSE(stored->lifecycle.rules[1].enabled);

  Reply get = Do("GET", "/bkt", "lifecycle");
  EXPECT_EQ(get.status(), 200);
  EXPECT_EQ(get.summary.operation, "GetBucketLifecycleConfiguration");
  EXPECT_TRUE(Contains(get.body, "<LifecycleConfiguration"));
  EXPECT_TRUE(Contains(get.body, "<ID>r1</ID>"));
  EXPECT_TRUE(Contains(get.body, "<Days>30</Days>"));
  EXPECT_TRUE(Contains(get.body, "<Status>Disabled</Status>"));

  // A rule without an ID gets one.
  ASSERT_EQ(PutLifecycle("bkt", Config("<Rule><Filter/><Status>Enabled</Status><Expiration>"
                                       "<Days>1</Days></Expiration></Rule>"))
                .status(),
            200);
  stored = store_->GetBucket("bkt");
  ASSERT_EQ(stored->lifecycle.rules.size(), 1u);
  EXPECT_FALSE(stored->lifecycle.rules[0].id.empty());

  Reply deleted = Do("DELETE", "/bkt", "lifecycle");
  EXPECT_EQ(deleted.status(), 204);
  EXPECT_EQ(deleted.summary.operation, "DeleteBucketLifecycle");
  EXPECT_EQ(Do("GET", "/bkt", "lifecycle").Code(), "NoSuchLifecycleConfiguration");
  EXPECT_EQ(Do("DELETE", "/bkt", "lifecycle").status(), 204);  // none: still 204
}

TEST_F(LifecycleTest, Errors) {
  MakeBucket("bkt");
  const std::string good = Config(Rule("r", "", "<Expiration><Days>1</Days></Expiration>"));
  struct Case {
    std::string name;
    std::string xml;
    std::vector<Header> headers;  // empty: Content-MD5 of xml
    int status;
    std::string code;
  };
  const std::string transition =
      Config(Rule("t", "",
                  "<Transition><Days>1</Days><StorageClass>GLACIER</StorageClass>"
                  "</Transition>"));
  const std::vector<Case> cases = {
      {"malformed", "<LifecycleConfiguration><Rule>", {}, 400, "MalformedXML"},
      {"no rule", Config(""), {}, 400, "MalformedXML"},
      {"transition", transition, {}, 501, "NotImplemented"},
      {"no action", Config(Rule("r", "", "")), {}, 400, "InvalidRequest"},
      {"no integrity header", good, {{"x-amz-meta-x", "1"}}, 400, "InvalidRequest"},
      {"bad md5", good, {{"content-md5", "nope"}}, 400, "InvalidDigest"},
      {"wrong md5", good, Md5Of("other"), 400, "BadDigest"},
      {"wrong checksum", good, {{"x-amz-checksum-crc32", "AAAAAA=="}}, 400, "BadDigest"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Reply r =
        c.headers.empty() ? PutLifecycle("bkt", c.xml) : PutLifecycle("bkt", c.xml, c.headers);
    EXPECT_EQ(r.status(), c.status) << r.body;
    EXPECT_EQ(r.Code(), c.code);
  }
  EXPECT_EQ(Do("GET", "/bkt", "lifecycle").Code(), "NoSuchLifecycleConfiguration");
  // A checksum header instead of Content-MD5 is enough.
  Reply crc = PutLifecycle("bkt", good,
                           {{"x-amz-checksum-sha256", text::Base64Encode(auth::Sha256(good))}});
  EXPECT_EQ(crc.status(), 200) << crc.body;
  EXPECT_EQ(PutLifecycle("missing", good).Code(), "NoSuchBucket");
  EXPECT_EQ(Do("GET", "/missing", "lifecycle").Code(), "NoSuchBucket");
  EXPECT_EQ(Do("DELETE", "/missing", "lifecycle").Code(), "NoSuchBucket");
}

// Bucket-owner actions: a COSI key may read the configuration of its bucket but not change it.
TEST_F(LifecycleTest, Authorization) {
  MakeBucket("shared");
  const std::string xml = Config(Rule("r", "", "<Expiration><Days>1</Days></Expiration>"));
  ASSERT_EQ(PutLifecycle("shared", xml).status(), 200);
  EXPECT_EQ(Do("GET", "/shared", "lifecycle", kReaderId).status(), 200);
  EXPECT_EQ(PutLifecycle("shared", xml, Md5Of(xml), kReaderId).Code(), "AccessDenied");
  EXPECT_EQ(PutLifecycle("shared", xml, Md5Of(xml), kWriterId).Code(), "AccessDenied");
  EXPECT_EQ(Do("DELETE", "/shared", "lifecycle", kWriterId).Code(), "AccessDenied");
  EXPECT_EQ(Do("GET", "/shared", "lifecycle", kAnonymous).Code(), "AccessDenied");
  EXPECT_TRUE(store_->GetBucket("shared")->lifecycle.rules.size() == 1);
}

// x-amz-expiration on PUT, GET and HEAD of an object a rule expires: with the real day, 1 day
// after 2026-01-01T00:00:00Z rounds up to the midnight after, 2026-01-03.
TEST_F(LifecycleTest, ExpirationHeader) {
  MakeBucket("bkt");
  ASSERT_EQ(Put("/bkt/logs/a", "x").Header("x-amz-expiration"), "<absent>");  // no rules yet
  ASSERT_EQ(
      PutLifecycle(
          "bkt",
          Config(Rule("logs", "<Prefix>logs/</Prefix>", "<Expiration><Days>1</Days></Expiration>") +
                 Rule("off", "", "<Expiration><Days>1</Days></Expiration>", "Disabled")))
          .status(),
      200);
  const std::string want = "expiry-date=\"Sat, 03 Jan 2026 00:00:00 GMT\", rule-id=\"logs\"";
  EXPECT_EQ(Put("/bkt/logs/a", "x").Header("x-amz-expiration"), want);
  EXPECT_EQ(Get("/bkt/logs/a").Header("x-amz-expiration"), want);
  EXPECT_EQ(Do("HEAD", "/bkt/logs/a").Header("x-amz-expiration"), want);
  // Not selected by the enabled rule: no header.
  EXPECT_EQ(Put("/bkt/other", "x").Header("x-amz-expiration"), "<absent>");
  EXPECT_EQ(Do("HEAD", "/bkt/other").Header("x-amz-expiration"), "<absent>");
}

// CreateMultipartUpload names the rule that will abort the upload, and when: with the real day,
// the midnight UTC after 2 days from the upload's initiation (the store's clock).
TEST_F(LifecycleTest, AbortHeaders) {
  MakeBucket("bkt");
  auto create = [&](const std::string& key) {
    Req r;
    r.method = "POST";
    r.path = "/bkt/" + key;
    r.query = "uploads";
    return Send(std::move(r));
  };
  Reply before = create("tmp/a");
  ASSERT_EQ(before.status(), 200) << before.body;
  EXPECT_EQ(before.Header("x-amz-abort-date"), "<absent>");
  ASSERT_EQ(PutLifecycle("bkt", Config(Rule("mpu", "<Prefix>tmp/</Prefix>",
                                            "<AbortIncompleteMultipartUpload><DaysAfterInitiation>"
                                            "2</DaysAfterInitiation>"
                                            "</AbortIncompleteMultipartUpload>")))
                .status(),
            200);
  Reply after = create("tmp/b");
  ASSERT_EQ(after.status(), 200) << after.body;
  storage::ListUploadsQuery query;
  query.bucket = "bkt";
  query.prefix = "tmp/b";
  storage::Result<storage::ListUploadsPage> uploads = store_->ListUploads(query);
  ASSERT_TRUE(uploads.ok());
  ASSERT_EQ(uploads->uploads.size(), 1u);
  const int64_t initiated = uploads->uploads[0].initiated_ms;
  const int64_t day_ms = 86'400'000;
  const int64_t midnight = (initiated + 2 * day_ms) / day_ms * day_ms + day_ms;
  EXPECT_EQ(after.Header("x-amz-abort-date"), text::FormatHttpDate(text::FromUnixMillis(midnight)));
  EXPECT_TRUE(after.Header("x-amz-abort-date").ends_with(" 00:00:00 GMT"));
  EXPECT_EQ(after.Header("x-amz-abort-rule-id"), "mpu");
  Reply other = create("keep/c");
  EXPECT_EQ(other.Header("x-amz-abort-rule-id"), "<absent>");
}

}  // namespace
}  // namespace cubby::s3api
