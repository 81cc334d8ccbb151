// The IAM query API (iam/iam_api.h) as request → response tables against a real store: every
// action, IAM's XML shapes and every error code it answers.
#include "iam/iam_api.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "storage/users.h"
#include "test/storage/test_util.h"

namespace cubby::iam {
namespace {

// A URL-encoded user policy allowing s3:* whose Sid is `sid`.
std::string EncodedPolicy(const std::string& sid) {
  return "%7B%22Version%22%3A%222012-10-17%22%2C%22Statement%22%3A%5B%7B%22Sid%22%3A%22" + sid +
         "%22%2C%22Effect%22%3A%22Allow%22%2C%22Action%22%3A%22s3%3A*%22%2C%22Resource%22%3A%22*%22"
         "%7D%5D%7D";
}

using storage::testing::OpenOrDie;
using storage::testing::SmallOptions;
using storage::testing::TempDir;

constexpr int64_t kNow = 1700000000000;  // 2023-11-14T22:13:20.000Z

bool Contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// The text of the first <tag>...</tag> in `body`.
std::string Tag(const std::string& body, std::string_view tag) {
  const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
  const size_t a = body.find(open);
  if (a == std::string::npos) return "<missing>";
  const size_t b = body.find(close, a);
  return body.substr(a + open.size(), b - a - open.size());
}

class IamApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenOrDie(SmallOptions(dir_.path()));
    storage::UserRecord root;
    root.name = "root";
    auto made = store_->CreateUser(root);
    ASSERT_TRUE(made.ok());
    root_.access_key_id = "CBROOT";
    root_.all_buckets = true;
    root_.user_id = made->user_id;
  }

  // Runs a form ("Action=CreateUser&UserName=alice") as `caller` (root by default).
  IamResponse Call(const std::string& form, const storage::AccessKeyRecord* caller = nullptr) {
    IamRequest request;
    std::string why;
    IamError parsed = ParseIamForm(form, &request, &why);
    if (parsed != IamError::kNone) return ErrorResponse(parsed, why, "REQ");
    const Authorizer authorizer(store_.get());
    const RequestFacts facts{.source_ip = "127.0.0.1"};
    const IamCaller who{.key = caller ? *caller : root_, .authorizer = authorizer, .facts = facts};
    return HandleIam(*store_, who, request, "REQ", kNow);
  }

  TempDir dir_;
  std::unique_ptr<storage::Store> store_;
  storage::AccessKeyRecord root_;
};

TEST(IamForm, Parse) {
  IamRequest r;
  std::string why;
  ASSERT_EQ(ParseIamForm("Action=CreateUser&UserName=a%2Bb+c&Version=2010-05-08", &r, &why),
            IamError::kNone);
  EXPECT_EQ(r.action, "CreateUser");
  EXPECT_EQ(*r.Find("UserName"), "a+b c");
  EXPECT_EQ(r.Find("Nope"), nullptr);
  struct Case {
    std::string form;
    IamError error;
  } cases[] = {
      {"UserName=a", IamError::kInvalidAction},
      {"Action=", IamError::kInvalidAction},
      {"", IamError::kInvalidAction},
      {"Action=GetUser&x=%zz", IamError::kValidationError},
      {"Action=GetUser&x=" + std::string(kMaxIamFormBytes, 'a'), IamError::kRequestEntityTooLarge},
  };
  for (const Case& c : cases) {
    IamRequest out;
    EXPECT_EQ(ParseIamForm(c.form, &out, &why), c.error) << c.form.substr(0, 40);
    EXPECT_FALSE(why.empty());
  }
}

