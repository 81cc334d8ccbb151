#include "s3api/router.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cubby::s3api {
namespace {

struct RouteCase {
  std::string method;
  std::string target;
  std::string host;
  std::string domain;
  bool copy_source;
  Operation op;
  std::string bucket;
  std::string key;
};

TEST(RouterTest, OperationTable) {
  const std::vector<RouteCase> cases = {
      // Service and bucket level, path-style.
      {"GET", "/", "localhost:9000", "", false, Operation::kListBuckets, "", ""},
      {"PUT", "/bkt", "h", "", false, Operation::kCreateBucket, "bkt", ""},
      {"PUT", "/bkt/", "h", "", false, Operation::kCreateBucket, "bkt", ""},
      {"HEAD", "/bkt", "h", "", false, Operation::kHeadBucket, "bkt", ""},
      {"DELETE", "/bkt", "h", "", false, Operation::kDeleteBucket, "bkt", ""},
      {"GET", "/bkt?location", "h", "", false, Operation::kGetBucketLocation, "bkt", ""},
      {"GET", "/bkt?versioning", "h", "", false, Operation::kGetBucketVersioning, "bkt", ""},
      {"GET", "/bkt?acl", "h", "", false, Operation::kGetBucketAcl, "bkt", ""},
      {"PUT", "/bkt?acl", "h", "", false, Operation::kPutBucketAcl, "bkt", ""},
      {"GET", "/bkt", "h", "", false, Operation::kListObjects, "bkt", ""},
      {"GET", "/bkt?prefix=a&delimiter=%2F", "h", "", false, Operation::kListObjects, "bkt", ""},
      {"GET", "/bkt?list-type=2&prefix=a", "h", "", false, Operation::kListObjectsV2, "bkt", ""},
      {"GET", "/bkt?list-type=3", "h", "", false, Operation::kNotImplemented, "bkt", ""},
      {"GET", "/bkt?uploads", "h", "", false, Operation::kListMultipartUploads, "bkt", ""},
      {"POST", "/bkt?delete", "h", "", false, Operation::kDeleteObjects, "bkt", ""},
      // Object level.
      {"PUT", "/bkt/a/b.txt", "h", "", false, Operation::kPutObject, "bkt", "a/b.txt"},
      {"PUT", "/bkt/a?x-id=PutObject", "h", "", false, Operation::kPutObject, "bkt", "a"},
      {"PUT", "/bkt/a", "h", "", true, Operation::kCopyObject, "bkt", "a"},
      {"GET", "/bkt/my%20key", "h", "", false, Operation::kGetObject, "bkt", "my key"},
      {"GET", "/bkt/a+b", "h", "", false, Operation::kGetObject, "bkt", "a+b"},
      {"GET", "/bkt/k?response-content-type=text%2Fplain", "h", "", false, Operation::kGetObject,
       "bkt", "k"},
      {"HEAD", "/bkt/k", "h", "", false, Operation::kHeadObject, "bkt", "k"},
      {"DELETE", "/bkt/k", "h", "", false, Operation::kDeleteObject, "bkt", "k"},
      {"GET", "/bkt/k?acl", "h", "", false, Operation::kGetObjectAcl, "bkt", "k"},
      {"PUT", "/bkt/k?acl", "h", "", false, Operation::kPutObjectAcl, "bkt", "k"},
      // Access control (issue 13).
      {"GET", "/bkt?policy", "h", "", false, Operation::kGetBucketPolicy, "bkt", ""},
      {"PUT", "/bkt?policy", "h", "", false, Operation::kPutBucketPolicy, "bkt", ""},
      {"DELETE", "/bkt?policy", "h", "", false, Operation::kDeleteBucketPolicy, "bkt", ""},
      {"GET", "/bkt?policyStatus", "h", "", false, Operation::kGetBucketPolicyStatus, "bkt", ""},
      {"GET", "/bkt?ownershipControls", "h", "", false, Operation::kGetBucketOwnershipControls,
       "bkt", ""},
      {"PUT", "/bkt?ownershipControls", "h", "", false, Operation::kPutBucketOwnershipControls,
       "bkt", ""},
      {"DELETE", "/bkt?ownershipControls", "h", "", false,
       Operation::kDeleteBucketOwnershipControls, "bkt", ""},
      {"GET", "/bkt?publicAccessBlock", "h", "", false, Operation::kGetPublicAccessBlock, "bkt", ""},
      {"PUT", "/bkt?publicAccessBlock", "h", "", false, Operation::kPutPublicAccessBlock, "bkt", ""},
      {"DELETE", "/bkt?publicAccessBlock", "h", "", false, Operation::kDeletePublicAccessBlock,
       "bkt", ""},
      {"GET", "/bkt?lifecycle", "h", "", false, Operation::kGetBucketLifecycleConfiguration, "bkt",
       ""},
      {"PUT", "/bkt?lifecycle", "h", "", false, Operation::kPutBucketLifecycleConfiguration, "bkt",
       ""},
      {"DELETE", "/bkt?lifecycle", "h", "", false, Operation::kDeleteBucketLifecycle, "bkt", ""},
      {"POST", "/bkt?lifecycle", "h", "", false, Operation::kNotImplemented, "bkt", ""},
      {"GET", "/bkt?cors", "h", "", false, Operation::kGetBucketCors, "bkt", ""},
      {"PUT", "/bkt?cors", "h", "", false, Operation::kPutBucketCors, "bkt", ""},
      {"DELETE", "/bkt?cors", "h", "", false, Operation::kDeleteBucketCors, "bkt", ""},
      {"PUT", "/cors", "bkt.s3.local", "s3.local", false, Operation::kPutObject, "bkt", "cors"},
      {"PUT", "/?cors", "bkt.s3.local", "s3.local", false, Operation::kPutBucketCors, "bkt", ""},
      {"POST", "/bkt?cors", "h", "", false, Operation::kNotImplemented, "bkt", ""},
      {"GET", "/bkt?cors&acl", "h", "", false, Operation::kNotImplemented, "bkt", ""},
      {"GET", "/bkt/k?cors", "h", "", false, Operation::kNotImplemented, "bkt", "k"},
      // A preflight: OPTIONS on anything, whatever its query.
      {"OPTIONS", "/bkt", "h", "", false, Operation::kOptionsObject, "bkt", ""},
      {"OPTIONS", "/bkt/a/b?uploads", "h", "", false, Operation::kOptionsObject, "bkt", "a/b"},
      {"OPTIONS", "/k", "bkt.s3.local", "s3.local", false, Operation::kOptionsObject, "bkt", "k"},
      {"OPTIONS", "/", "h", "", false, Operation::kOptionsObject, "", ""},
      {"GET", "/bkt?lifecycle&acl", "h", "", false, Operation::kNotImplemented, "bkt", ""},
      {"GET", "/bkt/k?lifecycle", "h", "", false, Operation::kNotImplemented, "bkt", "k"},
      {"POST", "/bkt?policy", "h", "", false, Operation::kNotImplemented, "bkt", ""},
      {"GET", "/bkt?policy&acl", "h", "", false, Operation::kNotImplemented, "bkt", ""},
      {"GET", "/bkt/k?policy", "h", "", false, Operation::kNotImplemented, "bkt", "k"},
      {"GET", "/bkt/dir/", "h", "", false, Operation::kGetObject, "bkt", "dir/"},
      {"GET", "/bkt//k", "h", "", false, Operation::kGetObject, "bkt", "/k"},
      // Multipart and copy.
      {"GET", "/bkt/k?partNumber=2", "h", "", false, Operation::kGetObject, "bkt", "k"},
      {"HEAD", "/bkt/k?partNumber=2", "h", "", false, Operation::kHeadObject, "bkt", "k"},
      {"GET", "/bkt/k?partNumber=2&acl", "h", "", false, Operation::kNotImplemented, "bkt", "k"},
      {"GET", "/bkt?uploads", "h", "", false, Operation::kListMultipartUploads, "bkt", ""},
      {"POST", "/bkt?delete", "h", "", false, Operation::kDeleteObjects, "bkt", ""},
      {"PUT", "/bkt/k", "h", "", true, Operation::kCopyObject, "bkt", "k"},
      {"POST", "/bkt/k?uploads", "h", "", false, Operation::kCreateMultipartUpload, "bkt", "k"},
      {"PUT", "/bkt/k?partNumber=1&uploadId=u", "h", "", false, Operation::kUploadPart, "bkt",
       "k"},
      {"PUT", "/bkt/k?partNumber=1&uploadId=u", "h", "", true, Operation::kUploadPartCopy, "bkt",
       "k"},
      {"POST", "/bkt/k?uploadId=u", "h", "", false, Operation::kCompleteMultipartUpload, "bkt",
       "k"},
      {"DELETE", "/bkt/k?uploadId=u", "h", "", false, Operation::kAbortMultipartUpload, "bkt",
       "k"},
      {"GET", "/bkt/k?uploadId=u", "h", "", false, Operation::kListParts, "bkt", "k"},
      // Unsupported combinations.
      {"POST", "/bkt/k", "h", "", false, Operation::kNotImplemented, "bkt", "k"},
      {"POST", "/", "h", "", false, Operation::kNotImplemented, "", ""},
      // POST Object (browser forms): a POST on the bucket itself, path and virtual-hosted style.
      {"POST", "/bkt", "h", "", false, Operation::kPostObject, "bkt", ""},
      {"POST", "/bkt/", "h", "", false, Operation::kPostObject, "bkt", ""},
      {"POST", "/", "bkt.s3.local", "s3.local", false, Operation::kPostObject, "bkt", ""},
      {"PUT", "/", "h", "", false, Operation::kNotImplemented, "", ""},
      {"GET", "/bkt?acl&policy", "h", "", false, Operation::kNotImplemented, "bkt", ""},
      // Virtual-hosted-style.
      {"GET", "/", "bkt.s3.example.com", "s3.example.com", false, Operation::kListObjects, "bkt",
       ""},
      {"GET", "/a/b", "bkt.s3.example.com:9000", "s3.example.com", false, Operation::kGetObject,
       "bkt", "a/b"},
      {"PUT", "/", "My.Bkt.S3.Example.com", "s3.example.com", false, Operation::kCreateBucket,
       "my.bkt", ""},
      {"GET", "/", "s3.example.com", "s3.example.com", false, Operation::kListBuckets, "", ""},
      {"GET", "/bkt/k", "s3.example.com:80", "s3.example.com", false, Operation::kGetObject,
       "bkt", "k"},
      // Path-style still works when the host is something else.
      {"GET", "/bkt/k", "127.0.0.1:9000", "s3.example.com", false, Operation::kGetObject, "bkt",
       "k"},
      {"GET", "/bkt/k", "[::1]:9000", "s3.example.com", false, Operation::kGetObject, "bkt", "k"},
      // A domain that is only a suffix of the host label does not count.
      {"GET", "/bkt/k", "bkts3.example.com", "s3.example.com", false, Operation::kGetObject,
       "bkt", "k"},
  };
  for (const RouteCase& c : cases) {
    SCOPED_TRACE(c.method + " " + c.target + " host=" + c.host);
    Route r = RouteRequest(c.method, c.target, c.host, c.domain, c.copy_source);
    EXPECT_EQ(r.error, ErrorCode::kNone);
    EXPECT_EQ(OperationName(r.op), OperationName(c.op));
    EXPECT_EQ(r.bucket, c.bucket);
    EXPECT_EQ(r.key, c.key);
  }
}

// The bucket sub-resources cubby keeps no configuration for: one operation per call, each
// only on the bucket, alone (with another sub-resource, or on an object, NotImplemented); an id
// turns a GET of analytics, metrics, inventory or intelligent-tiering from List to Get.
TEST(RouterTest, UnconfiguredBucketSubResources) {
  struct Case {
    std::string method;
    std::string query;
    Operation op;
  };
  const std::vector<Case> cases = {
      {"GET", "website", Operation::kGetBucketWebsite},
      {"PUT", "website", Operation::kPutBucketWebsite},
      {"DELETE", "website", Operation::kDeleteBucketWebsite},
      {"GET", "logging", Operation::kGetBucketLogging},
      {"PUT", "logging", Operation::kPutBucketLogging},
      {"GET", "notification", Operation::kGetBucketNotificationConfiguration},
      {"PUT", "notification", Operation::kPutBucketNotificationConfiguration},
      {"GET", "requestPayment", Operation::kGetBucketRequestPayment},
      {"PUT", "requestPayment", Operation::kPutBucketRequestPayment},
      {"GET", "accelerate", Operation::kGetBucketAccelerateConfiguration},
      {"PUT", "accelerate", Operation::kPutBucketAccelerateConfiguration},
      {"GET", "replication", Operation::kGetBucketReplication},
      {"PUT", "replication", Operation::kPutBucketReplication},
      {"DELETE", "replication", Operation::kDeleteBucketReplication},
      {"GET", "encryption", Operation::kGetBucketEncryption},
      {"PUT", "encryption", Operation::kPutBucketEncryption},
      {"DELETE", "encryption", Operation::kDeleteBucketEncryption},
      {"GET", "analytics", Operation::kListBucketAnalyticsConfigurations},
      {"GET", "analytics&id=report", Operation::kGetBucketAnalyticsConfiguration},
      {"PUT", "analytics", Operation::kPutBucketAnalyticsConfiguration},
      {"DELETE", "analytics", Operation::kDeleteBucketAnalyticsConfiguration},
      {"GET", "metrics", Operation::kListBucketMetricsConfigurations},
      {"GET", "metrics&id=report", Operation::kGetBucketMetricsConfiguration},
      {"PUT", "metrics", Operation::kPutBucketMetricsConfiguration},
      {"DELETE", "metrics", Operation::kDeleteBucketMetricsConfiguration},
      {"GET", "inventory", Operation::kListBucketInventoryConfigurations},
      {"GET", "inventory&id=report", Operation::kGetBucketInventoryConfiguration},
      {"PUT", "inventory", Operation::kPutBucketInventoryConfiguration},
      {"DELETE", "inventory", Operation::kDeleteBucketInventoryConfiguration},
      {"GET", "intelligent-tiering", Operation::kListBucketIntelligentTieringConfigurations},
      {"GET", "intelligent-tiering&id=report", Operation::kGetBucketIntelligentTieringConfiguration},
      {"PUT", "intelligent-tiering", Operation::kPutBucketIntelligentTieringConfiguration},
      {"DELETE", "intelligent-tiering", Operation::kDeleteBucketIntelligentTieringConfiguration},
      {"DELETE", "analytics&id=report", Operation::kDeleteBucketAnalyticsConfiguration},
      {"PUT", "inventory&id=x", Operation::kPutBucketInventoryConfiguration},
      {"POST", "website", Operation::kNotImplemented},
      {"DELETE", "logging", Operation::kNotImplemented},
      {"DELETE", "requestPayment", Operation::kNotImplemented},
      {"GET", "website&acl", Operation::kNotImplemented},
      {"GET", "logging&versioning", Operation::kNotImplemented},
      {"GET", "id=x", Operation::kListObjects},  // id alone names nothing
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.method + " ?" + c.query);
    Route r = RouteRequest(c.method, "/bkt?" + c.query, "h", "", false);
    EXPECT_EQ(r.error, ErrorCode::kNone);
    EXPECT_EQ(r.op, c.op);
    EXPECT_EQ(r.bucket, "bkt");
    Route object = RouteRequest(c.method, "/bkt/k?" + c.query, "h", "", false);
    if (c.query != "id=x") {
      EXPECT_EQ(object.op, Operation::kNotImplemented);
    }
  }
  EXPECT_EQ(RouteRequest("GET", "/?website", "bkt.s3.local", "s3.local", false).op,
            Operation::kGetBucketWebsite);
}

