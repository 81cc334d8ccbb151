// The write path of a new object (s3api/new_object.h), called directly over a real Store: the
// steps run in the order a handler gives them and stop at the first failure; WriteNewObject
// commits only what was received and checked, under the write's condition and the quota.
#include "s3api/new_object.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "s3api/auth/crypto.h"
#include "service_fixture.h"
#include "text/encoding.h"

namespace cubby::s3api {
namespace {

using test_support::FindHeader;
using enum NewObjectStep;

class NewObjectTest : public test_support::ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    MakeBucket("nbk");
    root_.anonymous = false;
    root_.key = store_->GetAccessKey(test_support::kRootId).value();
  }

  // A PUT of nbk/`key` with `headers`, by the root key.
  struct Call {
    HttpRequest request;
    Route route;
    StringBodyReader body{""};
    CountingBodyReader counted{body};
  };
  std::unique_ptr<Call> NewCall(std::vector<Header> headers, std::string key = "k") {
    auto call = std::make_unique<Call>();
    call->request.method = "PUT";
    call->request.target = "/nbk/" + key;
    call->request.request_id = "REQ1";
    call->request.headers = std::move(headers);
    call->route.op = Operation::kPutObject;
    call->route.bucket = "nbk";
    call->route.key = key;
    call->route.path = "/nbk/" + key;
    return call;
  }
  Context ContextOf(Call& call) {
    return Context{call.request, call.counted, call.route, root_,
                   store_.get(), options_,     now_,       &summary_};
  }
  static std::string CodeOf(const Failure& failure) {
    const std::string& body = failure.response().body;
    const size_t a = body.find("<Code>"), b = body.find("</Code>");
    return a == std::string::npos ? "<none>" : body.substr(a + 6, b - a - 6);
  }
  // Bytes from a string, with MD5 (and no checksum).
  static NewObjectBytes BytesOf(std::string data) {
    return {.receive = [data](const BodySink& sink, ReceivedBody* out) -> Failure {
      if (storage::Status s = sink(data); !s.ok()) return HttpResponse{.status = 500};
      out->size = data.size();
      out->md5 = auth::Md5(data);
      return Failure::None();
    }};
  }

  auth::AuthResult root_;
  ServiceOptions options_;
  RequestSummary summary_;
};