TEST(IamErrors, CodesAndShapes) {
  struct Case {
    IamError error;
    std::string_view code;
    int status;
  } cases[] = {
      {IamError::kAccessDenied, "AccessDenied", 403},
      {IamError::kDeleteConflict, "DeleteConflict", 409},
      {IamError::kEntityAlreadyExists, "EntityAlreadyExists", 409},
      {IamError::kIncompleteSignature, "IncompleteSignature", 400},
      {IamError::kInvalidAction, "InvalidAction", 400},
      {IamError::kInvalidClientTokenId, "InvalidClientTokenId", 403},
      {IamError::kInvalidInput, "InvalidInput", 400},
      {IamError::kLimitExceeded, "LimitExceeded", 409},
      {IamError::kMalformedPolicyDocument, "MalformedPolicyDocument", 400},
      {IamError::kMissingAuthenticationToken, "MissingAuthenticationToken", 403},
      {IamError::kNoSuchEntity, "NoSuchEntity", 404},
      {IamError::kRequestEntityTooLarge, "RequestEntityTooLarge", 413},
      {IamError::kServiceFailure, "ServiceFailure", 500},
      {IamError::kSignatureDoesNotMatch, "SignatureDoesNotMatch", 403},
      {IamError::kValidationError, "ValidationError", 400},
  };
  for (const Case& c : cases) {
    IamResponse r = ErrorResponse(c.error, "why <&>", "REQ1");
    EXPECT_EQ(r.status, c.status) << c.code;
    EXPECT_EQ(Info(c.error).code, c.code);
    EXPECT_EQ(r.body,
              "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<ErrorResponse xmlns=\"https://iam.amazonaws.com/doc/2010-05-08/\"><Error><Type>" +
                  std::string(c.error == IamError::kServiceFailure ? "Receiver" : "Sender") +
                  "</Type><Code>" + std::string(c.code) +
                  "</Code><Message>why &lt;&amp;&gt;</Message></Error><RequestId>REQ1</RequestId>"
                  "</ErrorResponse>");
  }
}

TEST_F(IamApiTest, UserLifecycle) {
  IamResponse r = Call(
      "Action=CreateUser&UserName=alice&Tags.member.1.Key=team&"
      "Tags.member.1.Value=storage");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(Contains(r.body,
                       "<CreateUserResponse xmlns=\"https://iam.amazonaws.com/doc/"
                       "2010-05-08/\"><CreateUserResult><User><Path>/</Path>"
                       "<UserName>alice</UserName><UserId>"));
  const std::string alice_id = store_->GetUser("alice")->user_id;
  const std::string account = *store_->GetAccountId();
  EXPECT_EQ(Tag(r.body, "UserId"), alice_id);
  EXPECT_EQ(Tag(r.body, "Arn"), "arn:aws:iam::" + account + ":user/alice");
  EXPECT_EQ(Tag(r.body, "CreateDate"), "2023-11-14T22:13:20.000Z");
  EXPECT_TRUE(Contains(r.body, "<Tags><member><Key>team</Key><Value>storage</Value></member>"));
  EXPECT_TRUE(Contains(r.body,
                       "<ResponseMetadata><RequestId>REQ</RequestId></ResponseMetadata>"
                       "</CreateUserResponse>"));

  r = Call("Action=GetUser&UserName=ALICE");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(Contains(r.body, "<GetUserResult><User>"));
  EXPECT_EQ(Tag(r.body, "UserName"), "alice");
  r = Call("Action=GetUser");  // the caller
  EXPECT_EQ(Tag(r.body, "UserName"), "root");

  ASSERT_EQ(Call("Action=CreateUser&UserName=bob").status, 200);
  ASSERT_EQ(Call("Action=CreateUser&UserName=carol").status, 200);
  r = Call("Action=ListUsers&MaxItems=2");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(Contains(r.body, "<ListUsersResult><Users><member><Path>/</Path><UserName>alice"));
  EXPECT_TRUE(Contains(r.body, "<UserName>bob</UserName>"));
  EXPECT_FALSE(Contains(r.body, "<UserName>carol</UserName>"));
  EXPECT_EQ(Tag(r.body, "IsTruncated"), "true");
  const std::string marker = Tag(r.body, "Marker");
  r = Call("Action=ListUsers&MaxItems=2&Marker=" + marker);
  EXPECT_TRUE(Contains(r.body, "<UserName>carol</UserName>"));
  EXPECT_TRUE(Contains(r.body, "<UserName>root</UserName>"));
  EXPECT_EQ(Tag(r.body, "IsTruncated"), "false");
  EXPECT_FALSE(Contains(r.body, "<Marker>"));

  r = Call("Action=DeleteUser&UserName=bob");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DeleteUserResponse xmlns=\"https://"
            "iam.amazonaws.com/doc/2010-05-08/\"><ResponseMetadata><RequestId>REQ</RequestId>"
            "</ResponseMetadata></DeleteUserResponse>");
  EXPECT_EQ(Call("Action=GetUser&UserName=bob").status, 404);
}

