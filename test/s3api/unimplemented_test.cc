// Requests asking for server-side encryption: RefuseUnimplemented's table over
// every operation, then through S3Service::Handle (refused after authorization, before the body
// is read, nothing stored).
#include "s3api/unimplemented.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "test/s3api/service_fixture.h"

namespace cubby::s3api {
namespace {

using namespace test_support;  // NOLINT: the fixture

constexpr char kSse[] = "Server-side encryption is not implemented by cubby";
constexpr char kBadMethod[] = "The encryption method specified is not supported";

const std::vector<Operation> kWrites = {Operation::kPutObject, Operation::kCopyObject,
                                        Operation::kCreateMultipartUpload};
const std::vector<Operation> kCustomerKeyCalls = {
    Operation::kPutObject,  Operation::kCopyObject,     Operation::kCreateMultipartUpload,
    Operation::kUploadPart, Operation::kUploadPartCopy, Operation::kCompleteMultipartUpload,
    Operation::kListParts,  Operation::kGetObject,      Operation::kHeadObject};
const std::vector<Operation> kCopies = {Operation::kCopyObject, Operation::kUploadPartCopy};

struct Case {
  std::string header;
  std::string value;
  std::vector<Operation> refused_on;  // every other operation ignores the header
  ErrorCode code;                     // on those
  std::string message;                // exact, on those
};

std::string Sse(const std::string& header) { return std::string(kSse) + " (" + header + ")."; }

TEST(RefuseUnimplementedTest, EachHeaderOnEachOperation) {
  const std::string sse = "x-amz-server-side-encryption";
  const std::string ssec = "x-amz-server-side-encryption-customer-";
  const std::string copy_ssec = "x-amz-copy-source-server-side-encryption-customer-";
  const std::string bucket_key = "x-amz-server-side-encryption-bucket-key-enabled";
  const std::string lock_enabled = "x-amz-bucket-object-lock-enabled";
  const std::vector<Case> cases = {
      {sse, "AES256", kWrites, ErrorCode::kNotImplemented, Sse(sse)},
      {sse, "aws:kms", kWrites, ErrorCode::kNotImplemented, Sse(sse)},
      {sse, "aws:kms:dsse", kWrites, ErrorCode::kNotImplemented, Sse(sse)},
      {sse, "aws:fsx", kWrites, ErrorCode::kNotImplemented, Sse(sse)},
      {sse, "aes256", kWrites, ErrorCode::kInvalidArgument, kBadMethod},  // case matters
      {sse, "DES", kWrites, ErrorCode::kInvalidArgument, kBadMethod},
      {sse, "", kWrites, ErrorCode::kInvalidArgument, kBadMethod},
      {sse + "-aws-kms-key-id", "alias/k", kWrites, ErrorCode::kNotImplemented,
       Sse(sse + "-aws-kms-key-id")},
      {sse + "-context", "e30=", kWrites, ErrorCode::kNotImplemented, Sse(sse + "-context")},
      {bucket_key, "true", kWrites, ErrorCode::kNotImplemented, Sse(bucket_key)},
      {bucket_key, "false", {}, ErrorCode::kNone, ""},
      {bucket_key, "FALSE", {}, ErrorCode::kNone, ""},
      {ssec + "algorithm", "AES256", kCustomerKeyCalls, ErrorCode::kNotImplemented,
       Sse(ssec + "algorithm")},
      {ssec + "key", "a2V5", kCustomerKeyCalls, ErrorCode::kNotImplemented, Sse(ssec + "key")},
      {ssec + "key-md5", "bWQ1", kCustomerKeyCalls, ErrorCode::kNotImplemented,
       Sse(ssec + "key-md5")},
      {copy_ssec + "algorithm", "AES256", kCopies, ErrorCode::kNotImplemented,
       Sse(copy_ssec + "algorithm")},
      {copy_ssec + "key", "a2V5", kCopies, ErrorCode::kNotImplemented, Sse(copy_ssec + "key")},
      {copy_ssec + "key-md5", "bWQ1", kCopies, ErrorCode::kNotImplemented,
       Sse(copy_ssec + "key-md5")},
      // Object lock is implemented (object_lock.cc): its headers ask for nothing here.
      {"x-amz-object-lock-mode", "GOVERNANCE", {}, ErrorCode::kNone, ""},
      {"x-amz-object-lock-retain-until-date", "2030-01-01T00:00:00Z", {}, ErrorCode::kNone, ""},
      {"x-amz-object-lock-legal-hold", "ON", {}, ErrorCode::kNone, ""},
      {lock_enabled, "true", {}, ErrorCode::kNone, ""},
      {"x-amz-storage-class", "STANDARD", {}, ErrorCode::kNone, ""},
  };
  for (const Case& c : cases) {
    HttpRequest request;
    request.headers = {{"content-type", "text/plain"}, {c.header, c.value}};
    for (int i = 0; i <= static_cast<int>(Operation::kNotImplemented); ++i) {
      const Operation op = static_cast<Operation>(i);
      const bool refused =
          std::find(c.refused_on.begin(), c.refused_on.end(), op) != c.refused_on.end();
      const Refusal refusal = RefuseUnimplemented(op, request);
      SCOPED_TRACE(c.header + ": " + c.value + " on " + std::string(OperationName(op)));
      EXPECT_EQ(refusal.code, refused ? c.code : ErrorCode::kNone);
      EXPECT_EQ(refusal.message, refused ? c.message : "");
    }
  }
}

TEST(RefuseUnimplementedTest, NoHeadersAskForNothing) {
  HttpRequest request;
  request.headers = {{"x-amz-acl", "private"}, {"x-amz-meta-server-side-encryption", "AES256"}};
  for (int i = 0; i <= static_cast<int>(Operation::kNotImplemented); ++i) {
    EXPECT_EQ(RefuseUnimplemented(static_cast<Operation>(i), request).code, ErrorCode::kNone);
  }
}

// An invalid method wins over the headers after it in the table: the request is malformed.
TEST(RefuseUnimplementedTest, FirstHeaderInTheTableDecides) {
  HttpRequest request;
  request.headers = {{"x-amz-object-lock-mode", "GOVERNANCE"},
                     {"x-amz-server-side-encryption", "DES"}};
  EXPECT_EQ(RefuseUnimplemented(Operation::kPutObject, request).code, ErrorCode::kInvalidArgument);
  request.headers[1].value = "AES256";
  EXPECT_EQ(RefuseUnimplemented(Operation::kPutObject, request).message,
            Sse("x-amz-server-side-encryption"));
}

// ---- Through the service

const Header kCustomerKey{"x-amz-server-side-encryption-customer-algorithm", "AES256"};
const Header kCopySourceKey{"x-amz-copy-source-server-side-encryption-customer-algorithm",
                            "AES256"};

class UnimplementedTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    MakeBucket("bkt");
    MakeBucket("shared");
    ASSERT_EQ(Put("/bkt/src", "plain").status(), 200);
  }
  Reply Call(std::string method, std::string path, std::string query, std::vector<Header> headers,
             std::string body = "", std::string key_id = kRootId) {
    Req r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.query = std::move(query);
    r.headers = std::move(headers);
    r.body = std::move(body);
    r.key_id = std::move(key_id);
    return Send(std::move(r));
  }
  static void ExpectRefused(const Reply& r, std::string_view message) {
    EXPECT_EQ(r.status(), 501) << r.body;
    EXPECT_EQ(r.Code(), "NotImplemented");
    EXPECT_TRUE(Contains(r.body, "<Message>" + std::string(message) + " (")) << r.body;
    EXPECT_EQ(r.summary.error, "NotImplemented");
    EXPECT_EQ(r.summary.bytes_in, 0u);  // refused before the body was read
  }
  std::string NewUpload() {
    Reply r = Call("POST", "/bkt/mp", "uploads", {});
    EXPECT_EQ(r.status(), 200) << r.body;
    return Tag(r.body, "UploadId");
  }
};

