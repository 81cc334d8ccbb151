// Multipart uploads through S3Service::Handle with a real Store.
#include <string>
#include <vector>

#include "s3api/auth/checksum.h"
#include "test/s3api/service_fixture.h"
#include "text/encoding.h"

namespace cubby::s3api {
namespace {

using namespace test_support;  // NOLINT: the fixture

constexpr size_t kMiB = 1 << 20;


std::string Unquote(const std::string& etag) { return etag.substr(1, etag.size() - 2); }

class MultipartTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    MakeBucket("bkt");
  }
  std::string Create(const std::string& key, std::vector<Header> headers = {}) {
    Req r;
    r.method = "POST";
    r.path = "/bkt/" + key;
    r.query = "uploads";
    r.headers = std::move(headers);
    Reply reply = Send(std::move(r));
    EXPECT_EQ(reply.status(), 200) << reply.body;
    return Tag(reply.body, "UploadId");
  }
  Reply Part(const std::string& key, const std::string& id, std::string number, std::string data,
             std::vector<Header> headers = {}) {
    Req r;
    r.method = "PUT";
    r.path = "/bkt/" + key;
    r.query = "partNumber=" + number + "&uploadId=" + id;
    r.body = std::move(data);
    r.headers = std::move(headers);
    return Send(std::move(r));
  }
  Reply Complete(const std::string& key, const std::string& id, std::string xml,
                 std::vector<Header> headers = {}) {
    Req r;
    r.method = "POST";
    r.path = "/bkt/" + key;
    r.query = "uploadId=" + id;
    r.body = std::move(xml);
    r.headers = std::move(headers);
    return Send(std::move(r));
  }
  static std::string PartXml(int number, const std::string& etag, std::string extra = "") {
    return "<Part><PartNumber>" + std::to_string(number) + "</PartNumber><ETag>" + etag +
           "</ETag>" + extra + "</Part>";
  }
  static std::string Doc(const std::string& parts) {
    return "<CompleteMultipartUpload>" + parts + "</CompleteMultipartUpload>";
  }
  static std::string MultipartEtag(const std::vector<std::string>& parts) {
    std::string md5s;
    for (const std::string& p : parts) md5s += auth::Md5(p);
    return Md5Hex(md5s) + "-" + std::to_string(parts.size());
  }

  const std::string big1_ = std::string(5 * kMiB, 'a');
  const std::string big2_ = std::string(5 * kMiB, 'b') + "!";
  const std::string last_ = "the last part may be small";
};

TEST_F(MultipartTest, UploadCompleteAndRead) {
  std::string id = Create("obj", {{"content-type", "text/x-mp"}, {"x-amz-meta-who", "me"}});
  ASSERT_FALSE(id.empty());
  Reply p1 = Part("obj", id, "1", big1_);
  ASSERT_EQ(p1.status(), 200) << p1.body;
  EXPECT_EQ(p1.Header("ETag"), "\"" + Md5Hex(big1_) + "\"");
  // A part uploaded again replaces the earlier one.
  ASSERT_EQ(Part("obj", id, "2", "replaced").status(), 200);
  Reply p2 = Part("obj", id, "2", big2_);
  Reply p3 = Part("obj", id, "3", last_);
  ASSERT_EQ(p3.status(), 200);
  EXPECT_FALSE(ObjectExists("bkt", "obj"));

  std::string doc = Doc(PartXml(1, p1.Header("ETag")) + PartXml(2, p2.Header("ETag")) +
                        PartXml(3, Unquote(p3.Header("ETag"))));
  Reply done = Complete("obj", id, doc);
  ASSERT_EQ(done.status(), 200) << done.body;
  const std::string etag = MultipartEtag({big1_, big2_, last_});
  EXPECT_EQ(Tag(done.body, "ETag"), "\"" + etag + "\"");
  EXPECT_EQ(Tag(done.body, "Bucket"), "bkt");
  EXPECT_EQ(Tag(done.body, "Key"), "obj");
  EXPECT_EQ(Tag(done.body, "Location"), "http://localhost:9000/bkt/obj");

  Reply got = Get("/bkt/obj");
  EXPECT_EQ(got.body, big1_ + big2_ + last_);
  EXPECT_EQ(got.Header("ETag"), "\"" + etag + "\"");
  EXPECT_EQ(got.Header("Content-Type"), "text/x-mp");
  EXPECT_EQ(got.Header("x-amz-meta-who"), "me");
  EXPECT_EQ(got.Header("x-amz-mp-parts-count"), "<absent>");

  // A retried Complete (lost response) answers the same result.
  Reply again = Complete("obj", id, doc);
  EXPECT_EQ(again.status(), 200) << again.body;
  EXPECT_EQ(Tag(again.body, "ETag"), "\"" + etag + "\"");
  // The upload is gone for everything else.
  EXPECT_EQ(Part("obj", id, "1", "x").Code(), "NoSuchUpload");
  EXPECT_EQ(Do("GET", "/bkt/obj", "uploadId=" + id).Code(), "NoSuchUpload");
}