// cubby's EmailAddress parameter of CreateUser: what ACL grants by e-mail resolve to.
TEST_F(IamApiTest, CreateUserWithEmailAddress) {
  IamResponse r = Call("Action=CreateUser&UserName=dave&EmailAddress=dave%40example.com");
  ASSERT_EQ(r.status, 200) << r.body;
  auto found = store_->FindUserByEmail("DAVE@example.com");  // addresses match without case
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ(found->name, "dave");
  // Taken by another user: EntityAlreadyExists; malformed: ValidationError. Neither makes a user.
  r = Call("Action=CreateUser&UserName=erin&EmailAddress=dave%40example.com");
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_EQ(Tag(r.body, "Code"), "EntityAlreadyExists");
  for (const char* bad : {"no-at-sign", "two%40at%40signs", "%40example.com", "sp%20ace%40x.y"}) {
    r = Call(std::string("Action=CreateUser&UserName=erin&EmailAddress=") + bad);
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_EQ(Tag(r.body, "Code"), "ValidationError") << bad;
  }
  EXPECT_EQ(Call("Action=GetUser&UserName=erin").status, 404);
}

TEST_F(IamApiTest, AccessKeys) {
  ASSERT_EQ(Call("Action=CreateUser&UserName=alice").status, 200);
  IamResponse r = Call("Action=CreateAccessKey&UserName=alice");
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string id = Tag(r.body, "AccessKeyId");
  const std::string secret = Tag(r.body, "SecretAccessKey");
  EXPECT_EQ(Tag(r.body, "Status"), "Active");
  EXPECT_EQ(Tag(r.body, "UserName"), "alice");
  EXPECT_EQ(store_->GetAccessKey(id)->secret.reveal(), secret);
  // A given id and secret (cubby's parameters, for fixtures).
  r = Call(
      "Action=CreateAccessKey&UserName=alice&AccessKeyId=FIXTUREKEY000001&"
      "SecretAccessKey=fixture%2Fsecret");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Tag(r.body, "AccessKeyId"), "FIXTUREKEY000001");
  EXPECT_EQ(store_->GetAccessKey("FIXTUREKEY000001")->secret.reveal(), "fixture/secret");
  EXPECT_EQ(Call("Action=CreateAccessKey&UserName=alice").status, 409);  // LimitExceeded

  r = Call("Action=ListAccessKeys&UserName=alice");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(Contains(r.body,
                       "<ListAccessKeysResult><UserName>alice</UserName>"
                       "<AccessKeyMetadata><member><UserName>alice</UserName>"));
  EXPECT_TRUE(Contains(r.body, "<AccessKeyId>" + id + "</AccessKeyId>"));
  EXPECT_FALSE(Contains(r.body, secret));  // only CreateAccessKey answers a secret
  EXPECT_FALSE(Contains(r.body, "SecretAccessKey"));

  ASSERT_EQ(
      Call("Action=UpdateAccessKey&UserName=alice&AccessKeyId=" + id + "&Status=Inactive").status,
      200);
  EXPECT_EQ(store_->GetAccessKey(id)->status, storage::KeyStatus::kInactive);
  r = Call("Action=ListAccessKeys&UserName=alice");
  EXPECT_TRUE(Contains(r.body, "<AccessKeyId>" + id + "</AccessKeyId><Status>Inactive</Status>"));
  ASSERT_EQ(Call("Action=DeleteAccessKey&UserName=alice&AccessKeyId=" + id).status, 200);
  EXPECT_FALSE(store_->GetAccessKey(id).ok());
  EXPECT_EQ(Call("Action=DeleteUser&UserName=alice").status, 409);  // a key remains
  ASSERT_EQ(Call("Action=DeleteAccessKey&UserName=alice&AccessKeyId=FIXTUREKEY000001").status, 200);
  EXPECT_EQ(Call("Action=DeleteUser&UserName=alice").status, 200);
}