TEST_F(NewObjectTest, StepsRunInTheOrderGivenAndStopAtTheFirstFailure) {
  // Fails kContent (a class AWS does not have) and kEncryption (an unknown method).
  auto call = NewCall({{"x-amz-storage-class", "COLD"},
                       {"x-amz-server-side-encryption", "rot13"},
                       {"x-amz-tagging", "a=1"}});
  const Context ctx = ContextOf(*call);
  struct Case {
    std::string name;
    std::function<Failure(NewObject*)> describe;
    std::string code;
    bool tagged;  // kTags ran
  };
  const std::vector<Case> cases = {
      {"content first",
       [&](NewObject* o) {
         return DescribeNewObject(ctx, {kContent, kTags, kEncryption}, o);
       },
       "InvalidStorageClass", false},
      {"encryption first",
       [&](NewObject* o) {
         return DescribeNewObject(ctx, {kTags, kEncryption, kContent}, o);
       },
       "InvalidArgument", true},
      {"neither",
       [&](NewObject* o) {
         return DescribeNewObject(ctx, {kTags, kLock, kAccess}, o);
       },
       "", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NewObject object;
    Failure failure = c.describe(&object);
    EXPECT_EQ(failure ? CodeOf(failure) : "", c.code);
    EXPECT_EQ(object.meta.tags.size(), c.tagged ? 1u : 0u);
  }
}

TEST_F(NewObjectTest, ContentStep) {
  auto call = NewCall({{"content-type", "text/plain"},
                       {"content-encoding", "aws-chunked, gzip"},
                       {"x-amz-storage-class", "STANDARD_IA"},
                       {"x-amz-meta-color", "=?UTF-8?B?YmxldQ==?="}});
  NewObject object;
  ASSERT_FALSE(DescribeNewObject(ContextOf(*call), {kContent}, &object));
  EXPECT_EQ(object.meta.content_type, "text/plain");
  EXPECT_EQ(object.meta.content_encoding, "gzip");
  EXPECT_EQ(object.meta.storage_class, "STANDARD_IA");
  ASSERT_EQ(object.meta.user_meta.size(), 1u);
  EXPECT_EQ(object.meta.user_meta[0].second, "bleu");

  auto plain = NewCall({{"x-amz-storage-class", "STANDARD"}});
  NewObject defaults;
  ASSERT_FALSE(DescribeNewObject(ContextOf(*plain), {kContent}, &defaults));
  EXPECT_EQ(defaults.meta.content_type, "binary/octet-stream");
  EXPECT_EQ(defaults.meta.storage_class, "");

  auto large = NewCall({{"x-amz-meta-big", std::string(2048, 'x')}});
  NewObject refused;
  Failure failure = DescribeNewObject(ContextOf(*large), {kContent}, &refused);
  ASSERT_TRUE(failure);
  EXPECT_EQ(CodeOf(failure), "MetadataTooLarge");
}

TEST_F(NewObjectTest, TagsOfACopyKeepTheSourcesUnlessReplaced) {
  storage::ObjectMeta source;
  source.tags = {{"from", "source"}};
  for (const auto& [directive, want] : std::vector<std::pair<std::string, std::string>>{
           {"", "from"}, {"COPY", "from"}, {"REPLACE", "mine"}}) {
    SCOPED_TRACE(directive);
    std::vector<Header> headers = {{"x-amz-tagging", "mine=1"}};
    if (!directive.empty()) headers.push_back({"x-amz-tagging-directive", directive});
    auto call = NewCall(headers);
    NewObject object;
    object.copy_source = &source;
    ASSERT_FALSE(DescribeNewObject(ContextOf(*call), {kTags}, &object));
    ASSERT_EQ(object.meta.tags.size(), 1u);
    EXPECT_EQ(object.meta.tags[0].first, want);
  }
}

TEST_F(NewObjectTest, ChecksumAlgorithmFromHeaders) {
  struct Case {
    std::optional<std::string> header;
    std::optional<auth::ChecksumAlgorithm> want;
    bool refused;
  };
  const std::vector<Case> cases = {
      {std::nullopt, std::nullopt, false},
      {"CRC32C", auth::ChecksumAlgorithm::kCrc32c, false},
      {"SHA256", auth::ChecksumAlgorithm::kSha256, false},
      {"MD5", std::nullopt, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.header.value_or("<absent>"));
    std::vector<Header> headers;
    if (c.header) headers.push_back({"x-amz-checksum-algorithm", *c.header});
    auto call = NewCall(headers);
    std::optional<auth::ChecksumAlgorithm> got = auth::ChecksumAlgorithm::kCrc32;
    Failure failure = ChecksumAlgorithmFromHeaders(ContextOf(*call), &got);
    EXPECT_EQ(static_cast<bool>(failure), c.refused);
    if (failure) {
      EXPECT_EQ(CodeOf(failure), "InvalidRequest");
    }
    EXPECT_EQ(got, c.want);
  }
}

TEST_F(NewObjectTest, WriteCommitsWhatWasReceived) {
  auto call = NewCall({{"content-type", "text/plain"}});
  const Context ctx = ContextOf(*call);
  NewObject object;
  ASSERT_FALSE(DescribeNewObject(ctx, {kContent, kEncryption, kCondition, kDataKey}, &object));
  object.meta.checksums = {{"CRC32", "kept-unless-the-bytes-bring-one"}};
  storage::ObjectMeta committed;
  ASSERT_FALSE(WriteNewObject(ctx, &object, BytesOf("hello"), &committed));
  EXPECT_EQ(committed.size, 5u);
  EXPECT_EQ(committed.etag, text::HexEncode(auth::Md5("hello")));
  EXPECT_EQ(committed.content_type, "text/plain");
  EXPECT_EQ(committed.last_modified_ms, ctx.now_ms());
  EXPECT_EQ(committed.checksums.at("CRC32"), "kept-unless-the-bytes-bring-one");
  storage::Result<storage::ObjectMeta> head = store_->HeadObject("nbk", "k");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->etag, committed.etag);

  HttpResponse r;
  SetNewObjectHeaders(ctx, committed, &r);
  ASSERT_NE(FindHeader(r, "ETag"), nullptr);
  EXPECT_EQ(*FindHeader(r, "ETag"), "\"" + committed.etag + "\"");
  EXPECT_NE(FindHeader(r, "x-amz-checksum-crc32"), nullptr);
  EXPECT_EQ(FindHeader(r, "x-amz-version-id"), nullptr);  // a bucket never versioned

  // A checksum the bytes come with replaces the one the description kept.
  NewObject again;
  ASSERT_FALSE(DescribeNewObject(ctx, {kContent, kEncryption, kDataKey}, &again));
  again.meta.checksums = {{"CRC32", "old"}};
  NewObjectBytes with_checksum = {.receive = [](const BodySink& sink, ReceivedBody* out) {
    EXPECT_TRUE(sink("x").ok());
    out->size = 1;
    out->md5 = auth::Md5("x");
    out->checksum_name = "SHA1";
    out->checksum_b64 = "c2hhMQ==";
    return Failure::None();
  }};
  ASSERT_FALSE(WriteNewObject(ctx, &again, with_checksum, &committed));
  EXPECT_EQ(committed.checksums, (std::map<std::string, std::string>{{"SHA1", "c2hhMQ=="}}));
}