TEST_F(MultipartTest, GetByPartNumber) {
  std::string id = Create("obj");
  std::string e1 = Part("obj", id, "1", big1_).Header("ETag");
  std::string e2 = Part("obj", id, "2", last_).Header("ETag");
  ASSERT_EQ(Complete("obj", id, Doc(PartXml(1, e1) + PartXml(2, e2))).status(), 200);

  Req get;
  get.path = "/bkt/obj";
  get.query = "partNumber=2";
  Reply part2 = Send(get);
  EXPECT_EQ(part2.status(), 206);
  EXPECT_EQ(part2.body, last_);
  EXPECT_EQ(part2.Header("Content-Range"),
            "bytes " + std::to_string(big1_.size()) + "-" +
                std::to_string(big1_.size() + last_.size() - 1) + "/" +
                std::to_string(big1_.size() + last_.size()));
  EXPECT_EQ(part2.Header("x-amz-mp-parts-count"), "2");
  Req head = get;
  head.method = "HEAD";
  head.query = "partNumber=1";
  Reply head1 = Send(head);
  EXPECT_EQ(head1.status(), 206);
  EXPECT_EQ(head1.response.content_length, big1_.size());

  struct Case {
    std::string query;
    std::vector<Header> headers;
    int status;
    std::string code;
  };
  ASSERT_EQ(Put("/bkt/single", "single").status(), 200);
  for (const Case& c : std::vector<Case>{
           {"partNumber=3", {}, 416, "InvalidPartNumber"},
           {"partNumber=0", {}, 400, "InvalidArgument"},
           {"partNumber=10001", {}, 400, "InvalidArgument"},
           {"partNumber=x", {}, 400, "InvalidArgument"},
           {"partNumber=1", {{"range", "bytes=0-1"}}, 400, "InvalidRequest"},
       }) {
    SCOPED_TRACE(c.query);
    Req r = get;
    r.query = c.query;
    r.headers = c.headers;
    Reply reply = Send(r);
    EXPECT_EQ(reply.status(), c.status);
    EXPECT_EQ(reply.Code(), c.code);
  }
  // A single-part object is its own part 1; there is no part 2.
  Req single = get;
  single.path = "/bkt/single";
  single.query = "partNumber=1";
  Reply s1 = Send(single);
  EXPECT_EQ(s1.status(), 206);
  EXPECT_EQ(s1.body, "single");
  single.query = "partNumber=2";
  EXPECT_EQ(Send(single).Code(), "InvalidPartNumber");
}

