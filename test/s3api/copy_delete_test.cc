// CopyObject and DeleteObjects through S3Service::Handle with a real Store.
#include <string>
#include <vector>

#include "s3api/auth/checksum.h"
#include "s3api/format.h"
#include "test/s3api/service_fixture.h"
#include "text/encoding.h"

namespace cubby::s3api {
namespace {

using namespace test_support;  // NOLINT: the fixture


class CopyTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    MakeBucket("src");
    MakeBucket("dst");
    source_ = Put("/src/a%20b", data_, {{"content-type", "text/plain"},
                                        {"cache-control", "no-cache"},
                                        {"x-amz-meta-color", "blue"}});
    ASSERT_EQ(source_.status(), 200);
  }
  Reply Copy(std::string dest, std::string source, std::vector<Header> extra = {},
             std::string key_id = kRootId) {
    extra.push_back({"x-amz-copy-source", std::move(source)});
    return Put(std::move(dest), "", std::move(extra), std::move(key_id));
  }
  std::string data_ = std::string(10000, 'd') + "tail";  // several 4 KiB chunks
  Reply source_;
};

TEST_F(CopyTest, CopyKeepsMetadataByDefault) {
  for (std::string src : {"/src/a%20b", "src/a%20b", "/src/a%20b?versionId=null"}) {
    SCOPED_TRACE(src);
    Reply r = Copy("/dst/copy", src);
    ASSERT_EQ(r.status(), 200) << r.body;
    EXPECT_EQ(r.summary.operation, "CopyObject");
    EXPECT_EQ(Tag(r.body, "ETag"), source_.Header("ETag"));
    EXPECT_EQ(Tag(r.body, "LastModified"), Iso8601(system_clock::to_time_t(now_) * 1000));
    Reply got = Get("/dst/copy");
    EXPECT_EQ(got.body, data_);
    EXPECT_EQ(got.Header("Content-Type"), "text/plain");
    EXPECT_EQ(got.Header("Cache-Control"), "no-cache");
    EXPECT_EQ(got.Header("x-amz-meta-color"), "blue");
  }
}

TEST_F(CopyTest, ReplaceDirectiveTakesRequestHeaders) {
  Reply r = Copy("/dst/copy", "/src/a%20b",
                 {{"x-amz-metadata-directive", "REPLACE"}, {"content-type", "image/png"},
                  {"x-amz-meta-shape", "round"}});
  ASSERT_EQ(r.status(), 200) << r.body;
  Reply got = Get("/dst/copy");
  EXPECT_EQ(got.Header("Content-Type"), "image/png");
  EXPECT_EQ(got.Header("x-amz-meta-shape"), "round");
  EXPECT_EQ(got.Header("x-amz-meta-color"), "<absent>");
  EXPECT_EQ(got.Header("Cache-Control"), "<absent>");
  EXPECT_EQ(Copy("/dst/x", "/src/a%20b", {{"x-amz-metadata-directive", "MOVE"}}).Code(),
            "InvalidArgument");
}

TEST_F(CopyTest, OntoItself) {
  Reply illegal = Copy("/src/a%20b", "/src/a%20b");
  EXPECT_EQ(illegal.status(), 400);
  EXPECT_EQ(illegal.Code(), "InvalidRequest");
  EXPECT_TRUE(Contains(illegal.body, "copy an object to itself"));

  now_ += std::chrono::seconds(60);
  Reply replaced = Copy("/src/a%20b", "/src/a%20b",
                        {{"x-amz-metadata-directive", "REPLACE"}, {"content-type", "app/x"}});
  ASSERT_EQ(replaced.status(), 200) << replaced.body;
  EXPECT_EQ(Tag(replaced.body, "ETag"), source_.Header("ETag"));
  Reply got = Get("/src/a%20b");
  EXPECT_EQ(got.body, data_);
  EXPECT_EQ(got.Header("Content-Type"), "app/x");
  EXPECT_EQ(got.Header("x-amz-meta-color"), "<absent>");
  EXPECT_EQ(got.Header("Last-Modified"), HttpDate(system_clock::to_time_t(now_) * 1000));
}

