// Object lock through S3Service::Handle (object_lock.cc and its hooks in CreateBucket, PutObject,
// CopyObject, CreateMultipartUpload, GetObject/HeadObject and the deletes): every refusal and
// bypass of issue 14's "Object lock", against a real Store.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/s3api/service_fixture.h"

namespace cubby::s3api {
namespace {

using namespace test_support;  // NOLINT: the fixture

constexpr char kMissingConfig[] = "Bucket is missing Object Lock Configuration";
constexpr char kMd5Required[] =
    "Content-MD5 OR x-amz-checksum- HTTP header is required for Put Object requests with Object "
    "Lock parameters";
// Later than both the fixture's clock (2026-01-01) and the wall clock storage checks against.
constexpr char kFar[] = "2100-01-01T00:00:00.000Z";
constexpr char kFarther[] = "2100-06-01T00:00:00.000Z";

std::string RetentionBody(const std::string& mode, const std::string& until) {
  return "<Retention><Mode>" + mode + "</Mode><RetainUntilDate>" + until +
         "</RetainUntilDate></Retention>";
}
std::string LegalHoldBody(const std::string& status) {
  return "<LegalHold><Status>" + status + "</Status></LegalHold>";
}
std::string ConfigBody(const std::string& rule) {
  return "<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled>" + rule +
         "</ObjectLockConfiguration>";
}

class ObjectLockTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    // "locked": created with object lock, as root; "shared" too, where the writer key (a COSI
    // key, kWriteOnly) may delete versions but not bypass governance; "plain": no lock.
    for (const char* name : {"locked", "shared"}) {
      Reply r =
          Call("PUT", std::string("/") + name, "", {{"x-amz-bucket-object-lock-enabled", "true"}});
      ASSERT_EQ(r.status(), 200) << r.body;
    }
    MakeBucket("plain");
  }

  // The object-lock Puts get the Content-MD5 S3 requires of them (as SDKs add it).
  Reply Call(std::string method, std::string path, std::string query, std::vector<Header> headers,
             std::string body = "", std::string key_id = kRootId) {
    if (method == "PUT" && (query.starts_with("object-lock") || query.starts_with("retention") ||
                            query.starts_with("legal-hold"))) {
      headers.push_back({"content-md5", text::Base64Encode(auth::Md5(body))});
    }
    return CallAsIs(std::move(method), std::move(path), std::move(query), std::move(headers),
                    std::move(body), std::move(key_id));
  }
  Reply CallAsIs(std::string method, std::string path, std::string query,
                 std::vector<Header> headers, std::string body = "", std::string key_id = kRootId) {
    Req r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.query = std::move(query);
    r.headers = std::move(headers);
    r.body = std::move(body);
    r.key_id = std::move(key_id);
    return Send(std::move(r));
  }

  // A PUT of `data` with Content-MD5 (what a lock needs) and `headers`.
  Reply PutWithMd5(const std::string& path, const std::string& data,
                   std::vector<Header> headers = {}, std::string key_id = kRootId) {
    headers.push_back({"content-md5", text::Base64Encode(auth::Md5(data))});
    return Call("PUT", path, "", std::move(headers), data, std::move(key_id));
  }

  // PUT ... ?versionId=<id>&<sub> or ?<sub> for the latest.
  static std::string Query(const std::string& sub, const std::string& version_id) {
    return version_id.empty() ? sub : sub + "&versionId=" + version_id;
  }

  static void ExpectError(const Reply& r, int status, const std::string& code,
                          const std::string& message = "") {
    EXPECT_EQ(r.status(), status) << r.body;
    EXPECT_EQ(r.Code(), code) << r.body;
    if (message.empty()) return;
    std::string got = Tag(r.body, "Message");
    for (size_t p = got.find("&apos;"); p != std::string::npos; p = got.find("&apos;", p)) {
      got.replace(p, 6, "'");
    }
    EXPECT_EQ(got, message);
  }
};