TEST_F(MultipartTest, CompleteErrors) {
  std::string id = Create("obj");
  std::string e1 = Part("obj", id, "1", big1_).Header("ETag");
  std::string e2 = Part("obj", id, "2", last_).Header("ETag");
  std::string e3 = Part("obj", id, "3", last_).Header("ETag");
  struct Case {
    std::string doc;
    std::string code;
  };
  for (const Case& c : std::vector<Case>{
           {Doc(PartXml(2, e2) + PartXml(1, e1)), "InvalidPartOrder"},
           {Doc(PartXml(1, e1) + PartXml(2, e2) + PartXml(1, e1)), "InvalidPartOrder"},
           // Repeated, but no entry names the stored part 1.
           {Doc(PartXml(1, e2) + PartXml(1, e3) + PartXml(2, e2)), "InvalidPart"},
           {Doc(PartXml(1, e1) + PartXml(4, e2)), "InvalidPart"},
           {Doc(PartXml(1, e2) + PartXml(2, e2)), "InvalidPart"},
           {Doc(PartXml(1, e1) + PartXml(2, e2, "<ChecksumCRC32>AAAAAA==</ChecksumCRC32>")),
            "InvalidPart"},
           {Doc(PartXml(2, e2) + PartXml(3, e3)), "EntityTooSmall"},
           {Doc(""), "MalformedXML"},
           {"<CompleteMultipartUpload><Part><ETag>x</ETag></Part></CompleteMultipartUpload>",
            "MalformedXML"},
           {"not xml", "MalformedXML"},
       }) {
    SCOPED_TRACE(c.doc.substr(0, 120));
    Reply r = Complete("obj", id, c.doc);
    EXPECT_EQ(r.Code(), c.code);
  }
  EXPECT_FALSE(ObjectExists("bkt", "obj"));
  EXPECT_EQ(Complete("obj", "nosuchid", Doc(PartXml(1, e1))).Code(), "NoSuchUpload");
  EXPECT_EQ(Complete("other", id, Doc(PartXml(1, e1))).Code(), "NoSuchUpload");

  // If-None-Match: * fails when the key exists, and the upload stays.
  ASSERT_EQ(Put("/bkt/obj", "exists").status(), 200);
  Reply cond = Complete("obj", id, Doc(PartXml(1, e1) + PartXml(2, e2)), {{"if-none-match", "*"}});
  EXPECT_EQ(cond.status(), 412);
  EXPECT_EQ(cond.Code(), "PreconditionFailed");
  EXPECT_EQ(Get("/bkt/obj").body, "exists");
  Reply ok = Complete("obj", id, Doc(PartXml(1, e1) + PartXml(2, e2)));
  EXPECT_EQ(ok.status(), 200) << ok.body;
  EXPECT_EQ(Get("/bkt/obj").body, big1_ + last_);
}

// A part re-sent while its first upload still ran, listed twice (once with each ETag, in
// ascending but repeated order): the object takes the upload that finished last, once, as Ceph
// RGW does.
TEST_F(MultipartTest, CompleteWithRepeatedPartNumber) {
  std::string id = Create("obj");
  std::string first = Part("obj", id, "1", big1_).Header("ETag");
  std::string resent_data = std::string(big1_.size(), 'r');
  std::string resent = Part("obj", id, "1", resent_data).Header("ETag");
  ASSERT_NE(first, resent);
  std::string e2 = Part("obj", id, "2", last_).Header("ETag");
  Reply ok = Complete("obj", id, Doc(PartXml(1, first) + PartXml(1, resent) + PartXml(2, e2)));
  ASSERT_EQ(ok.status(), 200) << ok.body;
  EXPECT_NE(ok.body.find("-2&quot;</ETag>"), std::string::npos) << ok.body;
  EXPECT_EQ(Get("/bkt/obj").body, resent_data + last_);
}