TEST_F(NewObjectTest, NothingIsCommittedOnAFailure) {
  auto call = NewCall({});
  const Context ctx = ContextOf(*call);
  auto refuse = [&](ErrorCode code) {
    return [&ctx, code](const ReceivedBody&) -> Failure { return ErrorResponse(ctx, code); };
  };
  struct Case {
    std::string name;
    NewObjectBytes bytes;
    std::string code;
  };
  NewObjectBytes cut_short = {.receive = [&](const BodySink& sink, ReceivedBody*) -> Failure {
    EXPECT_TRUE(sink("part").ok());
    return ErrorResponse(ctx, ErrorCode::kIncompleteBody);
  }};
  NewObjectBytes too_small = BytesOf("abc");
  too_small.check = refuse(ErrorCode::kEntityTooSmall);
  std::vector<Case> cases;
  cases.push_back({"receive fails", cut_short, "IncompleteBody"});
  cases.push_back({"check fails", too_small, "EntityTooSmall"});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NewObject object;
    ASSERT_FALSE(DescribeNewObject(ctx, {kEncryption, kDataKey}, &object));
    storage::ObjectMeta committed;
    Failure failure = WriteNewObject(ctx, &object, c.bytes, &committed);
    ASSERT_TRUE(failure);
    EXPECT_EQ(CodeOf(failure), c.code);
    EXPECT_FALSE(store_->HeadObject("nbk", "k").ok());
  }

  // The quota, checked again with the size received.
  ASSERT_TRUE(store_
                  ->UpdateBucket("nbk",
                                 [](storage::BucketRecord* b) {
                                   b->quota.bytes = 2;
                                   return storage::Status::Ok();
                                 })
                  .ok());
  NewObject over;
  ASSERT_FALSE(DescribeNewObject(ctx, {kEncryption, kDataKey}, &over));
  storage::ObjectMeta committed;
  Failure failure = WriteNewObject(ctx, &over, BytesOf("abc"), &committed);
  ASSERT_TRUE(failure);
  EXPECT_EQ(CodeOf(failure), "QuotaExceeded");
  EXPECT_FALSE(store_->HeadObject("nbk", "k").ok());
}

TEST_F(NewObjectTest, WriteUnderTheCondition) {
  auto first = NewCall({});
  NewObject object;
  storage::ObjectMeta committed;
  ASSERT_FALSE(DescribeNewObject(ContextOf(*first), {kEncryption, kCondition, kDataKey}, &object));
  ASSERT_FALSE(WriteNewObject(ContextOf(*first), &object, BytesOf("one"), &committed));

  struct Case {
    std::string name;
    std::vector<Header> headers;
    std::string key;
    std::string code;  // of the condition step or the write; "" for success
  };
  const std::vector<Case> cases = {
      {"If-None-Match on an existing key", {{"if-none-match", "*"}}, "k", "PreconditionFailed"},
      {"If-Match with another ETag", {{"if-match", "\"abc\""}}, "k", "PreconditionFailed"},
      {"If-Match on a missing key", {{"if-match", "\"abc\""}}, "gone", "NoSuchKey"},
      {"If-Match * on a missing key", {{"if-match", "*"}}, "gone", "NoSuchKey"},
      {"If-None-Match other than *", {{"if-none-match", "\"abc\""}}, "k", "NotImplemented"},
      {"If-Match with the ETag", {{"if-match", "\"" + committed.etag + "\""}}, "k", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto call = NewCall(c.headers, c.key);
    const Context ctx = ContextOf(*call);
    NewObject next;
    Failure failure = DescribeNewObject(ctx, {kEncryption, kCondition, kDataKey}, &next);
    storage::ObjectMeta written;
    if (!failure) failure = WriteNewObject(ctx, &next, BytesOf("two"), &written);
    EXPECT_EQ(failure ? CodeOf(failure) : "", c.code);
  }
}

}  // namespace
}  // namespace cubby::s3api