TEST_F(ObjectLockTest, CreateBucketEnablesLockAndVersioning) {
  EXPECT_EQ(Tag(Do("GET", "/locked", "versioning").body, "Status"), "Enabled");
  Reply config = Do("GET", "/locked", "object-lock");
  EXPECT_EQ(config.status(), 200) << config.body;
  EXPECT_EQ(Tag(config.body, "ObjectLockEnabled"), "Enabled");
  EXPECT_EQ(Tag(config.body, "Rule"), "<absent>");
  EXPECT_EQ(store_->BucketVersioning("locked"), storage::VersioningState::kEnabled);
  // Versioning cannot be suspended.
  ExpectError(Call("PUT", "/locked", "versioning", {},
                   "<VersioningConfiguration><Status>Suspended</Status></VersioningConfiguration>"),
              409, "InvalidBucketState");
  EXPECT_EQ(Tag(Do("GET", "/locked", "versioning").body, "Status"), "Enabled");
  // "false" (any case) is a bucket without lock.
  ASSERT_EQ(Call("PUT", "/nolock", "", {{"x-amz-bucket-object-lock-enabled", "False"}}).status(),
            200);
  ExpectError(Do("GET", "/nolock", "object-lock"), 404, "ObjectLockConfigurationNotFoundError");
  EXPECT_EQ(store_->BucketVersioning("nolock"), storage::VersioningState::kUnversioned);
}

TEST_F(ObjectLockTest, ConfigurationRoundTripAndErrors) {
  const std::string rule =
      "<Rule><DefaultRetention><Mode>COMPLIANCE</Mode><Years>2</Years></DefaultRetention></Rule>";
  ASSERT_EQ(Call("PUT", "/locked", "object-lock", {}, ConfigBody(rule)).status(), 200);
  Reply got = Do("GET", "/locked", "object-lock");
  EXPECT_EQ(Tag(got.body, "Mode"), "COMPLIANCE");
  EXPECT_EQ(Tag(got.body, "Years"), "2");
  // A body without Rule removes the default retention.
  ASSERT_EQ(Call("PUT", "/locked", "object-lock", {}, ConfigBody("")).status(), 200);
  EXPECT_EQ(Tag(Do("GET", "/locked", "object-lock").body, "Rule"), "<absent>");
  // Malformed and out-of-range bodies.
  ExpectError(Call("PUT", "/locked", "object-lock", {}, "<ObjectLockConfiguration/>"), 400,
              "MalformedXML");
  ExpectError(Call("PUT", "/locked", "object-lock", {},
                   ConfigBody("<Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>0</Days>"
                              "</DefaultRetention></Rule>")),
              400, "InvalidArgument", "Default retention period must be a positive integer value.");
  // An unversioned bucket cannot take a configuration; a versioning-enabled one can (S3 lets
  // object lock be enabled on an existing bucket that way).
  ExpectError(Call("PUT", "/plain", "object-lock", {}, ConfigBody("")), 409, "InvalidBucketState",
              "Versioning must be 'Enabled' on the bucket to apply a Object Lock configuration");
  ExpectError(Do("GET", "/plain", "object-lock"), 404, "ObjectLockConfigurationNotFoundError");
  ASSERT_EQ(Call("PUT", "/plain", "versioning", {},
                 "<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>")
                .status(),
            200);
  ASSERT_EQ(Call("PUT", "/plain", "object-lock", {}, ConfigBody("")).status(), 200);
  EXPECT_EQ(Tag(Do("GET", "/plain", "object-lock").body, "ObjectLockEnabled"), "Enabled");
  ExpectError(Do("GET", "/missing", "object-lock"), 404, "NoSuchBucket");
  // Only root (the owner) sets it; a COSI key reads it by its mode, never writes it.
  ExpectError(Call("PUT", "/shared", "object-lock", {}, ConfigBody(""), kWriterId), 403,
              "AccessDenied");
  EXPECT_EQ(Call("GET", "/shared", "object-lock", {}, "", kReaderId).status(), 200);
}