TEST_F(MultipartTest, UploadPartErrorsStoreNothing) {
  std::string id = Create("obj");
  for (std::string n : {"0", "10001", "x", ""}) {
    EXPECT_EQ(Part("obj", id, n, "data").Code(), "InvalidArgument") << n;
  }
  EXPECT_EQ(Part("obj", "nosuchid", "1", "data").Code(), "NoSuchUpload");
  EXPECT_EQ(Part("other", id, "1", "data").Code(), "NoSuchUpload");
  Reply bad_md5 = Part("obj", id, "1", "data", {{"content-md5", text::Base64Encode(auth::Md5("x"))}});
  EXPECT_EQ(bad_md5.Code(), "BadDigest");
  Reply bad_crc = Part("obj", id, "1", "data",
                       {{"x-amz-checksum-crc32", auth::ComputeChecksum(
                                                     auth::ChecksumAlgorithm::kCrc32, "dat")}});
  EXPECT_EQ(bad_crc.Code(), "BadDigest");
  Req hash;
  hash.method = "PUT";
  hash.path = "/bkt/obj";
  hash.query = "partNumber=1&uploadId=" + id;
  hash.body = "data";
  hash.payload_sha256 = text::HexEncode(auth::Sha256("other"));
  EXPECT_EQ(Send(hash).Code(), "XAmzContentSHA256Mismatch");
  Req chunked = hash;
  chunked.payload_sha256.reset();
  chunked.body.clear();
  chunked.chunked = auth::ChunkedBodyInput{.data = std::string(10000, 'c'), .chunk_size = 4096};
  chunked.tamper = [](std::string* body) { (*body)[body->size() / 2] ^= 1; };
  EXPECT_EQ(Send(chunked).Code(), "SignatureDoesNotMatch");
  Req truncated = chunked;
  truncated.tamper = [](std::string* body) { body->resize(body->size() - 20); };
  EXPECT_EQ(Send(truncated).Code(), "IncompleteBody");
  Reply list = Do("GET", "/bkt/obj", "uploadId=" + id);
  EXPECT_EQ(list.status(), 200);
  EXPECT_EQ(Count(list.body, "<Part>"), 0u) << list.body;
  // A chunked part that verifies is stored with its decoded size.
  Req good = chunked;
  good.tamper = nullptr;
  Reply stored = Send(good);
  EXPECT_EQ(stored.status(), 200) << stored.body;
  EXPECT_EQ(Tag(Do("GET", "/bkt/obj", "uploadId=" + id).body, "Size"), "10000");
}

TEST_F(MultipartTest, Abort) {
  std::string id = Create("obj");
  ASSERT_EQ(Part("obj", id, "1", "data").status(), 200);
  EXPECT_EQ(Do("DELETE", "/bkt/obj", "uploadId=nosuch").Code(), "NoSuchUpload");
  Reply aborted = Do("DELETE", "/bkt/obj", "uploadId=" + id);
  EXPECT_EQ(aborted.status(), 204);
  EXPECT_EQ(Do("DELETE", "/bkt/obj", "uploadId=" + id).Code(), "NoSuchUpload");
  EXPECT_EQ(Part("obj", id, "2", "data").Code(), "NoSuchUpload");
  EXPECT_EQ(Complete("obj", id, Doc(PartXml(1, "x"))).Code(), "NoSuchUpload");
}

TEST_F(MultipartTest, ListParts) {
  std::string id = Create("obj");
  for (std::string n : {"1", "2", "3"}) ASSERT_EQ(Part("obj", id, n, "part" + n).status(), 200);
  Reply page1 = Do("GET", "/bkt/obj", "max-parts=2&uploadId=" + id);
  ASSERT_EQ(page1.status(), 200) << page1.body;
  EXPECT_EQ(Count(page1.body, "<Part>"), 2u);
  EXPECT_EQ(Tag(page1.body, "IsTruncated"), "true");
  EXPECT_EQ(Tag(page1.body, "NextPartNumberMarker"), "2");
  EXPECT_EQ(Tag(page1.body, "MaxParts"), "2");
  EXPECT_EQ(Tag(page1.body, "UploadId"), id);
  EXPECT_EQ(Tag(page1.body, "StorageClass"), "STANDARD");
  EXPECT_TRUE(Contains(page1.body, "<Initiator><ID>"));
  EXPECT_TRUE(Contains(page1.body, "<Owner><ID>"));
  EXPECT_EQ(Tag(page1.body, "ETag"), "\"" + Md5Hex("part1") + "\"");
  EXPECT_EQ(Tag(page1.body, "Size"), "5");
  Reply page2 = Do("GET", "/bkt/obj", "part-number-marker=2&uploadId=" + id);
  EXPECT_EQ(Count(page2.body, "<Part>"), 1u);
  EXPECT_EQ(Tag(page2.body, "PartNumber"), "3");
  EXPECT_EQ(Tag(page2.body, "IsTruncated"), "false");
  EXPECT_EQ(Do("GET", "/bkt/obj", "max-parts=x&uploadId=" + id).Code(), "InvalidArgument");
  EXPECT_EQ(Do("GET", "/bkt/obj", "part-number-marker=-1&uploadId=" + id).Code(),
            "InvalidArgument");
}