TEST_F(IamApiTest, PoliciesAndTags) {
  ASSERT_EQ(Call("Action=CreateUser&UserName=alice").status, 200);
  const std::string doc =
      R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]})";
  const std::string encoded = text::UriEncode(doc, text::Slash::kEncode);
  ASSERT_EQ(
      Call("Action=PutUserPolicy&UserName=alice&PolicyName=p1&PolicyDocument=" + encoded).status,
      200);
  IamResponse r = Call("Action=GetUserPolicy&UserName=alice&PolicyName=p1");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Tag(r.body, "PolicyName"), "p1");
  EXPECT_EQ(Tag(r.body, "PolicyDocument"), encoded);  // URL-encoded, as IAM returns it
  r = Call("Action=ListUserPolicies&UserName=alice");
  EXPECT_TRUE(Contains(r.body,
                       "<PolicyNames><member>p1</member></PolicyNames>"
                       "<IsTruncated>false</IsTruncated>"));
  EXPECT_EQ(Call("Action=DeleteUser&UserName=alice").status, 409);  // a policy remains
  ASSERT_EQ(Call("Action=DeleteUserPolicy&UserName=alice&PolicyName=p1").status, 200);

  // A condition key cubby never fills, and one that is no AWS key: refused, the key named.
  for (const auto& [key, message] : std::vector<std::pair<std::string, std::string>>{
           {"aws:SourceVpc", "Policy has a condition key cubby does not support: aws:SourceVpc"},
           {"s3:NoSuchKey", "Policy has an invalid condition key: s3:NoSuchKey"}}) {
    const std::string conditioned =
        R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*",)"
        R"("Resource":"*","Condition":{"StringEquals":{")" +
        key + R"(":"x"}}}]})";
    r = Call("Action=PutUserPolicy&UserName=alice&PolicyName=p2&PolicyDocument=" +
             text::UriEncode(conditioned, text::Slash::kEncode));
    EXPECT_EQ(r.status, 400) << key;
    EXPECT_EQ(Tag(r.body, "Code"), "MalformedPolicyDocument");
    EXPECT_EQ(Tag(r.body, "Message"), message);
  }
  EXPECT_EQ(store_->GetUser("alice")->policies.count("p2"), 0u);

  ASSERT_EQ(Call("Action=TagUser&UserName=alice&Tags.member.1.Key=a&Tags.member.1.Value=1&"
                 "Tags.member.2.Key=b&Tags.member.2.Value=2")
                .status,
            200);
  ASSERT_EQ(Call("Action=UntagUser&UserName=alice&TagKeys.member.1=a").status, 200);
  r = Call("Action=ListUserTags&UserName=alice");
  EXPECT_TRUE(Contains(r.body,
                       "<ListUserTagsResult><Tags><member><Key>b</Key><Value>2</Value>"
                       "</member></Tags><IsTruncated>false</IsTruncated>"));
}