// Sub-resources cubby does not implement route to kNotImplemented.
TEST(RouterTest, UnimplementedSubResources) {
  for (std::string sub : {"torrent", "restore", "select"}) {
    SCOPED_TRACE(sub);
    const char* method = std::string(sub) == "restore" || std::string(sub) == "select" ? "POST"
                                                                                     : "GET";
    EXPECT_EQ(RouteRequest(method, "/bkt/k?" + std::string(sub), "h", "", false).op,
              Operation::kNotImplemented);
    EXPECT_EQ(RouteRequest("PUT", "/bkt/k?" + std::string(sub), "h", "", false).op,
              Operation::kNotImplemented);
  }
  // PUT ?uploads on an object is not PutObject; ?versions on a bucket lists versions only
  // with GET; a versionId on a PUT of an object names nothing PutObject takes.
  EXPECT_EQ(RouteRequest("PUT", "/bkt/k?uploads", "h", "", false).op,
            Operation::kNotImplemented);
  EXPECT_EQ(RouteRequest("PUT", "/bkt?versions", "h", "", false).op,
            Operation::kNotImplemented);
  EXPECT_EQ(RouteRequest("PUT", "/bkt/k?versionId=abc", "h", "", false).op,
            Operation::kNotImplemented);
}

// versionId on the object operations that take it, the versioning and versions sub-resources,
// and their malformed parameters.
TEST(RouterTest, Versions) {
  EXPECT_EQ(RouteRequest("PUT", "/bkt?versioning", "h", "", false).op,
            Operation::kPutBucketVersioning);
  Route list = RouteRequest(
      "GET", "/bkt?versions&prefix=p&key-marker=k1&version-id-marker=v1&max-keys=5", "h", "",
      false);
  EXPECT_EQ(list.op, Operation::kListObjectVersions);
  EXPECT_EQ(list.list.prefix, "p");
  EXPECT_EQ(list.list.key_marker, "k1");
  EXPECT_EQ(list.list.version_id_marker, "v1");
  EXPECT_EQ(list.list.max_entries, 5u);
  EXPECT_EQ(list.param_error.code, ErrorCode::kNone);
  Route no_key_marker = RouteRequest("GET", "/bkt?versions&version-id-marker=v1", "h", "", false);
  EXPECT_EQ(no_key_marker.param_error.code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(no_key_marker.param_error.message,
            "A version-id marker cannot be specified without a key marker.");
  struct Case {
    std::string method, target;
    Operation op;
  };
  for (const Case& c : std::vector<Case>{
           {"GET", "/bkt/k?versionId=abc", Operation::kGetObject},
           {"HEAD", "/bkt/k?versionId=abc", Operation::kHeadObject},
           {"DELETE", "/bkt/k?versionId=abc", Operation::kDeleteObject},
           {"GET", "/bkt/k?acl&versionId=abc", Operation::kGetObjectAcl},
           {"PUT", "/bkt/k?acl&versionId=abc", Operation::kPutObjectAcl},
           {"GET", "/bkt/k?versionId=abc&partNumber=1", Operation::kGetObject},
           {"GET", "/bkt/k?retention&versionId=abc", Operation::kGetObjectRetention},
           {"PUT", "/bkt/k?retention&versionId=abc", Operation::kPutObjectRetention},
           {"GET", "/bkt/k?legal-hold&versionId=abc", Operation::kGetObjectLegalHold},
           {"PUT", "/bkt/k?legal-hold&versionId=abc", Operation::kPutObjectLegalHold}}) {
    SCOPED_TRACE(c.method + " " + c.target);
    Route r = RouteRequest(c.method, c.target, "h", "", false);
    EXPECT_EQ(r.op, c.op);
    ASSERT_TRUE(r.version_id.has_value());
    EXPECT_EQ(*r.version_id, "abc");
  }
  Route empty = RouteRequest("DELETE", "/bkt/k?versionId=", "h", "", false);
  EXPECT_EQ(empty.op, Operation::kDeleteObject);
  EXPECT_FALSE(empty.version_id.has_value());
  EXPECT_EQ(empty.param_error.code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(empty.param_error.message, "Version id cannot be the empty string");
  EXPECT_FALSE(RouteRequest("GET", "/bkt/k", "h", "", false).version_id.has_value());
}

// Object lock: ?object-lock on a bucket, ?retention and ?legal-hold on an object (the latest
// version without versionId); any other sub-resource beside them, or another method, is not
// implemented.
TEST(RouterTest, ObjectLock) {
  struct Case {
    std::string method, target;
    Operation op;
  };
  for (const Case& c : std::vector<Case>{
           {"GET", "/bkt?object-lock", Operation::kGetObjectLockConfiguration},
           {"PUT", "/bkt?object-lock", Operation::kPutObjectLockConfiguration},
           {"GET", "/bkt/k?retention", Operation::kGetObjectRetention},
           {"PUT", "/bkt/k?retention", Operation::kPutObjectRetention},
           {"GET", "/bkt/k?legal-hold", Operation::kGetObjectLegalHold},
           {"PUT", "/bkt/k?legal-hold", Operation::kPutObjectLegalHold},
           {"DELETE", "/bkt?object-lock", Operation::kNotImplemented},
           {"DELETE", "/bkt/k?retention", Operation::kNotImplemented},
           {"POST", "/bkt/k?legal-hold", Operation::kNotImplemented},
           {"GET", "/bkt?object-lock&acl", Operation::kNotImplemented},
           {"GET", "/bkt/k?retention&legal-hold", Operation::kNotImplemented},
           {"PUT", "/bkt/k?retention&tagging", Operation::kNotImplemented},
           // Tagging: objects (with versionId) and buckets; nothing else beside it.
           {"GET", "/bkt/k?tagging", Operation::kGetObjectTagging},
           {"GET", "/bkt/k?attributes", Operation::kGetObjectAttributes},
           {"PUT", "/bkt/k?attributes", Operation::kNotImplemented},
           {"GET", "/bkt/k?attributes&partNumber=1", Operation::kNotImplemented},
           {"PUT", "/bkt/k?tagging", Operation::kPutObjectTagging},
           {"DELETE", "/bkt/k?tagging", Operation::kDeleteObjectTagging},
           {"GET", "/bkt?tagging", Operation::kGetBucketTagging},
           {"PUT", "/bkt?tagging", Operation::kPutBucketTagging},
           {"DELETE", "/bkt?tagging", Operation::kDeleteBucketTagging},
           {"POST", "/bkt/k?tagging", Operation::kNotImplemented},
           {"GET", "/bkt/k?tagging&acl", Operation::kNotImplemented},
           {"GET", "/bkt/k?partNumber=1&tagging", Operation::kNotImplemented},
           {"PUT", "/bkt?tagging&versionId=x", Operation::kNotImplemented}}) {
    SCOPED_TRACE(c.method + " " + c.target);
    Route r = RouteRequest(c.method, c.target, "h", "", false);
    EXPECT_EQ(r.op, c.op);
    EXPECT_FALSE(r.version_id.has_value());
    EXPECT_EQ(r.param_error.code, ErrorCode::kNone);
  }
  {
    // GetObjectAttributes takes a versionId.
    Route r = RouteRequest("GET", "/bkt/k?attributes&versionId=abc", "h", "", false);
    EXPECT_EQ(r.op, Operation::kGetObjectAttributes);
    EXPECT_EQ(r.version_id, "abc");
    EXPECT_EQ(OperationName(r.op), "GetObjectAttributes");
  }
  EXPECT_EQ(OperationName(Operation::kPutObjectLockConfiguration), "PutObjectLockConfiguration");
  EXPECT_EQ(OperationName(Operation::kGetObjectLegalHold), "GetObjectLegalHold");
  for (const char* target : {"/bkt/k?retention&versionId=", "/bkt/k?legal-hold&versionId="}) {
    Route empty = RouteRequest("PUT", target, "h", "", false);
    EXPECT_EQ(empty.param_error.code, ErrorCode::kInvalidArgument) << target;
    EXPECT_EQ(empty.param_error.message, "Version id cannot be the empty string");
  }
}

TEST(RouterTest, Errors) {
  struct Case {
    std::string method, target;
    ErrorCode error;
  };
  const std::vector<Case> cases = {
      {"GET", "/bkt/bad%zzkey", ErrorCode::kInvalidURI},
      {"GET", "/bkt/trunc%4", ErrorCode::kInvalidURI},
      {"GET", "/bkt/trunc%", ErrorCode::kInvalidURI},
      {"GET", "/bkt?prefix=%g1", ErrorCode::kInvalidURI},
      {"GET", "bkt/k", ErrorCode::kInvalidURI},
      {"GET", "", ErrorCode::kInvalidURI},
      {"GET", "/bkt/" + std::string(1025, 'k'), ErrorCode::kKeyTooLongError},
      {"PATCH", "/bkt/k", ErrorCode::kMethodNotAllowed},
      // Keys that are not UTF-8, escaped or raw, on every route that can create or read one.
      {"PUT", "/bkt/%FF%FE", ErrorCode::kInvalidURI},
      {"PUT", "/bkt/a/%C0%AF", ErrorCode::kInvalidURI},  // overlong '/'
      {"GET", "/bkt/%ED%A0%80", ErrorCode::kInvalidURI},  // a UTF-16 surrogate
      {"HEAD", "/bkt/%F4%90%80%80", ErrorCode::kInvalidURI},
      {"POST", "/bkt/caf%C3?uploads", ErrorCode::kInvalidURI},  // truncated
      {"PUT", "/bkt/k\xFF?uploadId=u&partNumber=1", ErrorCode::kInvalidURI},
      {"GET", "/bkt/%FF?uploadId=u", ErrorCode::kInvalidURI},
      {"DELETE", "/bkt/%FF?uploadId=u", ErrorCode::kInvalidURI},
      // Control characters are UTF-8 and allowed, as AWS allows them.
      {"PUT", "/bkt/a%01b%1Fc%7Fd%0De", ErrorCode::kNone},
      {"PUT", "/bkt/caf%C3%A9%F0%9F%98%80", ErrorCode::kNone},
      // DeleteObject stays open so a key stored before the rule can be removed.
      {"DELETE", "/bkt/%FF%FE", ErrorCode::kNone},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.method + " " + c.target.substr(0, 40));
    EXPECT_EQ(RouteRequest(c.method, c.target, "h", "", false).error, c.error);
  }
  // A copy's destination is the path's key: CopyObject and UploadPartCopy are refused too.
  EXPECT_EQ(RouteRequest("PUT", "/bkt/%FF", "h", "", true).error, ErrorCode::kInvalidURI);
  EXPECT_EQ(RouteRequest("PUT", "/%FF", "bkt.example.com", "example.com", false).error,
            ErrorCode::kInvalidURI);
  // Exactly 1024 bytes is allowed; the limit counts decoded bytes.
  EXPECT_EQ(RouteRequest("GET", "/bkt/" + std::string(1024, 'k'), "h", "", false).error,
            ErrorCode::kNone);
  std::string encoded;
  for (int i = 0; i < 400; ++i) encoded += "%C3%A9";  // 800 decoded bytes, 2400 encoded
  EXPECT_EQ(RouteRequest("GET", "/bkt/" + encoded, "h", "", false).error, ErrorCode::kNone);
}

// The parameters each operation gets, parsed. A field a case does not name keeps its default.
TEST(RouterTest, TypedParameters) {
  struct Case {
    std::string method, target;
    Operation op;
    std::function<void(const Route&)> check;
  };
  const std::vector<Case> cases = {
      {"GET", "/bkt?prefix=a%2Fb+c&delimiter=%2F&marker=m&max-keys=5&encoding-type=url",
       Operation::kListObjects,
       [](const Route& r) {
         EXPECT_EQ(r.list.prefix, "a/b c");
         EXPECT_EQ(r.list.delimiter, "/");
         EXPECT_EQ(r.list.marker, "m");
         EXPECT_EQ(r.list.max_entries, 5u);
         EXPECT_TRUE(r.list.url_encode);
       }},
      {"GET", "/bkt", Operation::kListObjects,
       [](const Route& r) {
         EXPECT_EQ(r.list.max_entries, 1000u);
         EXPECT_FALSE(r.list.url_encode);
         EXPECT_EQ(r.list.prefix, "");
       }},
      {"GET", "/bkt?max-keys=0", Operation::kListObjects,
       [](const Route& r) { EXPECT_EQ(r.list.max_entries, 0u); }},
      {"GET", "/bkt?max-keys=007", Operation::kListObjects,
       [](const Route& r) { EXPECT_EQ(r.list.max_entries, 7u); }},
      {"GET", "/bkt?max-keys=1000", Operation::kListObjects,
       [](const Route& r) { EXPECT_EQ(r.list.max_entries, 1000u); }},
      {"GET", "/bkt?max-keys=1001", Operation::kListObjects,
       [](const Route& r) { EXPECT_EQ(r.list.max_entries, 1000u); }},
      {"GET", "/bkt?max-keys=99999999999999999999999", Operation::kListObjects,
       [](const Route& r) { EXPECT_EQ(r.list.max_entries, 1000u); }},
      // A repeated parameter counts by its first value.
      {"GET", "/bkt?prefix=a&prefix=b&max-keys=2&max-keys=x", Operation::kListObjects,
       [](const Route& r) {
         EXPECT_EQ(r.list.prefix, "a");
         EXPECT_EQ(r.list.max_entries, 2u);
       }},
      // "azE=" is base64 of "k1": the token decides where listing starts, not start-after.
      {"GET", "/bkt?list-type=2&continuation-token=azE%3D&start-after=s&fetch-owner=true",
       Operation::kListObjectsV2,
       [](const Route& r) {
         EXPECT_EQ(r.list.continuation_token, std::optional<std::string>("azE="));
         EXPECT_EQ(r.list.start_after, std::optional<std::string>("s"));
         EXPECT_EQ(r.list.start_key, "k1");
         EXPECT_TRUE(r.list.fetch_owner);
       }},
      {"GET", "/bkt?list-type=2&start-after=s&fetch-owner", Operation::kListObjectsV2,
       [](const Route& r) {
         EXPECT_EQ(r.list.continuation_token, std::nullopt);
         EXPECT_EQ(r.list.start_key, "s");
         EXPECT_FALSE(r.list.fetch_owner);
       }},
      // An empty token starts nowhere (start-after decides) but is echoed as sent.
      {"GET", "/bkt?list-type=2&continuation-token=&start-after=s", Operation::kListObjectsV2,
       [](const Route& r) {
         EXPECT_EQ(r.param_error.code, ErrorCode::kNone);
         EXPECT_EQ(r.list.continuation_token, std::optional<std::string>(""));
         EXPECT_EQ(r.list.start_key, "s");
       }},
      {"GET", "/bkt?list-type=2&start-after=", Operation::kListObjectsV2,
       [](const Route& r) { EXPECT_EQ(r.list.start_after, std::optional<std::string>("")); }},
      {"GET", "/bkt?uploads&key-marker=k&upload-id-marker=u&max-uploads=3&prefix=p&delimiter=/",
       Operation::kListMultipartUploads,
       [](const Route& r) {
         EXPECT_EQ(r.list.key_marker, "k");
         EXPECT_EQ(r.list.upload_id_marker, "u");
         EXPECT_EQ(r.list.max_entries, 3u);
         EXPECT_EQ(r.list.prefix, "p");
         EXPECT_EQ(r.list.delimiter, "/");
       }},
      // Without a key-marker AWS ignores upload-id-marker; max-keys is not this list's size.
      {"GET", "/bkt?uploads&upload-id-marker=u&max-keys=abc", Operation::kListMultipartUploads,
       [](const Route& r) {
         EXPECT_EQ(r.list.upload_id_marker, "");
         EXPECT_EQ(r.list.max_entries, 1000u);
       }},
      {"GET", "/bkt/k?uploadId=u&max-parts=2&part-number-marker=7", Operation::kListParts,
       [](const Route& r) {
         EXPECT_EQ(r.upload_id, "u");
         EXPECT_EQ(r.list.max_entries, 2u);
         EXPECT_EQ(r.list.part_number_marker, 7u);
       }},
      {"GET", "/bkt/k?uploadId=u&part-number-marker=10000&max-parts=5000", Operation::kListParts,
       [](const Route& r) {
         EXPECT_EQ(r.list.part_number_marker, 10000u);
         EXPECT_EQ(r.list.max_entries, 1000u);
       }},
      {"PUT", "/bkt/k?partNumber=10000&uploadId=u%2B1", Operation::kUploadPart,
       [](const Route& r) {
         EXPECT_EQ(r.part_number, std::optional<uint32_t>(10000));
         EXPECT_EQ(r.upload_id, "u+1");
       }},
      {"PUT", "/bkt/k?partNumber=1&uploadId=u", Operation::kUploadPart,
       [](const Route& r) { EXPECT_EQ(r.part_number, std::optional<uint32_t>(1)); }},
      {"POST", "/bkt/k?uploadId=abc", Operation::kCompleteMultipartUpload,
       [](const Route& r) { EXPECT_EQ(r.upload_id, "abc"); }},
      {"DELETE", "/bkt/k?uploadId=abc", Operation::kAbortMultipartUpload,
       [](const Route& r) { EXPECT_EQ(r.upload_id, "abc"); }},
      {"GET", "/bkt/k?partNumber=3", Operation::kGetObject,
       [](const Route& r) {
         EXPECT_EQ(r.part_number, std::optional<uint32_t>(3));
         EXPECT_TRUE(r.part_number_sent);
         EXPECT_FALSE(r.overrides.any());
       }},
      {"HEAD", "/bkt/k", Operation::kHeadObject,
       [](const Route& r) {
         EXPECT_EQ(r.part_number, std::nullopt);
         EXPECT_FALSE(r.part_number_sent);
       }},
      {"GET", "/bkt/k?response-content-type=text%2Fplain&response-expires=", Operation::kGetObject,
       [](const Route& r) {
         EXPECT_TRUE(r.overrides.any());
         EXPECT_EQ(r.overrides.content_type, std::optional<std::string>("text/plain"));
         EXPECT_EQ(r.overrides.expires, std::optional<std::string>(""));
         EXPECT_EQ(r.overrides.cache_control, std::nullopt);
       }},
      {"GET",
       "/bkt/k?response-cache-control=no-cache&response-content-disposition=a"
       "&response-content-encoding=gzip&response-content-language=fr",
       Operation::kGetObject,
       [](const Route& r) {
         EXPECT_EQ(r.overrides.cache_control, std::optional<std::string>("no-cache"));
         EXPECT_EQ(r.overrides.content_disposition, std::optional<std::string>("a"));
         EXPECT_EQ(r.overrides.content_encoding, std::optional<std::string>("gzip"));
         EXPECT_EQ(r.overrides.content_language, std::optional<std::string>("fr"));
       }},
      // Only the operation's own parameters are read: response-* on a PUT are ignored.
      {"PUT", "/bkt/k?response-content-type=x", Operation::kPutObject,
       [](const Route& r) { EXPECT_FALSE(r.overrides.any()); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.method + " " + c.target);
    Route r = RouteRequest(c.method, c.target, "h", "", false);
    ASSERT_EQ(r.error, ErrorCode::kNone);
    EXPECT_EQ(OperationName(r.op), OperationName(c.op));
    EXPECT_EQ(r.param_error.code, ErrorCode::kNone) << r.param_error.message;
    c.check(r);
  }
}

// Every malformed value is refused at routing, with AWS's error and message; the first one of
// an operation wins. The route is still the operation's (the service answers the error after
// authorization).
TEST(RouterTest, MalformedParameters) {
  const std::string part = "Part number must be an integer between 1 and 10000, inclusive";
  const std::string max_keys = "Provided max-keys not an integer or within integer range";
  const std::string max_uploads = "Provided max-uploads not an integer or within integer range";
  const std::string max_parts = "Provided max-parts not an integer or within integer range";
  const std::string marker = "Provided part-number-marker not an integer or within integer range";
  const std::string encoding = "Invalid Encoding Method specified in Request";
  const std::string token = "The continuation token provided is incorrect";
  struct Case {
    std::string method, target;
    Operation op;
    std::string message;
  };
  std::vector<Case> cases;
  for (std::string bad : {"0", "10001", "abc", "-1", "+1", "", "%201", "1.5", "1e3", "0x10",
                          "4294967297", "99999999999999999999999"}) {
    cases.push_back({"PUT", "/bkt/k?uploadId=u&partNumber=" + bad, Operation::kUploadPart, part});
    cases.push_back({"GET", "/bkt/k?partNumber=" + bad, Operation::kGetObject, part});
    cases.push_back({"HEAD", "/bkt/k?partNumber=" + bad, Operation::kHeadObject, part});
  }
  for (std::string bad : {"abc", "-1", "", "1x", "1.5", "%205", "+5"}) {
    cases.push_back({"GET", "/bkt?max-keys=" + bad, Operation::kListObjects, max_keys});
    cases.push_back(
        {"GET", "/bkt?list-type=2&max-keys=" + bad, Operation::kListObjectsV2, max_keys});
    cases.push_back(
        {"GET", "/bkt?uploads&max-uploads=" + bad, Operation::kListMultipartUploads, max_uploads});
    cases.push_back(
        {"GET", "/bkt/k?uploadId=u&max-parts=" + bad, Operation::kListParts, max_parts});
  }
  for (std::string bad : {"10001", "-1", "abc", "", "99999999999999999999999"}) {
    cases.push_back(
        {"GET", "/bkt/k?uploadId=u&part-number-marker=" + bad, Operation::kListParts, marker});
  }
  for (std::string bad : {"URL", "base64", "", "url2"}) {
    cases.push_back({"GET", "/bkt?encoding-type=" + bad, Operation::kListObjects, encoding});
    cases.push_back(
        {"GET", "/bkt?list-type=2&encoding-type=" + bad, Operation::kListObjectsV2, encoding});
    cases.push_back(
        {"GET", "/bkt?uploads&encoding-type=" + bad, Operation::kListMultipartUploads, encoding});
  }
  for (std::string bad : {"%25%25", "abc", "a===", "az E="}) {
    cases.push_back(
        {"GET", "/bkt?list-type=2&continuation-token=" + bad, Operation::kListObjectsV2, token});
  }
  // The first malformed parameter, in the order the handlers checked them.
  cases.push_back({"GET", "/bkt?encoding-type=x&max-keys=x", Operation::kListObjects, max_keys});
  cases.push_back({"GET", "/bkt?list-type=2&continuation-token=&encoding-type=x",
                   Operation::kListObjectsV2, encoding});
  cases.push_back({"GET", "/bkt?encoding-type=x&uploads&max-uploads=x",
                   Operation::kListMultipartUploads, max_uploads});
  cases.push_back({"GET", "/bkt/k?part-number-marker=x&uploadId=u&max-parts=x",
                   Operation::kListParts, max_parts});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.method + " " + c.target);
    Route r = RouteRequest(c.method, c.target, "h", "", false);
    EXPECT_EQ(r.error, ErrorCode::kNone);
    EXPECT_EQ(OperationName(r.op), OperationName(c.op));
    EXPECT_EQ(r.param_error.code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(r.param_error.message, c.message);
    EXPECT_EQ(r.part_number, std::nullopt);
  }
  Route copy = RouteRequest("PUT", "/bkt/k?partNumber=0&uploadId=u", "h", "", true);
  EXPECT_EQ(copy.op, Operation::kUploadPartCopy);
  EXPECT_EQ(copy.param_error.message, part);
  // GetObject knows a partNumber was sent even when it is malformed (Range + partNumber is
  // InvalidRequest before the value is looked at).
  EXPECT_TRUE(RouteRequest("GET", "/bkt/k?partNumber=x", "h", "", false).part_number_sent);
}

TEST(RouterTest, EveryOperationHasAName) {
  for (int i = 0; i <= static_cast<int>(Operation::kNotImplemented); ++i) {
    std::string_view name = OperationName(static_cast<Operation>(i));
    EXPECT_FALSE(name.empty());
    EXPECT_NE(name, "Unknown");
  }
}

// virtual_host tells SigV2 to sign "/<bucket>" + path: set exactly when the Host named it.
TEST(RouterTest, VirtualHostFlag) {
  struct Case {
    std::string target, host;
    bool virtual_host;
  };
  for (const Case& c : std::vector<Case>{{"/k", "bkt.s3.example.com", true},
                                         {"/", "bkt.s3.example.com:9000", true},
                                         {"/bkt/k", "s3.example.com", false},
                                         {"/bkt/k", "127.0.0.1:9000", false},
                                         {"/bkt/k", "bkts3.example.com", false}}) {
    SCOPED_TRACE(c.host + c.target);
    EXPECT_EQ(RouteRequest("GET", c.target, c.host, "s3.example.com", false).virtual_host,
              c.virtual_host);
  }
}

}  // namespace
}  // namespace cubby::s3api