TEST_F(MultipartTest, ListMultipartUploads) {
  std::string a1 = Create("a/1");
  std::string a2 = Create("a/2");
  std::string b = Create("b");
  std::string b2 = Create("b");
  std::string sp = Create("c%20d");
  Reply all = Do("GET", "/bkt", "uploads");
  ASSERT_EQ(all.status(), 200) << all.body;
  EXPECT_EQ(all.summary.operation, "ListMultipartUploads");
  EXPECT_EQ(Count(all.body, "<Upload>"), 5u);
  EXPECT_EQ(Tag(all.body, "IsTruncated"), "false");

  Reply grouped = Do("GET", "/bkt", "delimiter=%2F&uploads");
  EXPECT_EQ(Count(grouped.body, "<Upload>"), 3u);
  EXPECT_TRUE(Contains(grouped.body, "<CommonPrefixes><Prefix>a/</Prefix></CommonPrefixes>"));

  Reply prefixed = Do("GET", "/bkt", "prefix=a%2F&uploads");
  EXPECT_EQ(Count(prefixed.body, "<Upload>"), 2u);

  Reply first = Do("GET", "/bkt", "max-uploads=1&uploads");
  EXPECT_EQ(Count(first.body, "<Upload>"), 1u);
  EXPECT_EQ(Tag(first.body, "IsTruncated"), "true");
  EXPECT_EQ(Tag(first.body, "NextKeyMarker"), "a/1");
  EXPECT_EQ(Tag(first.body, "NextUploadIdMarker"), a1);

  // Both uploads of "b", then continue after the first by upload-id-marker.
  Reply after_a = Do("GET", "/bkt", "key-marker=a%2F2&uploads");
  EXPECT_EQ(Count(after_a.body, "<Upload>"), 3u);
  std::string first_b = Tag(after_a.body, "UploadId");
  Reply after_b = Do("GET", "/bkt", "key-marker=b&upload-id-marker=" + first_b + "&uploads");
  EXPECT_EQ(Count(after_b.body, "<Upload>"), 2u);
  EXPECT_TRUE(Contains(after_b.body, "<Key>b</Key>"));

  Reply encoded = Do("GET", "/bkt", "encoding-type=url&prefix=c&uploads");
  EXPECT_TRUE(Contains(encoded.body, "<Key>c%20d</Key>"));
  EXPECT_EQ(Tag(encoded.body, "EncodingType"), "url");
  EXPECT_EQ(Do("GET", "/bkt", "encoding-type=xml&uploads").Code(), "InvalidArgument");
  EXPECT_EQ(Do("GET", "/bkt", "max-uploads=many&uploads").Code(), "InvalidArgument");
  EXPECT_EQ(Do("GET", "/nobucket", "uploads").Code(), "NoSuchBucket");
}