TEST_F(ObjectLockTest, DefaultRetentionAppliesToNewVersions) {
  ASSERT_EQ(Call("PUT", "/locked", "object-lock", {},
                 ConfigBody("<Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>3</Days>"
                            "</DefaultRetention></Rule>"))
                .status(),
            200);
  Reply put = PutWithMd5("/locked/k", "data");
  ASSERT_EQ(put.status(), 200) << put.body;
  Reply head = Do("HEAD", "/locked/k");
  EXPECT_EQ(head.Header("x-amz-object-lock-mode"), "GOVERNANCE");
  EXPECT_EQ(head.Header("x-amz-object-lock-retain-until-date"), "2026-01-04T00:00:00.000Z");
  EXPECT_EQ(head.Header("x-amz-object-lock-legal-hold"), "<absent>");
  Reply retention = Do("GET", "/locked/k", "retention");
  EXPECT_EQ(Tag(retention.body, "RetainUntilDate"), "2026-01-04T00:00:00.000Z");
  // The default makes the version locked, so a PUT without an integrity check is refused.
  ExpectError(Put("/locked/k2", "data"), 400, "InvalidRequest", kMd5Required);
  EXPECT_FALSE(ObjectExists("locked", "k2"));
  // Headers win over the default; a legal hold alone keeps the default retention.
  ASSERT_EQ(PutWithMd5("/locked/k3", "d",
                       {{"x-amz-object-lock-mode", "COMPLIANCE"},
                        {"x-amz-object-lock-retain-until-date", kFar}})
                .status(),
            200);
  EXPECT_EQ(Do("HEAD", "/locked/k3").Header("x-amz-object-lock-mode"), "COMPLIANCE");
  ASSERT_EQ(PutWithMd5("/locked/k4", "d", {{"x-amz-object-lock-legal-hold", "ON"}}).status(), 200);
  Reply k4 = Do("HEAD", "/locked/k4");
  EXPECT_EQ(k4.Header("x-amz-object-lock-mode"), "GOVERNANCE");
  EXPECT_EQ(k4.Header("x-amz-object-lock-legal-hold"), "ON");
  // A multipart upload takes the default when it is created.
  Reply created = Do("POST", "/locked/mp", "uploads");
  ASSERT_EQ(created.status(), 200) << created.body;
  const std::string id = Tag(created.body, "UploadId");
  ASSERT_EQ(Call("PUT", "/locked/mp", "partNumber=1&uploadId=" + id, {}, "part").status(), 200);
  Reply done = Call("POST", "/locked/mp", "uploadId=" + id, {},
                    "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"" +
                        Md5Hex("part") + "\"</ETag></Part></CompleteMultipartUpload>");
  ASSERT_EQ(done.status(), 200) << done.body;
  EXPECT_EQ(Do("HEAD", "/locked/mp").Header("x-amz-object-lock-mode"), "GOVERNANCE");
}