TEST_F(UnimplementedTest, PutObjectStoresNothing) {
  const std::vector<std::pair<Header, std::string>> asks = {
      {{"x-amz-server-side-encryption", "AES256"}, kSse},
      {{"x-amz-server-side-encryption", "aws:kms"}, kSse},
      {{"x-amz-server-side-encryption-aws-kms-key-id", "alias/k"}, kSse},
      {kCustomerKey, kSse},
  };
  for (const auto& [header, message] : asks) {
    SCOPED_TRACE(header.name);
    ExpectRefused(Put("/bkt/k", std::string(5000, 'x'), {header}), message);
    EXPECT_FALSE(ObjectExists("bkt", "k"));
  }
}

TEST_F(UnimplementedTest, UnknownSseMethodIsInvalidArgument) {
  Reply r = Put("/bkt/k", "data", {{"x-amz-server-side-encryption", "AES-256"}});
  EXPECT_EQ(r.status(), 400);
  EXPECT_EQ(r.Code(), "InvalidArgument");
  EXPECT_EQ(Tag(r.body, "Message"), kBadMethod);
  EXPECT_EQ(r.summary.bytes_in, 0u);
  EXPECT_FALSE(ObjectExists("bkt", "k"));
}

TEST_F(UnimplementedTest, CopyObjectStoresNothing) {
  for (const Header& header :
       {Header{"x-amz-server-side-encryption", "AES256"}, kCustomerKey, kCopySourceKey}) {
    SCOPED_TRACE(header.name);
    Reply r = Call("PUT", "/bkt/dst", "", {{"x-amz-copy-source", "/bkt/src"}, header});
    EXPECT_EQ(r.summary.operation, "CopyObject");
    ExpectRefused(r, kSse);
    EXPECT_FALSE(ObjectExists("bkt", "dst"));
  }
}

