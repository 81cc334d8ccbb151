#include "s3api/router.h"

#include <gtest/gtest.h>

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

// Every sub-resource cubby does not implement routes to kNotImplemented, on buckets and objects.
TEST(RouterTest, UnimplementedSubResources) {
  const std::vector<std::string> subresources = {
      "policy",       "cors",          "lifecycle",         "tagging",
      "website",      "encryption",    "object-lock",       "replication",
      "logging",      "notification",  "accelerate",        "requestPayment",
      "ownershipControls", "publicAccessBlock", "analytics", "inventory",
      "metrics",      "intelligent-tiering", "versions",    "policyStatus"};
  for (std::string method : {"GET", "PUT", "DELETE"}) {
    for (const std::string& sub : subresources) {
      SCOPED_TRACE(method + " ?" + sub);
      Route r = RouteRequest(method, "/bkt?" + sub, "h", "", false);
      EXPECT_EQ(r.error, ErrorCode::kNone);
      EXPECT_EQ(r.op, Operation::kNotImplemented);
    }
  }
  for (std::string sub : {"tagging", "retention", "legal-hold", "torrent", "attributes",
                                 "restore", "select", "versionId=abc"}) {
    SCOPED_TRACE(sub);
    const char* method = std::string(sub) == "restore" || std::string(sub) == "select" ? "POST"
                                                                                     : "GET";
    EXPECT_EQ(RouteRequest(method, "/bkt/k?" + std::string(sub), "h", "", false).op,
              Operation::kNotImplemented);
    EXPECT_EQ(RouteRequest("PUT", "/bkt/k?" + std::string(sub), "h", "", false).op,
              Operation::kNotImplemented);
  }
  // PUT ?uploads on a bucket and PUT ?versioning are not PutObject/CreateBucket.
  EXPECT_EQ(RouteRequest("PUT", "/bkt?versioning", "h", "", false).op,
            Operation::kNotImplemented);
  EXPECT_EQ(RouteRequest("PUT", "/bkt/k?uploads", "h", "", false).op,
            Operation::kNotImplemented);
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
      {"OPTIONS", "/bkt", ErrorCode::kMethodNotAllowed},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.method + " " + c.target.substr(0, 40));
    EXPECT_EQ(RouteRequest(c.method, c.target, "h", "", false).error, c.error);
  }
  // Exactly 1024 bytes is allowed; the limit counts decoded bytes.
  EXPECT_EQ(RouteRequest("GET", "/bkt/" + std::string(1024, 'k'), "h", "", false).error,
            ErrorCode::kNone);
  std::string encoded;
  for (int i = 0; i < 400; ++i) encoded += "%C3%A9";  // 800 decoded bytes, 2400 encoded
  EXPECT_EQ(RouteRequest("GET", "/bkt/" + encoded, "h", "", false).error, ErrorCode::kNone);
}

TEST(RouterTest, QueryParamsDecodedInOrder) {
  Route r = RouteRequest("GET", "/bkt?list-type=2&prefix=a%2Fb+c&delimiter=%2F&fetch-owner&x=",
                         "h", "", false);
  ASSERT_EQ(r.error, ErrorCode::kNone);
  ASSERT_EQ(r.params.size(), 5u);
  EXPECT_EQ(r.params[0], (std::pair<std::string, std::string>{"list-type", "2"}));
  EXPECT_EQ(r.params[1], (std::pair<std::string, std::string>{"prefix", "a/b c"}));
  EXPECT_EQ(r.params[2], (std::pair<std::string, std::string>{"delimiter", "/"}));
  EXPECT_EQ(r.params[3], (std::pair<std::string, std::string>{"fetch-owner", ""}));
  EXPECT_EQ(r.params[4], (std::pair<std::string, std::string>{"x", ""}));
  EXPECT_TRUE(r.Has("fetch-owner"));
  EXPECT_FALSE(r.Has("marker"));
  ASSERT_NE(r.Param("prefix"), nullptr);
  EXPECT_EQ(*r.Param("prefix"), "a/b c");
  EXPECT_EQ(r.path, "/bkt");
}

TEST(RouterTest, PercentDecode) {
  std::string out;
  EXPECT_TRUE(PercentDecode("a%2Fb%2fc+d", false, &out));
  EXPECT_EQ(out, "a/b/c+d");
  EXPECT_TRUE(PercentDecode("a+b", true, &out));
  EXPECT_EQ(out, "a b");
  EXPECT_FALSE(PercentDecode("%", false, &out));
  EXPECT_FALSE(PercentDecode("%1", false, &out));
  EXPECT_FALSE(PercentDecode("%x1", false, &out));
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