TEST_F(CopyTest, SourceConditions) {
  const std::string etag = source_.Header("ETag");
  const std::string before = HttpDate((system_clock::to_time_t(now_) - 3600) * 1000);
  const std::string after = HttpDate((system_clock::to_time_t(now_) + 3600) * 1000);
  struct Case {
    std::vector<Header> headers;
    int status;
  };
  for (const Case& c : std::vector<Case>{
           {{{"x-amz-copy-source-if-match", etag}}, 200},
           {{{"x-amz-copy-source-if-match", "\"other\""}}, 412},
           {{{"x-amz-copy-source-if-none-match", etag}}, 412},
           {{{"x-amz-copy-source-if-none-match", "\"other\""}}, 200},
           {{{"x-amz-copy-source-if-modified-since", after}}, 412},
           {{{"x-amz-copy-source-if-modified-since", before}}, 200},
           {{{"x-amz-copy-source-if-unmodified-since", before}}, 412},
           {{{"x-amz-copy-source-if-unmodified-since", after}}, 200},
           // if-match true wins over a failing if-unmodified-since, and if-none-match true
           // over a failing if-modified-since (the CopyObject page).
           {{{"x-amz-copy-source-if-match", etag},
             {"x-amz-copy-source-if-unmodified-since", before}},
            200},
           {{{"x-amz-copy-source-if-none-match", "\"other\""},
             {"x-amz-copy-source-if-modified-since", after}},
            200},
       }) {
    SCOPED_TRACE(c.headers[0].name + ": " + c.headers[0].value);
    Reply r = Copy("/dst/cond", "/src/a%20b", c.headers);
    EXPECT_EQ(r.status(), c.status) << r.body;
    if (c.status == 412) {
      EXPECT_EQ(r.Code(), "PreconditionFailed");
    }
  }
}

TEST_F(CopyTest, Errors) {
  struct Case {
    std::string source;
    std::string code;
  };
  for (const Case& c : std::vector<Case>{{"/src/missing", "NoSuchKey"},
                                         {"/nobucket/k", "NoSuchBucket"},
                                         {"/src", "InvalidArgument"},
                                         {"src/", "InvalidArgument"},
                                         {"/src/k?foo=bar", "InvalidArgument"},
                                         {"/src/bad%zz", "InvalidArgument"}}) {
    SCOPED_TRACE(c.source);
    EXPECT_EQ(Copy("/dst/x", c.source).Code(), c.code);
  }
  EXPECT_FALSE(ObjectExists("dst", "x"));
  EXPECT_EQ(Copy("/nodst/x", "/src/a%20b").Code(), "NoSuchBucket");
  // The destination's conditional write applies to a copy too.
  ASSERT_EQ(Copy("/dst/y", "/src/a%20b").status(), 200);
  EXPECT_EQ(Copy("/dst/y", "/src/a%20b", {{"if-none-match", "*"}}).Code(), "PreconditionFailed");
}

// Copy needs read on the source bucket and write on the destination.
TEST_F(CopyTest, Authorization) {
  MakeBucket("shared");
  MakeBucket("other");
  ASSERT_EQ(Put("/shared/s", "shared data").status(), 200);
  // kOtherId: read-write on "other" only.
  EXPECT_EQ(Copy("/other/c", "/shared/s", {}, kOtherId).Code(), "AccessDenied");
  // kWriterId: write-only on "shared": may not read it as a source.
  EXPECT_EQ(Copy("/shared/c", "/shared/s", {}, kWriterId).Code(), "AccessDenied");
  // kReaderId: may read "shared" but not write anywhere.
  EXPECT_EQ(Copy("/shared/c", "/shared/s", {}, kReaderId).Code(), "AccessDenied");
  AddKey("CBCOPIER000000000000", kKeySecret, false,
         {{"shared", storage::AccessMode::kReadOnly}, {"other", storage::AccessMode::kReadWrite}});
  Reply ok = Copy("/other/c", "/shared/s", {}, "CBCOPIER000000000000");
  EXPECT_EQ(ok.status(), 200) << ok.body;
  EXPECT_EQ(Get("/other/c").body, "shared data");
}