TEST_F(ObjectLockTest, WriteHeaders) {
  const std::vector<Header> governance = {{"x-amz-object-lock-mode", "GOVERNANCE"},
                                          {"x-amz-object-lock-retain-until-date", kFar}};
  // Without Content-MD5 or a checksum: refused, nothing stored.
  ExpectError(Put("/locked/k", "data", governance), 400, "InvalidRequest", kMd5Required);
  ExpectError(Put("/locked/k", "data", {{"x-amz-object-lock-legal-hold", "OFF"}}), 400,
              "InvalidRequest", kMd5Required);
  EXPECT_FALSE(ObjectExists("locked", "k"));
  // An x-amz-checksum-* header does as well as Content-MD5.
  std::vector<Header> with_checksum = governance;
  with_checksum.push_back({"x-amz-checksum-sha256", text::Base64Encode(auth::Sha256("data"))});
  Reply put = Put("/locked/k", "data", with_checksum);
  ASSERT_EQ(put.status(), 200) << put.body;
  Reply get = Get("/locked/k");
  EXPECT_EQ(get.body, "data");
  EXPECT_EQ(get.Header("x-amz-object-lock-mode"), "GOVERNANCE");
  EXPECT_EQ(get.Header("x-amz-object-lock-retain-until-date"), kFar);
  // Malformed headers, before anything else.
  struct Bad {
    std::vector<Header> headers;
    std::string message;
  };
  for (const Bad& bad : std::vector<Bad>{
           {{{"x-amz-object-lock-mode", "GOVERNANCE"}},
            "x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be "
            "supplied"},
           {{{"x-amz-object-lock-mode", "governance"},
             {"x-amz-object-lock-retain-until-date", kFar}},
            "Unknown wormMode directive."},
           {{{"x-amz-object-lock-mode", "GOVERNANCE"},
             {"x-amz-object-lock-retain-until-date", "tomorrow"}},
            "The retain until date must be provided in ISO 8601 format"},
           {{{"x-amz-object-lock-mode", "GOVERNANCE"},
             {"x-amz-object-lock-retain-until-date", "2020-01-01T00:00:00Z"}},
            "The retain until date must be in the future!"},
           {{{"x-amz-object-lock-legal-hold", "on"}}, "Legal Hold must be either of 'ON' or 'OFF'"},
       }) {
    SCOPED_TRACE(bad.message);
    ExpectError(PutWithMd5("/locked/bad", "d", bad.headers), 400, "InvalidArgument", bad.message);
    ExpectError(PutWithMd5("/plain/bad", "d", bad.headers), 400, "InvalidArgument", bad.message);
  }
  EXPECT_FALSE(ObjectExists("locked", "bad"));
  // On a bucket without object lock: refused on every write that takes them.
  ExpectError(PutWithMd5("/plain/k", "d", governance), 400, "InvalidRequest", kMissingConfig);
  ExpectError(PutWithMd5("/plain/k", "d", {{"x-amz-object-lock-legal-hold", "ON"}}), 400,
              "InvalidRequest", kMissingConfig);
  ExpectError(Call("POST", "/plain/k", "uploads", governance), 400, "InvalidRequest",
              kMissingConfig);
  ASSERT_EQ(Put("/plain/src", "s").status(), 200);
  std::vector<Header> copy = governance;
  copy.push_back({"x-amz-copy-source", "/plain/src"});
  ExpectError(Call("PUT", "/plain/k", "", copy), 400, "InvalidRequest", kMissingConfig);
  EXPECT_FALSE(ObjectExists("plain", "k"));
  ExpectError(PutWithMd5("/missing/k", "d", governance), 404, "NoSuchBucket");
}

TEST_F(ObjectLockTest, CopyAndMultipartTakeTheirOwnLock) {
  // The copy of a locked version is not locked unless its own headers ask.
  ASSERT_EQ(PutWithMd5("/locked/src", "s", {{"x-amz-object-lock-legal-hold", "ON"}}).status(), 200);
  ASSERT_EQ(Call("PUT", "/locked/plain-copy", "", {{"x-amz-copy-source", "/locked/src"}}).status(),
            200);
  EXPECT_EQ(Do("HEAD", "/locked/plain-copy").Header("x-amz-object-lock-legal-hold"), "<absent>");
  Reply copy = Call("PUT", "/locked/held-copy", "",
                    {{"x-amz-copy-source", "/locked/src"},
                     {"x-amz-object-lock-mode", "COMPLIANCE"},
                     {"x-amz-object-lock-retain-until-date", kFar}});
  ASSERT_EQ(copy.status(), 200) << copy.body;  // a copy needs no Content-MD5
  EXPECT_EQ(Do("HEAD", "/locked/held-copy").Header("x-amz-object-lock-mode"), "COMPLIANCE");
  // The upload carries its headers' lock to the completed object.
  Reply created = Call("POST", "/locked/mp", "uploads", {{"x-amz-object-lock-legal-hold", "ON"}});
  ASSERT_EQ(created.status(), 200) << created.body;
  const std::string id = Tag(created.body, "UploadId");
  ASSERT_EQ(Call("PUT", "/locked/mp", "partNumber=1&uploadId=" + id, {}, "part").status(), 200);
  ASSERT_EQ(Call("POST", "/locked/mp", "uploadId=" + id, {},
                 "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"" +
                     Md5Hex("part") + "\"</ETag></Part></CompleteMultipartUpload>")
                .status(),
            200);
  Reply head = Do("HEAD", "/locked/mp");
  EXPECT_EQ(head.Header("x-amz-object-lock-legal-hold"), "ON");
  ExpectError(Do("DELETE", "/locked/mp", "versionId=" + head.Header("x-amz-version-id")), 403,
              "AccessDenied");
}