TEST_F(UnimplementedTest, MultipartCallsStoreNothing) {
  ExpectRefused(Call("POST", "/bkt/mp", "uploads", {kCustomerKey}), kSse);
  EXPECT_FALSE(Contains(Call("GET", "/bkt", "uploads", {}).body, "<Upload>"));

  const std::string id = NewUpload();
  const std::string part = "partNumber=1&uploadId=" + id;
  ExpectRefused(Call("PUT", "/bkt/mp", part, {kCustomerKey}, "part data"), kSse);
  for (const Header& header : {kCustomerKey, kCopySourceKey}) {
    ExpectRefused(Call("PUT", "/bkt/mp", part, {{"x-amz-copy-source", "/bkt/src"}, header}), kSse);
  }
  EXPECT_FALSE(Contains(Call("GET", "/bkt/mp", "uploadId=" + id, {}).body, "<Part>"));
  ExpectRefused(Call("GET", "/bkt/mp", "uploadId=" + id, {kCustomerKey}), kSse);

  ASSERT_EQ(Call("PUT", "/bkt/mp", part, {}, "part data").status(), 200);
  const std::string complete =
      "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>"
      "<ETag>\"" +
      Md5Hex("part data") +
      "\"</ETag></Part>"
      "</CompleteMultipartUpload>";
  ExpectRefused(Call("POST", "/bkt/mp", "uploadId=" + id, {kCustomerKey}, complete), kSse);
  EXPECT_FALSE(ObjectExists("bkt", "mp"));
  EXPECT_EQ(Call("POST", "/bkt/mp", "uploadId=" + id, {}, complete).status(), 200);
}

TEST_F(UnimplementedTest, GetAndHeadWithCustomerKey) {
  ExpectRefused(Call("GET", "/bkt/src", "", {kCustomerKey}), kSse);
  Reply head = Call("HEAD", "/bkt/src", "", {kCustomerKey});
  EXPECT_EQ(head.status(), 501);
  EXPECT_TRUE(head.body.empty());
  // A header GetObject does not read asks for nothing there.
  EXPECT_EQ(Call("GET", "/bkt/src", "", {{"x-amz-object-lock-mode", "GOVERNANCE"}}).body, "plain");
}

// Object lock is no longer refused as unimplemented: CreateBucket enables it, and the write
// headers on a bucket without it are S3's InvalidRequest (object_lock_test.cc has the rest).
TEST_F(UnimplementedTest, ObjectLockIsImplemented) {
  EXPECT_EQ(Call("PUT", "/locked", "", {{"x-amz-bucket-object-lock-enabled", "true"}}).status(),
            200);
  EXPECT_EQ(Do("HEAD", "/locked").status(), 200);
  Reply r = Put("/bkt/k", "data", {{"x-amz-object-lock-legal-hold", "ON"}});
  EXPECT_EQ(r.status(), 400) << r.body;
  EXPECT_EQ(r.Code(), "InvalidRequest");
  EXPECT_FALSE(ObjectExists("bkt", "k"));
}

// Authentication and authorization come first: a caller who may not write learns nothing
// about what cubby implements.
TEST_F(UnimplementedTest, AccessDeniedComesFirst) {
  const Header sse{"x-amz-server-side-encryption", "AES256"};
  EXPECT_EQ(Call("PUT", "/bkt/k", "", {sse}, "data", kReaderId).Code(), "AccessDenied");
  EXPECT_EQ(Call("PUT", "/shared/k", "", {sse}, "data", kReaderId).Code(), "AccessDenied");
  EXPECT_EQ(Call("PUT", "/bkt/k", "", {sse}, "data", kAnonymous).Code(), "AccessDenied");
  EXPECT_EQ(Call("PUT", "/shared/k", "", {sse}, "data", kWriterId).status(), 501);
}

// A malformed parameter is the request's first error, answered before the headers are read.
TEST_F(UnimplementedTest, ParameterErrorComesFirst) {
  const std::string id = NewUpload();
  Reply r = Call("PUT", "/bkt/mp", "partNumber=0&uploadId=" + id, {kCustomerKey}, "x");
  EXPECT_EQ(r.status(), 400);
  EXPECT_EQ(r.Code(), "InvalidArgument");
}

}  // namespace
}  // namespace cubby::s3api