// ---- DeleteObjects

class DeleteObjectsTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    MakeBucket("bkt");
    for (std::string k : {"a", "b", "c&d"}) ASSERT_EQ(Put("/bkt/" + k, "x").status(), 200);
  }
  Reply Delete(std::string xml, std::vector<Header> headers, std::string key_id = kRootId) {
    Req r;
    r.method = "POST";
    r.path = "/bkt";
    r.query = "delete";
    r.body = std::move(xml);
    r.headers = std::move(headers);
    r.key_id = std::move(key_id);
    return Send(std::move(r));
  }
  static std::vector<Header> Md5Of(const std::string& body) {
    return {{"content-md5", text::Base64Encode(auth::Md5(body))}};
  }
  const std::string doc_ =
      "<Delete><Object><Key>a</Key></Object><Object><Key>c&amp;d</Key><VersionId>null</VersionId>"
      "</Object><Object><Key>missing</Key></Object><Object><Key>b</Key><VersionId>v1</VersionId>"
      "</Object></Delete>";
};

TEST_F(DeleteObjectsTest, DeletesAndReportsEachKey) {
  Reply r = Delete(doc_, Md5Of(doc_));
  ASSERT_EQ(r.status(), 200) << r.body;
  EXPECT_EQ(r.summary.operation, "DeleteObjects");
  EXPECT_EQ(Count(r.body, "<Deleted>"), 3u);
  // "null" names the object of an unversioned bucket; "v1" is no version id cubby makes.
  EXPECT_TRUE(
      Contains(r.body, "<Deleted><Key>c&amp;d</Key><VersionId>null</VersionId></Deleted>"));
  EXPECT_TRUE(Contains(r.body,
                       "<Error><Key>b</Key><VersionId>v1</VersionId><Code>InvalidArgument</Code>"
                       "<Message>Invalid version id specified</Message></Error>"));
  EXPECT_TRUE(Contains(r.body, "<Deleted><Key>missing</Key></Deleted>"));
  EXPECT_FALSE(ObjectExists("bkt", "a"));
  EXPECT_FALSE(ObjectExists("bkt", "c&d"));
  EXPECT_TRUE(ObjectExists("bkt", "b"));
}

TEST_F(DeleteObjectsTest, QuietListsOnlyErrors) {
  std::string doc = "<Delete><Quiet>true</Quiet><Object><Key>b</Key></Object><Object><Key>" +
                    std::string(1100, 'k') + "</Key></Object></Delete>";
  Reply r = Delete(doc, Md5Of(doc));
  ASSERT_EQ(r.status(), 200) << r.body;
  EXPECT_EQ(Count(r.body, "<Deleted>"), 0u);
  EXPECT_EQ(Count(r.body, "<Error>"), 1u);
  EXPECT_EQ(Tag(r.body, "Code"), "KeyTooLongError");
  EXPECT_FALSE(ObjectExists("bkt", "b"));
}

TEST_F(DeleteObjectsTest, ChecksumHeaders) {
  // SDKs that default to flexible checksums send x-amz-checksum-crc32 (or crc64nvme) instead
  // of Content-MD5.
  for (auth::ChecksumAlgorithm a : auth::kAllChecksumAlgorithms) {
    SCOPED_TRACE(std::string(auth::ChecksumName(a)));
    ASSERT_EQ(Put("/bkt/a", "x").status(), 200);
    std::string good = auth::ComputeChecksum(a, doc_);
    std::string bad = auth::ComputeChecksum(a, doc_ + " ");
    Reply wrong = Delete(doc_, {{std::string(auth::ChecksumHeaderName(a)), bad}});
    EXPECT_EQ(wrong.Code(), "BadDigest");
    EXPECT_TRUE(ObjectExists("bkt", "a"));
    Reply ok = Delete(doc_, {{std::string(auth::ChecksumHeaderName(a)), good}});
    EXPECT_EQ(ok.status(), 200) << ok.body;
    EXPECT_FALSE(ObjectExists("bkt", "a"));
  }
}

