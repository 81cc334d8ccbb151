// Bucket default encryption: the ServerSideEncryptionConfiguration XML (tables), the rule a
// write follows (BucketDefaultEncryption), and Put/Get/DeleteBucketEncryption through the
// service.
#include "s3api/bucket_encryption.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "crypt/key.h"
#include "kms/kms.h"
#include "s3api/bucket_config_xml.h"
#include "service_fixture.h"

namespace cubby::s3api {
namespace {

using storage::BucketEncryption;
using storage::BucketEncryptionRule;
using storage::SseAlgorithm;
using namespace test_support;

std::string Config(const std::string& rules) {
  return "<ServerSideEncryptionConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">" +
         rules + "</ServerSideEncryptionConfiguration>";
}
std::string Rule(const std::string& by_default, const std::string& extra = "") {
  return "<Rule><ApplyServerSideEncryptionByDefault>" + by_default +
         "</ApplyServerSideEncryptionByDefault>" + extra + "</Rule>";
}

// ---- The XML.

TEST(BucketEncryptionXmlTest, ParsesWhatS3Takes) {
  struct Case {
    std::string name, xml;
    BucketEncryptionRule want;
  };
  const std::vector<Case> cases = {
      {"AES256", Config(Rule("<SSEAlgorithm>AES256</SSEAlgorithm>")), {}},
      {"AES256 with bucket key",
       Config(Rule("<SSEAlgorithm>AES256</SSEAlgorithm>",
                   "<BucketKeyEnabled>true</BucketKeyEnabled>")),
       {SseAlgorithm::kAes256, "", true}},
      {"aws:kms without key",
       Config(Rule("<SSEAlgorithm>aws:kms</SSEAlgorithm>")),
       {SseAlgorithm::kAwsKms, "", false}},
      {"aws:kms with key id and bucket key",
       Config(Rule("<SSEAlgorithm>aws:kms</SSEAlgorithm><KMSMasterKeyID>alias/app</KMSMasterKeyID>",
                   "<BucketKeyEnabled>true</BucketKeyEnabled>")),
       {SseAlgorithm::kAwsKms, "alias/app", true}},
      {"key ARN kept as given, whitespace trimmed",
       Config(Rule("<KMSMasterKeyID>\n arn:aws:kms:us-east-1:1:key/K \n</KMSMasterKeyID>"
                   "<SSEAlgorithm> aws:kms </SSEAlgorithm>")),
       {SseAlgorithm::kAwsKms, "arn:aws:kms:us-east-1:1:key/K", false}},
      {"empty key id: none",
       Config(Rule("<SSEAlgorithm>aws:kms</SSEAlgorithm><KMSMasterKeyID/>")),
       {SseAlgorithm::kAwsKms, "", false}},
      {"bucket key false first",
       Config("<Rule><BucketKeyEnabled>false</BucketKeyEnabled><ApplyServerSideEncryptionByDefault>"
              "<SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule>"),
       {}},
      {"no namespace",
       "<ServerSideEncryptionConfiguration>" + Rule("<SSEAlgorithm>AES256</SSEAlgorithm>") +
           "</ServerSideEncryptionConfiguration>",
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    BucketEncryption out;
    XmlBodyError e = ParseServerSideEncryptionConfiguration(c.xml, &out);
    ASSERT_TRUE(e.ok()) << e.message;
    EXPECT_EQ(out, BucketEncryption{{c.want}});
  }
}

TEST(BucketEncryptionXmlTest, RefusesWhatS3Refuses) {
  const std::string aes = "<SSEAlgorithm>AES256</SSEAlgorithm>";
  struct Case {
    std::string name, xml;
    ErrorCode code;
    std::string message;  // a part of it; empty: the table's
  };
  const std::vector<Case> cases = {
      {"not XML", "<ServerSideEncryptionConfiguration><Rule>", ErrorCode::kMalformedXML, ""},
      {"empty body", "", ErrorCode::kMalformedXML, ""},
      {"other root", "<CORSConfiguration>" + Rule(aes) + "</CORSConfiguration>",
       ErrorCode::kMalformedXML, ""},
      {"no rule", Config(""), ErrorCode::kMalformedXML, ""},
      {"two rules", Config(Rule(aes) + Rule(aes)), ErrorCode::kMalformedXML, ""},
      {"unknown element in root", Config(Rule(aes) + "<Other/>"), ErrorCode::kMalformedXML, ""},
      {"text in root", Config(Rule(aes) + "text"), ErrorCode::kMalformedXML, ""},
      {"rule without default", Config("<Rule><BucketKeyEnabled>true</BucketKeyEnabled></Rule>"),
       ErrorCode::kMalformedXML, ""},
      {"unknown element in rule", Config(Rule(aes, "<Other/>")), ErrorCode::kMalformedXML, ""},
      {"two defaults",
       Config("<Rule><ApplyServerSideEncryptionByDefault>" + aes +
              "</ApplyServerSideEncryptionByDefault><ApplyServerSideEncryptionByDefault>" + aes +
              "</ApplyServerSideEncryptionByDefault></Rule>"),
       ErrorCode::kMalformedXML, ""},
      {"no algorithm", Config(Rule("<KMSMasterKeyID>k</KMSMasterKeyID>")), ErrorCode::kMalformedXML,
       ""},
      {"empty algorithm", Config(Rule("<SSEAlgorithm/>")), ErrorCode::kMalformedXML, ""},
      {"unknown algorithm", Config(Rule("<SSEAlgorithm>AES128</SSEAlgorithm>")),
       ErrorCode::kMalformedXML, ""},
      {"algorithm case", Config(Rule("<SSEAlgorithm>aes256</SSEAlgorithm>")),
       ErrorCode::kMalformedXML, ""},
      {"SSE-C is no default", Config(Rule("<SSEAlgorithm>SSE-C</SSEAlgorithm>")),
       ErrorCode::kMalformedXML, ""},
      {"two algorithms", Config(Rule(aes + aes)), ErrorCode::kMalformedXML, ""},
      {"unknown element in default", Config(Rule(aes + "<Other/>")), ErrorCode::kMalformedXML, ""},
      {"element inside algorithm", Config(Rule("<SSEAlgorithm>AES256<x/></SSEAlgorithm>")),
       ErrorCode::kMalformedXML, ""},
      {"bucket key not boolean", Config(Rule(aes, "<BucketKeyEnabled>yes</BucketKeyEnabled>")),
       ErrorCode::kMalformedXML, ""},
      {"bucket key twice",
       Config(Rule(aes,
                   "<BucketKeyEnabled>true</BucketKeyEnabled>"
                   "<BucketKeyEnabled>true</BucketKeyEnabled>")),
       ErrorCode::kMalformedXML, ""},
      {"key id with AES256", Config(Rule(aes + "<KMSMasterKeyID>k</KMSMasterKeyID>")),
       ErrorCode::kInvalidArgument,
       "a KMSMasterKeyID is not applicable if the default sse algorithm is not aws:kms or "
       "aws:kms:dsse"},
      {"empty key id with AES256", Config(Rule(aes + "<KMSMasterKeyID/>")),
       ErrorCode::kInvalidArgument, "KMSMasterKeyID is not applicable"},
      {"dual-layer", Config(Rule("<SSEAlgorithm>aws:kms:dsse</SSEAlgorithm>")),
       ErrorCode::kNotImplemented, "aws:kms:dsse"},
      // The structure is checked before the algorithm's refusals.
      {"dual-layer and two rules",
       Config(Rule("<SSEAlgorithm>aws:kms:dsse</SSEAlgorithm>") + Rule(aes)),
       ErrorCode::kMalformedXML, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    BucketEncryption out{{BucketEncryptionRule{SseAlgorithm::kAwsKms, "keep", true}}};
    const BucketEncryption before = out;
    XmlBodyError e = ParseServerSideEncryptionConfiguration(c.xml, &out);
    EXPECT_EQ(e.code, c.code);
    if (c.message.empty()) {
      EXPECT_EQ(e.message, "");
    } else {
      EXPECT_NE(e.message.find(c.message), std::string::npos) << e.message;
    }
    EXPECT_EQ(out, before) << "an error changed *out";
  }
}

TEST(BucketEncryptionXmlTest, RendersWhatS3Answers) {
  const std::string ns =
      "<ServerSideEncryptionConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">";
  EXPECT_EQ(ServerSideEncryptionConfigurationXml(BucketEncryption{{BucketEncryptionRule{}}}),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + ns +
                "<Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm>"
                "</ApplyServerSideEncryptionByDefault><BucketKeyEnabled>false</BucketKeyEnabled>"
                "</Rule></ServerSideEncryptionConfiguration>");
  const std::string kms = ServerSideEncryptionConfigurationXml(
      BucketEncryption{{BucketEncryptionRule{SseAlgorithm::kAwsKms, "alias/a&b", true}}});
  EXPECT_TRUE(Contains(kms,
                       "<SSEAlgorithm>aws:kms</SSEAlgorithm>"
                       "<KMSMasterKeyID>alias/a&amp;b</KMSMasterKeyID>"
                       "</ApplyServerSideEncryptionByDefault>"
                       "<BucketKeyEnabled>true</BucketKeyEnabled>"))
      << kms;
  // What is rendered parses back to the same rule.
  for (const BucketEncryptionRule& rule :
       {BucketEncryptionRule{}, BucketEncryptionRule{SseAlgorithm::kAes256, "", true},
        BucketEncryptionRule{SseAlgorithm::kAwsKms, "", false},
        BucketEncryptionRule{SseAlgorithm::kAwsKms, "arn:aws:kms:r:1:key/k", true}}) {
    BucketEncryption back;
    ASSERT_TRUE(ParseServerSideEncryptionConfiguration(
                    ServerSideEncryptionConfigurationXml(BucketEncryption{{rule}}), &back)
                    .ok());
    EXPECT_EQ(back, BucketEncryption{{rule}});
  }
}

// ---- The rule a write follows.

TEST(BucketDefaultEncryptionTest, BucketRuleWinsThenServerDefault) {
  using Mode = DefaultSse::Mode;
  struct Case {
    std::string name;
    BucketEncryption bucket;
    bool server_default;
    DefaultSse want;
  };
  const std::vector<Case> cases = {
      {"nothing", {}, false, {Mode::kNone, "", false}},
      {"server default", {}, true, {Mode::kSseS3, "", false}},
      {"bucket AES256", {{BucketEncryptionRule{}}}, false, {Mode::kSseS3, "", false}},
      {"bucket AES256, bucket key not reported",
       {{BucketEncryptionRule{SseAlgorithm::kAes256, "", true}}},
       false,
       {Mode::kSseS3, "", false}},
      {"bucket aws:kms default key",
       {{BucketEncryptionRule{SseAlgorithm::kAwsKms, "", false}}},
       false,
       {Mode::kSseKms, "", false}},
      {"bucket aws:kms wins over server default",
       {{BucketEncryptionRule{SseAlgorithm::kAwsKms, "alias/app", true}}},
       true,
       {Mode::kSseKms, "alias/app", true}},
      {"bucket dsse (never stored) is KMS",
       {{BucketEncryptionRule{SseAlgorithm::kAwsKmsDsse, "k", false}}},
       false,
       {Mode::kSseKms, "k", false}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    storage::BucketRecord bucket;
    bucket.name = "b";
    bucket.encryption = c.bucket;
    ServiceOptions options;
    options.default_sse_s3 = c.server_default;
    EXPECT_EQ(BucketDefaultEncryption(bucket, options), c.want);
  }
}

// ---- Through the service.

class BucketEncryptionServiceTest : public ServiceTest {
 protected:
  Reply PutEncryption(const std::string& bucket, const std::string& xml,
                      std::vector<Header> headers, std::string key_id = kRootId) {
    Req r;
    r.method = "PUT";
    r.path = "/" + bucket;
    r.query = "encryption";
    r.body = xml;
    r.headers = std::move(headers);
    r.key_id = std::move(key_id);
    return Send(std::move(r));
  }
  Reply PutEncryption(const std::string& bucket, const std::string& xml) {
    return PutEncryption(bucket, xml, Md5Of(xml));
  }
  static std::vector<Header> Md5Of(const std::string& body) {
    return {{"content-md5", text::Base64Encode(auth::Md5(body))}};
  }
  // The service again, with the server's --default-encryption set.
  void RestartWithServerDefault(bool default_sse_s3) {
    ServiceOptions options;
    options.clock = [this] { return now_; };
    options.default_sse_s3 = default_sse_s3;
    service_ = std::make_unique<S3Service>(store_.get(), options);
  }
  const std::string kKms =
      Config(Rule("<SSEAlgorithm>aws:kms</SSEAlgorithm><KMSMasterKeyID>alias/app</KMSMasterKeyID>",
                  "<BucketKeyEnabled>true</BucketKeyEnabled>"));
};

TEST_F(BucketEncryptionServiceTest, PutGetDeleteRoundTrip) {
  MakeBucket("bkt");
  Reply none = Do("GET", "/bkt", "encryption");
  EXPECT_EQ(none.status(), 404);
  EXPECT_EQ(none.summary.operation, "GetBucketEncryption");
  EXPECT_EQ(none.Code(), "ServerSideEncryptionConfigurationNotFoundError");
  EXPECT_TRUE(Contains(none.body, "The server side encryption configuration was not found"));

  Reply put = PutEncryption("bkt", kKms);
  EXPECT_EQ(put.status(), 200) << put.body;
  EXPECT_EQ(put.summary.operation, "PutBucketEncryption");
  storage::Result<storage::BucketRecord> stored = store_->GetBucket("bkt");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->encryption,
            (BucketEncryption{{BucketEncryptionRule{SseAlgorithm::kAwsKms, "alias/app", true}}}));

  Reply get = Do("GET", "/bkt", "encryption");
  EXPECT_EQ(get.status(), 200);
  EXPECT_EQ(get.Header("Content-Type"), "application/xml");
  EXPECT_EQ(Tag(get.body, "SSEAlgorithm"), "aws:kms");
  EXPECT_EQ(Tag(get.body, "KMSMasterKeyID"), "alias/app");
  EXPECT_EQ(Tag(get.body, "BucketKeyEnabled"), "true");

  // A second PUT replaces the rule.
  ASSERT_EQ(PutEncryption("bkt", Config(Rule("<SSEAlgorithm>AES256</SSEAlgorithm>"))).status(),
            200);
  get = Do("GET", "/bkt", "encryption");
  EXPECT_EQ(Tag(get.body, "SSEAlgorithm"), "AES256");
  EXPECT_EQ(Tag(get.body, "KMSMasterKeyID"), "<absent>");
  EXPECT_EQ(Tag(get.body, "BucketKeyEnabled"), "false");

  Reply deleted = Do("DELETE", "/bkt", "encryption");
  EXPECT_EQ(deleted.status(), 204);
  EXPECT_EQ(deleted.summary.operation, "DeleteBucketEncryption");
  EXPECT_TRUE(store_->GetBucket("bkt")->encryption.rules.empty());
  EXPECT_EQ(Do("GET", "/bkt", "encryption").Code(),
            "ServerSideEncryptionConfigurationNotFoundError");
  EXPECT_EQ(Do("DELETE", "/bkt", "encryption").status(), 204);  // none: still 204
  for (const char* method : {"GET", "DELETE"}) {
    SCOPED_TRACE(method);
    EXPECT_EQ(Do(method, "/nope", "encryption").Code(), "NoSuchBucket");
  }
  EXPECT_EQ(PutEncryption("nope", kKms).Code(), "NoSuchBucket");
}

TEST_F(BucketEncryptionServiceTest, PutErrors) {
  MakeBucket("bkt");
  struct Case {
    std::string name, xml;
    std::vector<Header> headers;  // empty: Content-MD5 of xml
    std::string key_id;
    int status;
    std::string code;
  };
  const std::string aes = Config(Rule("<SSEAlgorithm>AES256</SSEAlgorithm>"));
  const std::vector<Case> cases = {
      {"malformed", "<ServerSideEncryptionConfiguration><Rule>", {}, kRootId, 400, "MalformedXML"},
      {"unknown algorithm",
       Config(Rule("<SSEAlgorithm>ROT13</SSEAlgorithm>")),
       {},
       kRootId,
       400,
       "MalformedXML"},
      {"two rules",
       Config(Rule("<SSEAlgorithm>AES256</SSEAlgorithm>") +
              Rule("<SSEAlgorithm>aws:kms</SSEAlgorithm>")),
       {},
       kRootId,
       400,
       "MalformedXML"},
      {"key id with AES256",
       Config(Rule("<SSEAlgorithm>AES256</SSEAlgorithm><KMSMasterKeyID>k</KMSMasterKeyID>")),
       {},
       kRootId,
       400,
       "InvalidArgument"},
      {"dual-layer",
       Config(Rule("<SSEAlgorithm>aws:kms:dsse</SSEAlgorithm>")),
       {},
       kRootId,
       501,
       "NotImplemented"},
      {"no integrity header", aes, {{"x-amz-meta-x", "1"}}, kRootId, 400, "InvalidRequest"},
      {"wrong md5", aes, Md5Of("other"), kRootId, 400, "BadDigest"},
      {"a COSI key", aes, {}, kOtherId, 403, "AccessDenied"},
      {"anonymous", aes, {}, kAnonymous, 403, "AccessDenied"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Reply r = PutEncryption("bkt", c.xml, c.headers.empty() ? Md5Of(c.xml) : c.headers, c.key_id);
    EXPECT_EQ(r.status(), c.status) << r.body;
    EXPECT_EQ(r.Code(), c.code);
  }
  EXPECT_TRUE(Contains(PutEncryption("bkt", aes, {{"x-amz-meta-x", "1"}}).body,
                       "Missing required header for this request: Content-Md5"));
  EXPECT_TRUE(store_->GetBucket("bkt")->encryption.rules.empty()) << "a refused PUT stored it";
  // Reading and deleting need their own rights too.
  EXPECT_EQ(Do("GET", "/bkt", "encryption", kOtherId).Code(), "AccessDenied");
  EXPECT_EQ(Do("DELETE", "/bkt", "encryption", kAnonymous).Code(), "AccessDenied");
}

// Without a rule of its own a bucket answers the AES256 rule when the server encrypts by
// default, and the bucket's own rule always wins.
TEST_F(BucketEncryptionServiceTest, ServerDefaultChangesGetsAnswer) {
  MakeBucket("bkt");
  MakeBucket("own");
  ASSERT_EQ(PutEncryption("own", kKms).status(), 200);
  RestartWithServerDefault(true);
  Reply get = Do("GET", "/bkt", "encryption");
  EXPECT_EQ(get.status(), 200) << get.body;
  EXPECT_EQ(Tag(get.body, "SSEAlgorithm"), "AES256");
  EXPECT_EQ(Tag(get.body, "BucketKeyEnabled"), "false");
  EXPECT_TRUE(store_->GetBucket("bkt")->encryption.rules.empty()) << "GET stored the default";
  EXPECT_EQ(Tag(Do("GET", "/own", "encryption").body, "SSEAlgorithm"), "aws:kms");
  // Deleting the bucket's rule falls back to the server's.
  ASSERT_EQ(Do("DELETE", "/own", "encryption").status(), 204);
  EXPECT_EQ(Tag(Do("GET", "/own", "encryption").body, "SSEAlgorithm"), "AES256");
  EXPECT_EQ(Do("GET", "/nope", "encryption").Code(), "NoSuchBucket");
  RestartWithServerDefault(false);
  EXPECT_EQ(Do("GET", "/bkt", "encryption").Code(),
            "ServerSideEncryptionConfigurationNotFoundError");
}

// With a key store, an aws:kms rule's key must name one of its keys (kms::KeyService::ResolveKey);
// a rule without a key id names the AWS-managed key and is not looked up.
TEST_F(BucketEncryptionServiceTest, KmsKeyIsResolved) {
  MakeBucket("bkt");
  const crypt::Key256 kek;
  kms::KeyService kms(store_.get(), &kek, "us-east-1");
  ServiceOptions options;
  options.clock = [this] { return now_; };
  options.kms = &kms;
  service_ = std::make_unique<S3Service>(store_.get(), options);
  const std::string unknown = Config(
      Rule("<SSEAlgorithm>aws:kms</SSEAlgorithm><KMSMasterKeyID>alias/nope</KMSMasterKeyID>"));
  Reply r = PutEncryption("bkt", unknown);
  EXPECT_EQ(r.status(), 400) << r.body;
  EXPECT_EQ(r.Code(), "KMS.NotFoundException");
  EXPECT_TRUE(Contains(r.body, "Key &apos;alias/nope&apos; does not exist")) << r.body;
  EXPECT_TRUE(store_->GetBucket("bkt")->encryption.rules.empty()) << "a refused PUT stored it";
  r = PutEncryption("bkt", Config(Rule("<SSEAlgorithm>aws:kms</SSEAlgorithm>")));
  EXPECT_EQ(r.status(), 200) << r.body;
  service_.reset();  // before the key store it points to
}

}  // namespace
}  // namespace cubby::s3api