TEST_F(IamApiTest, EveryError) {
  ASSERT_EQ(Call("Action=CreateUser&UserName=alice").status, 200);
  ASSERT_EQ(Call("Action=CreateUser&UserName=full").status, 200);
  ASSERT_EQ(Call("Action=CreateAccessKey&UserName=full").status, 200);
  ASSERT_EQ(Call("Action=CreateAccessKey&UserName=full").status, 200);
  storage::AccessKeyRecord user_key;
  user_key.access_key_id = "CBALICE";
  user_key.user_id = store_->GetUser("alice")->user_id;
  std::string tags51;
  for (int i = 1; i <= 51; ++i) {
    tags51 += "&Tags.member." + std::to_string(i) + ".Key=k" + std::to_string(i) + "&Tags.member." +
              std::to_string(i) + ".Value=v";
  }
  struct Case {
    std::string form;
    std::string code;
    int status;
    const storage::AccessKeyRecord* caller = nullptr;
  } cases[] = {
      {"Action=Nope", "InvalidAction", 400},
      {"Action=GetUser&UserName=nobody", "NoSuchEntity", 404},
      {"Action=CreateUser&UserName=ALICE", "EntityAlreadyExists", 409},
      {"Action=CreateUser", "ValidationError", 400},
      {"Action=CreateUser&UserName=bad%20name", "ValidationError", 400},
      {"Action=CreateUser&UserName=t&Tags.member.1.Key=a&Tags.member.2.Key=a", "InvalidInput", 400},
      {"Action=CreateUser&UserName=t&Tags.member.x.Key=a", "InvalidInput", 400},
      {"Action=CreateUser&UserName=t" + tags51, "LimitExceeded", 409},
      {"Action=DeleteUser&UserName=full", "DeleteConflict", 409},
      {"Action=DeleteUser&UserName=root", "DeleteConflict", 409},
      {"Action=DeleteUser&UserName=nobody", "NoSuchEntity", 404},
      {"Action=CreateAccessKey&UserName=full", "LimitExceeded", 409},
      {"Action=CreateAccessKey&UserName=nobody", "NoSuchEntity", 404},
      {"Action=CreateAccessKey&UserName=alice&AccessKeyId=SHORT&SecretAccessKey=s",
       "ValidationError", 400},
      {"Action=CreateAccessKey&UserName=alice&AccessKeyId=FIXTUREKEY000001", "ValidationError",
       400},
      {"Action=CreateAccessKey&UserName=alice&AccessKeyId=FIXTUREKEY000001&SecretAccessKey=a%20b",
       "ValidationError", 400},
      {"Action=UpdateAccessKey&UserName=alice&AccessKeyId=CBNONE&Status=Active", "NoSuchEntity",
       404},
      {"Action=UpdateAccessKey&UserName=alice&AccessKeyId=CBNONE&Status=Sleepy", "ValidationError",
       400},
      {"Action=UpdateAccessKey&UserName=alice&Status=Active", "ValidationError", 400},
      {"Action=DeleteAccessKey&UserName=alice&AccessKeyId=CBNONE", "NoSuchEntity", 404},
      {"Action=DeleteAccessKey&UserName=alice", "ValidationError", 400},
      {"Action=PutUserPolicy&UserName=alice&PolicyName=p&PolicyDocument=not-json",
       "MalformedPolicyDocument", 400},
      {"Action=PutUserPolicy&UserName=alice&PolicyName=p", "ValidationError", 400},
      // Valid policies (the parser runs first), too large for the user / for a missing user.
      {"Action=PutUserPolicy&UserName=alice&PolicyName=p&PolicyDocument=" +
           EncodedPolicy(std::string(3000, 'x')),
       "LimitExceeded", 409},
      {"Action=PutUserPolicy&UserName=nobody&PolicyName=p&PolicyDocument=" + EncodedPolicy("s"),
       "NoSuchEntity", 404},
      {"Action=PutUserPolicy&UserName=alice&PolicyName=p&PolicyDocument=%7B%7D",
       "MalformedPolicyDocument", 400},
      {"Action=GetUserPolicy&UserName=alice&PolicyName=none", "NoSuchEntity", 404},
      {"Action=DeleteUserPolicy&UserName=alice&PolicyName=none", "NoSuchEntity", 404},
      {"Action=ListUserPolicies", "ValidationError", 400},
      {"Action=TagUser&UserName=alice", "ValidationError", 400},
      {"Action=TagUser&UserName=alice&Tags.member.1.Key=aws%3Ax", "ValidationError", 400},
      {"Action=ListUserTags&UserName=nobody", "NoSuchEntity", 404},
      {"Action=ListUsers&MaxItems=0", "ValidationError", 400},
      {"Action=ListUsers&MaxItems=1001", "ValidationError", 400},
      {"Action=ListUsers", "AccessDenied", 403, &user_key},  // only root, for now
      {"Action=CreateUser&UserName=x", "AccessDenied", 403, &user_key},
  };
  for (const Case& c : cases) {
    IamResponse r = Call(c.form, c.caller);
    EXPECT_EQ(r.status, c.status) << c.form.substr(0, 80) << "\n" << r.body;
    EXPECT_EQ(Tag(r.body, "Code"), c.code) << c.form.substr(0, 80);
    EXPECT_TRUE(Contains(r.body, "<RequestId>REQ</RequestId></ErrorResponse>"));
  }
  EXPECT_EQ(store_->GetUser("t").status().code(), storage::Code::kNoSuchEntity);
}

}  // namespace
}  // namespace cubby::iam