TEST_F(MultipartTest, UploadPartCopy) {
  const std::string source = std::string(5 * kMiB, 's') + "0123456789";
  ASSERT_EQ(Put("/bkt/source", source).status(), 200);
  std::string id = Create("obj");
  auto copy = [&](std::string number, std::vector<Header> headers) {
    Req r;
    r.method = "PUT";
    r.path = "/bkt/obj";
    r.query = "partNumber=" + number + "&uploadId=" + id;
    r.headers = std::move(headers);
    return Send(std::move(r));
  };
  Reply whole = copy("1", {{"x-amz-copy-source", "/bkt/source"}});
  ASSERT_EQ(whole.status(), 200) << whole.body;
  EXPECT_EQ(whole.summary.operation, "UploadPartCopy");
  EXPECT_EQ(Tag(whole.body, "ETag"), "\"" + Md5Hex(source) + "\"");
  EXPECT_NE(Tag(whole.body, "LastModified"), "<absent>");
  Reply range = copy("2", {{"x-amz-copy-source", "bkt/source?versionId=null"},
                           {"x-amz-copy-source-range", "bytes=5242882-5242885"}});
  ASSERT_EQ(range.status(), 200) << range.body;
  EXPECT_EQ(Tag(range.body, "ETag"), "\"" + Md5Hex("2345") + "\"");

  struct Case {
    std::vector<Header> headers;
    std::string code;
  };
  for (const Case& c : std::vector<Case>{
           {{{"x-amz-copy-source", "/bkt/source?versionId=x"}}, "InvalidArgument"},
           {{{"x-amz-copy-source", "/bkt/source"}, {"x-amz-copy-source-range", "bytes=5-"}},
            "InvalidArgument"},
           {{{"x-amz-copy-source", "/bkt/source"}, {"x-amz-copy-source-range", "bytes=9-3"}},
            "InvalidArgument"},
           {{{"x-amz-copy-source", "/bkt/source"}, {"x-amz-copy-source-range", "0-3"}},
            "InvalidArgument"},
           {{{"x-amz-copy-source", "/bkt/source"},
             {"x-amz-copy-source-range", "bytes=0-99999999"}},
            "InvalidRange"},
           {{{"x-amz-copy-source", "/bkt/missing"}}, "NoSuchKey"},
           {{{"x-amz-copy-source", "nokey"}}, "InvalidArgument"},
           {{{"x-amz-copy-source", "/bkt/source"}, {"x-amz-copy-source-if-match", "\"x\""}},
            "PreconditionFailed"},
       }) {
    SCOPED_TRACE(c.headers.back().value);
    EXPECT_EQ(copy("3", c.headers).Code(), c.code);
  }
  EXPECT_EQ(copy("0", {{"x-amz-copy-source", "/bkt/source"}}).Code(), "InvalidArgument");
  Req nosuch;
  nosuch.method = "PUT";
  nosuch.path = "/bkt/obj";
  nosuch.query = "partNumber=1&uploadId=nosuch";
  nosuch.headers = {{"x-amz-copy-source", "/bkt/source"}};
  EXPECT_EQ(Send(nosuch).Code(), "NoSuchUpload");

  Reply done = Complete("obj", id,
                        Doc(PartXml(1, Tag(whole.body, "ETag")) + PartXml(2, Tag(range.body, "ETag"))));
  ASSERT_EQ(done.status(), 200) << done.body;
  EXPECT_EQ(Get("/bkt/obj").body, source + "2345");
}