TEST_F(DeleteObjectsTest, Errors) {
  Reply missing = Delete(doc_, {});
  EXPECT_EQ(missing.Code(), "InvalidRequest");
  EXPECT_TRUE(Contains(missing.body, "Content-Md5"));
  EXPECT_EQ(Delete(doc_, Md5Of("other")).Code(), "BadDigest");
  EXPECT_EQ(Delete(doc_, {{"content-md5", "nope"}}).Code(), "InvalidDigest");
  EXPECT_EQ(Delete(doc_, {{"x-amz-checksum-crc32", "!!"}}).Code(), "InvalidRequest");
  EXPECT_TRUE(ObjectExists("bkt", "a"));

  std::string many = "<Delete>";
  for (int i = 0; i < 1001; ++i) many += "<Object><Key>k" + std::to_string(i) + "</Key></Object>";
  many += "</Delete>";
  for (const std::string& doc :
       {many, std::string("<Delete></Delete>"), std::string("<Delete><Object></Object></Delete>"),
        std::string("<Remove><Object><Key>a</Key></Object></Remove>"), std::string("<Delete>")}) {
    EXPECT_EQ(Delete(doc, Md5Of(doc)).Code(), "MalformedXML") << doc.substr(0, 60);
  }
  Req nobucket;
  nobucket.method = "POST";
  nobucket.path = "/nobucket";
  nobucket.query = "delete";
  nobucket.body = doc_;
  nobucket.headers = Md5Of(doc_);
  EXPECT_EQ(Send(nobucket).Code(), "NoSuchBucket");
  // A key without any grant on the bucket is denied outright.
  EXPECT_EQ(Do("POST", "/bkt", "delete", kReaderId).Code(), "AccessDenied");
}

// Callers who may read but not write get an answer with AccessDenied per key.
TEST_F(DeleteObjectsTest, PerKeyAccessDenied) {
  MakeBucket("shared");
  ASSERT_EQ(Put("/shared/a", "x").status(), 200);
  std::string doc = "<Delete><Object><Key>a</Key></Object><Object><Key>b</Key></Object></Delete>";
  Req reader;
  reader.method = "POST";
  reader.path = "/shared";
  reader.query = "delete";
  reader.body = doc;
  reader.headers = Md5Of(doc);
  reader.key_id = kReaderId;
  Req anonymous = reader;
  anonymous.key_id = kAnonymous;
  anonymous.path = "/bkt";
  ASSERT_EQ(Put("/bkt/a", "x", {{"x-amz-acl", "public-read"}}).status(), 200);
  ASSERT_EQ(Send([] {
              Req acl;
              acl.method = "PUT";
              acl.path = "/bkt";
              acl.query = "acl";
              acl.headers = {{"x-amz-acl", "public-read"}};
              return acl;
            }())
                .status(),
            200);
  for (const Req& r : {reader, anonymous}) {
    SCOPED_TRACE(r.path);
    Reply reply = Send(r);
    ASSERT_EQ(reply.status(), 200) << reply.body;
    EXPECT_EQ(Count(reply.body, "<Code>AccessDenied</Code>"), 2u);
    EXPECT_EQ(Count(reply.body, "<Deleted>"), 0u);
  }
  EXPECT_TRUE(ObjectExists("shared", "a"));
  EXPECT_TRUE(ObjectExists("bkt", "a"));
  // Anonymous on a private bucket: denied outright.
  MakeBucket("private");
  Req closed = anonymous;
  closed.path = "/private";
  EXPECT_EQ(Send(closed).Code(), "AccessDenied");
}

}  // namespace
}  // namespace cubby::s3api