TEST_F(ObjectLockTest, GovernanceRetention) {
  ASSERT_EQ(PutWithMd5("/shared/k", "one").status(), 200);
  const std::string v1 = Do("HEAD", "/shared/k").Header("x-amz-version-id");
  ExpectError(Do("GET", "/shared/k", "retention"), 404, "NoSuchObjectLockConfiguration");
  ASSERT_EQ(
      Call("PUT", "/shared/k", "retention", {}, RetentionBody("GOVERNANCE", kFarther)).status(),
      200);
  Reply got = Do("GET", "/shared/k", Query("retention", v1));
  EXPECT_EQ(got.status(), 200) << got.body;
  EXPECT_EQ(Tag(got.body, "Mode"), "GOVERNANCE");
  EXPECT_EQ(Tag(got.body, "RetainUntilDate"), kFarther);
  EXPECT_EQ(got.Header("x-amz-version-id"), "<absent>");
  // A plain delete makes a marker; the version stays.
  Reply marker = Do("DELETE", "/shared/k");
  EXPECT_EQ(marker.status(), 204);
  EXPECT_EQ(marker.Header("x-amz-delete-marker"), "true");
  // Deleting the version: refused, also with the bypass header from a key without
  // s3:BypassGovernanceRetention; allowed with it from root.
  const Header bypass{"x-amz-bypass-governance-retention", "true"};
  ExpectError(Do("DELETE", "/shared/k", "versionId=" + v1), 403, "AccessDenied");
  ExpectError(Call("DELETE", "/shared/k", "versionId=" + v1, {bypass}, "", kWriterId), 403,
              "AccessDenied");
  // Shortening: refused without the bypass, allowed with it; extending needs none.
  ExpectError(
      Call("PUT", "/shared/k", Query("retention", v1), {}, RetentionBody("GOVERNANCE", kFar)), 403,
      "AccessDenied");
  ASSERT_EQ(
      Call("PUT", "/shared/k", Query("retention", v1), {bypass}, RetentionBody("GOVERNANCE", kFar))
          .status(),
      200);
  ASSERT_EQ(
      Call("PUT", "/shared/k", Query("retention", v1), {}, RetentionBody("GOVERNANCE", kFarther))
          .status(),
      200);
  EXPECT_EQ(Call("DELETE", "/shared/k", "versionId=" + v1, {bypass}).status(), 204);
  EXPECT_FALSE(store_->HeadObjectVersion("shared", "k", v1, nullptr).ok());
  // Removing a governance retention (an empty Retention) needs the bypass too.
  ASSERT_EQ(PutWithMd5("/shared/j", "two").status(), 200);
  ASSERT_EQ(Call("PUT", "/shared/j", "retention", {}, RetentionBody("GOVERNANCE", kFar)).status(),
            200);
  ExpectError(Call("PUT", "/shared/j", "retention", {}, "<Retention/>"), 403, "AccessDenied");
  ASSERT_EQ(Call("PUT", "/shared/j", "retention", {bypass}, "<Retention/>").status(), 200);
  ExpectError(Do("GET", "/shared/j", "retention"), 404, "NoSuchObjectLockConfiguration");
}