TEST_F(MultipartTest, CompositeChecksum) {
  const auth::ChecksumAlgorithm crc32 = auth::ChecksumAlgorithm::kCrc32;
  std::string id = Create("obj", {{"x-amz-checksum-algorithm", "CRC32"}});
  std::string c1 = auth::ComputeChecksum(crc32, big1_);
  Reply p1 = Part("obj", id, "1", big1_, {{"x-amz-checksum-crc32", c1}});
  ASSERT_EQ(p1.status(), 200) << p1.body;
  EXPECT_EQ(p1.Header("x-amz-checksum-crc32"), c1);
  // A part without a checksum gets one computed; one of another algorithm is refused.
  Reply other = Part("obj", id, "2", last_,
                     {{"x-amz-checksum-sha256",
                       auth::ComputeChecksum(auth::ChecksumAlgorithm::kSha256, last_)}});
  EXPECT_EQ(other.Code(), "InvalidRequest");
  Reply p2 = Part("obj", id, "2", last_);
  ASSERT_EQ(p2.status(), 200) << p2.body;
  std::string c2 = auth::ComputeChecksum(crc32, last_);
  EXPECT_EQ(p2.Header("x-amz-checksum-crc32"), c2);
  Reply listed = Do("GET", "/bkt/obj", "uploadId=" + id);
  EXPECT_EQ(Tag(listed.body, "ChecksumAlgorithm"), "CRC32");
  EXPECT_EQ(Tag(listed.body, "ChecksumType"), "COMPOSITE");
  EXPECT_EQ(Tag(listed.body, "ChecksumCRC32"), c1);

  Reply done = Complete("obj", id,
                        Doc(PartXml(1, p1.Header("ETag"), "<ChecksumCRC32>" + c1 + "</ChecksumCRC32>") +
                            PartXml(2, p2.Header("ETag"))));
  ASSERT_EQ(done.status(), 200) << done.body;
  std::string expected = *auth::CompositeChecksum(crc32, {c1, c2});
  EXPECT_EQ(Tag(done.body, "ChecksumCRC32"), expected);
  EXPECT_EQ(Tag(done.body, "ChecksumType"), "COMPOSITE");
  Reply head = Get("/bkt/obj", {{"x-amz-checksum-mode", "ENABLED"}});
  EXPECT_EQ(head.Header("x-amz-checksum-crc32"), expected);
  EXPECT_EQ(head.Header("x-amz-checksum-type"), "COMPOSITE");
  EXPECT_EQ(Get("/bkt/obj").Header("x-amz-checksum-crc32"), "<absent>");
}

TEST_F(MultipartTest, FullObjectChecksum) {
  std::string id = Create("obj", {{"x-amz-checksum-algorithm", "crc64nvme"}});
  std::string e1 = Part("obj", id, "1", big1_).Header("ETag");
  std::string e2 = Part("obj", id, "2", last_).Header("ETag");
  Reply done = Complete("obj", id, Doc(PartXml(1, e1) + PartXml(2, e2)));
  ASSERT_EQ(done.status(), 200) << done.body;
  std::string whole = auth::ComputeChecksum(auth::ChecksumAlgorithm::kCrc64Nvme, big1_ + last_);
  EXPECT_EQ(Tag(done.body, "ChecksumCRC64NVME"), whole);
  EXPECT_EQ(Tag(done.body, "ChecksumType"), "FULL_OBJECT");
}

TEST_F(MultipartTest, CreateChecksumErrors) {
  struct Case {
    std::vector<Header> headers;
  };
  for (const Case& c : std::vector<Case>{
           {{{"x-amz-checksum-algorithm", "MD5"}}},
           {{{"x-amz-checksum-type", "COMPOSITE"}}},
           {{{"x-amz-checksum-algorithm", "SHA256"}, {"x-amz-checksum-type", "FULL_OBJECT"}}},
           {{{"x-amz-checksum-algorithm", "CRC64NVME"}, {"x-amz-checksum-type", "COMPOSITE"}}},
           {{{"x-amz-checksum-algorithm", "CRC32"}, {"x-amz-checksum-type", "PARTIAL"}}},
       }) {
    SCOPED_TRACE(c.headers.back().value);
    Req r;
    r.method = "POST";
    r.path = "/bkt/obj";
    r.query = "uploads";
    r.headers = c.headers;
    EXPECT_EQ(Send(r).Code(), "InvalidRequest");
  }
  Req nobucket;
  nobucket.method = "POST";
  nobucket.path = "/nobucket/obj";
  nobucket.query = "uploads";
  EXPECT_EQ(Send(nobucket).Code(), "NoSuchBucket");
}

}  // namespace
}  // namespace cubby::s3api