TEST_F(ObjectLockTest, ComplianceRetention) {
  ASSERT_EQ(PutWithMd5("/locked/k", "one",
                       {{"x-amz-object-lock-mode", "COMPLIANCE"},
                        {"x-amz-object-lock-retain-until-date", kFar}})
                .status(),
            200);
  const std::string v1 = Do("HEAD", "/locked/k").Header("x-amz-version-id");
  const Header bypass{"x-amz-bypass-governance-retention", "true"};
  ExpectError(Call("DELETE", "/locked/k", "versionId=" + v1, {bypass}), 403, "AccessDenied");
  ExpectError(Call("PUT", "/locked/k", "retention", {bypass}, RetentionBody("GOVERNANCE", kFar)),
              403, "AccessDenied");
  ExpectError(Call("PUT", "/locked/k", "retention", {bypass}, "<Retention/>"), 403, "AccessDenied");
  ASSERT_EQ(
      Call("PUT", "/locked/k", "retention", {}, RetentionBody("COMPLIANCE", kFarther)).status(),
      200);
  EXPECT_EQ(Tag(Do("GET", "/locked/k", "retention").body, "RetainUntilDate"), kFarther);
  // DeleteObjects reports the refusal per key.
  const std::string batch_body =
      "<Delete><Object><Key>k</Key><VersionId>" + v1 + "</VersionId></Object></Delete>";
  Reply batch = Call("POST", "/locked", "delete",
                     {{"content-md5", text::Base64Encode(auth::Md5(batch_body))}}, batch_body);
  EXPECT_EQ(batch.status(), 200) << batch.body;
  EXPECT_EQ(Tag(batch.body, "Code"), "AccessDenied");
  EXPECT_TRUE(store_->HeadObjectVersion("locked", "k", v1, nullptr).ok());
}

TEST_F(ObjectLockTest, LegalHold) {
  ASSERT_EQ(PutWithMd5("/locked/k", "one").status(), 200);
  const std::string v1 = Do("HEAD", "/locked/k").Header("x-amz-version-id");
  ExpectError(Do("GET", "/locked/k", "legal-hold"), 404, "NoSuchObjectLockConfiguration");
  ASSERT_EQ(Call("PUT", "/locked/k", "legal-hold", {}, LegalHoldBody("ON")).status(), 200);
  EXPECT_EQ(Tag(Do("GET", "/locked/k", Query("legal-hold", v1)).body, "Status"), "ON");
  EXPECT_EQ(Do("HEAD", "/locked/k").Header("x-amz-object-lock-legal-hold"), "ON");
  const Header bypass{"x-amz-bypass-governance-retention", "true"};
  ExpectError(Call("DELETE", "/locked/k", "versionId=" + v1, {bypass}), 403, "AccessDenied");
  ASSERT_EQ(Call("PUT", "/locked/k", Query("legal-hold", v1), {}, LegalHoldBody("OFF")).status(),
            200);
  EXPECT_EQ(Tag(Do("GET", "/locked/k", "legal-hold").body, "Status"), "OFF");
  EXPECT_EQ(Do("DELETE", "/locked/k", "versionId=" + v1).status(), 204);
  // Errors: malformed body, unknown key, malformed and unknown version ids, a delete marker.
  ASSERT_EQ(PutWithMd5("/locked/j", "two").status(), 200);
  ExpectError(Call("PUT", "/locked/j", "legal-hold", {}, LegalHoldBody("on")), 400, "MalformedXML");
  ExpectError(Call("PUT", "/locked/nokey", "legal-hold", {}, LegalHoldBody("ON")), 404,
              "NoSuchKey");
  ExpectError(Call("PUT", "/locked/j", "legal-hold&versionId=bad", {}, LegalHoldBody("ON")), 400,
              "InvalidArgument", "Invalid version id specified");
  ExpectError(
      Do("GET", "/locked/j", "legal-hold&versionId=" + std::string(16, '1') + std::string(16, 'a')),
      404, "NoSuchVersion");
  ExpectError(Call("PUT", "/locked/j", "legal-hold&versionId=", {}, LegalHoldBody("ON")), 400,
              "InvalidArgument", "Version id cannot be the empty string");
  ASSERT_EQ(Do("DELETE", "/locked/j").status(), 204);
  ExpectError(Do("GET", "/locked/j", "legal-hold"), 404, "NoSuchKey");
}

// The object-lock Puts need an integrity check of their body, as DeleteObjects does.
TEST_F(ObjectLockTest, PutsNeedContentMd5) {
  ASSERT_EQ(PutWithMd5("/locked/k", "one").status(), 200);
  const std::string retention = RetentionBody("GOVERNANCE", kFar);
  struct Case {
    std::string path, query, body;
  };
  for (const Case& c : std::vector<Case>{{"/locked", "object-lock", ConfigBody("")},
                                         {"/locked/k", "retention", retention},
                                         {"/locked/k", "legal-hold", LegalHoldBody("ON")}}) {
    SCOPED_TRACE(c.query);
    ExpectError(CallAsIs("PUT", c.path, c.query, {}, c.body), 400, "InvalidRequest",
                "Missing required header for this request: Content-Md5");
    ExpectError(CallAsIs("PUT", c.path, c.query,
                         {{"content-md5", text::Base64Encode(auth::Md5("other"))}}, c.body),
                400, "BadDigest");
    std::vector<Header> checksum = {
        {"x-amz-checksum-sha256", text::Base64Encode(auth::Sha256(c.body))}};
    EXPECT_EQ(CallAsIs("PUT", c.path, c.query, checksum, c.body).status(), 200);
  }
  EXPECT_EQ(Tag(Do("GET", "/locked/k", "legal-hold").body, "Status"), "ON");
}

// Each lock call on a bucket without object lock, and on one that does not exist.
TEST_F(ObjectLockTest, CallsOnABucketWithoutLock) {
  ASSERT_EQ(Put("/plain/k", "one").status(), 200);
  struct LockCall {
    std::string method, query, body;
  };
  for (const LockCall& c :
       std::vector<LockCall>{{"GET", "retention", ""},
                             {"PUT", "retention", RetentionBody("GOVERNANCE", kFar)},
                             {"GET", "legal-hold", ""},
                             {"PUT", "legal-hold", LegalHoldBody("ON")}}) {
    SCOPED_TRACE(c.method + " " + c.query);
    ExpectError(Call(c.method, "/plain/k", c.query, {}, c.body), 400, "InvalidRequest",
                kMissingConfig);
    ExpectError(Call(c.method, "/missing/k", c.query, {}, c.body), 404, "NoSuchBucket");
  }
  // A versioning-enabled bucket without lock is refused as well.
  ASSERT_EQ(Call("PUT", "/plain", "versioning", {},
                 "<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>")
                .status(),
            200);
  ExpectError(Call("PUT", "/plain/k", "legal-hold", {}, LegalHoldBody("ON")), 400, "InvalidRequest",
              kMissingConfig);
  // Retention body errors on a lock bucket.
  ASSERT_EQ(PutWithMd5("/locked/k", "one").status(), 200);
  ExpectError(Call("PUT", "/locked/k", "retention", {},
                   RetentionBody("GOVERNANCE", "2020-01-01T00:00:00.000Z")),
              400, "InvalidArgument", "The retain until date must be in the future!");
  ExpectError(Call("PUT", "/locked/k", "retention", {},
                   "<Retention><Mode>GOVERNANCE</Mode>"
                   "</Retention>"),
              400, "MalformedXML");
  // Setting a lock is for whoever may: a COSI key with write access may not (admin only).
  ExpectError(Call("PUT", "/shared/k", "legal-hold", {}, LegalHoldBody("ON"), kWriterId), 403,
              "AccessDenied");
}

}  // namespace
}  // namespace cubby::s3api
