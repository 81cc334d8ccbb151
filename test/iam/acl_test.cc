#include "iam/acl.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace cubby::iam {
namespace {

// Canonical ids: 64 lowercase hex characters, as users have them.
const std::string kAlice(64, 'a');
const std::string kBob(64, 'b');
const std::string kCarol(64, 'c');

AclGrant User(const std::string& id, AclPermission p) {
  return {GranteeType::kCanonicalUser, id, p};
}
AclGrant Group(std::string_view uri, AclPermission p) {
  return {GranteeType::kGroup, std::string(uri), p};
}

constexpr AclPermission kRead = AclPermission::kRead;
constexpr AclPermission kWrite = AclPermission::kWrite;
constexpr AclPermission kReadAcp = AclPermission::kReadAcp;
constexpr AclPermission kWriteAcp = AclPermission::kWriteAcp;
constexpr AclPermission kFull = AclPermission::kFullControl;
constexpr AclPermission kEveryPermission[] = {kRead, kWrite, kReadAcp, kWriteAcp, kFull};

// Alice and Bob exist; alice@example.com is Alice's address.
GranteeResolver Resolver() {
  GranteeResolver r;
  r.id_by_email = [](std::string_view email) -> std::optional<std::string> {
    if (email == "alice@example.com") return kAlice;
    return std::nullopt;
  };
  r.id_exists = [](std::string_view id) { return id == kAlice || id == kBob; };
  return r;
}

TEST(AclTest, GroupsAndPermissionNames) {
  EXPECT_TRUE(IsKnownGroup("http://acs.amazonaws.com/groups/global/AllUsers"));
  EXPECT_TRUE(IsKnownGroup("http://acs.amazonaws.com/groups/global/AuthenticatedUsers"));
  EXPECT_TRUE(IsKnownGroup("http://acs.amazonaws.com/groups/s3/LogDelivery"));
  for (std::string_view bad : {"", "http://acs.amazonaws.com/groups/global/allusers",
                               "https://acs.amazonaws.com/groups/global/AllUsers",
                               "http://acs.amazonaws.com/groups/global/AllUsers/",
                               "http://acs.amazonaws.com/groups/global/LogDelivery"}) {
    EXPECT_FALSE(IsKnownGroup(bad)) << bad;
  }
  struct Case {
    AclPermission p;
    std::string_view name;
  };
  for (const Case& c : {Case{kRead, "READ"}, Case{kWrite, "WRITE"}, Case{kReadAcp, "READ_ACP"},
                        Case{kWriteAcp, "WRITE_ACP"}, Case{kFull, "FULL_CONTROL"}}) {
    EXPECT_EQ(PermissionName(c.p), c.name);
    AclPermission parsed = kRead;
    ASSERT_TRUE(ParsePermission(c.name, &parsed)) << c.name;
    EXPECT_EQ(parsed, c.p);
  }
  AclPermission unused;
  for (std::string_view bad : {"", "read", "FULL-CONTROL", "FULL_CONTROL ", "WRITE_ACL"}) {
    EXPECT_FALSE(ParsePermission(bad, &unused)) << bad;
  }
}

TEST(AclTest, ParseCannedAcl) {
  struct Case {
    std::string_view value;
    CannedAcl acl;
  };
  for (const Case& c :
       {Case{"private", CannedAcl::kPrivate}, Case{"public-read", CannedAcl::kPublicRead},
        Case{"public-read-write", CannedAcl::kPublicReadWrite},
        Case{"authenticated-read", CannedAcl::kAuthenticatedRead},
        Case{"aws-exec-read", CannedAcl::kAwsExecRead},
        Case{"bucket-owner-read", CannedAcl::kBucketOwnerRead},
        Case{"bucket-owner-full-control", CannedAcl::kBucketOwnerFullControl},
        Case{"log-delivery-write", CannedAcl::kLogDeliveryWrite}}) {
    CannedAcl parsed = CannedAcl::kPrivate;
    ASSERT_TRUE(ParseCannedAcl(c.value, &parsed).ok()) << c.value;
    EXPECT_EQ(parsed, c.acl);
    EXPECT_EQ(CannedAclName(c.acl), c.value);
  }
  for (std::string_view bad :
       {"", "Private", "PUBLIC-READ", "public_read", " private", "public-read ", "bogus"}) {
    CannedAcl parsed = CannedAcl::kPublicRead;
    AclStatus s = ParseCannedAcl(bad, &parsed);
    EXPECT_EQ(s.code(), AclError::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find(std::string(bad)), std::string::npos) << s.message();
    EXPECT_EQ(parsed, CannedAcl::kPublicRead) << "unchanged on failure";
  }
}

// acl-overview.html#canned-acl, row by row, on an object (Alice writes into Bob's bucket), on
// an object the bucket owner writes, and on a bucket. Group grants come first, then the owner's
// FULL_CONTROL, then the other users' grants (Ceph RGW's order: clients index grants by position).
TEST(AclTest, ExpandCannedTable) {
  struct Case {
    CannedAcl acl;
    std::vector<AclGrant> object_by_other;  // besides the owner's FULL_CONTROL
    std::vector<AclGrant> object_by_bucket_owner;
    std::vector<AclGrant> bucket;
  };
  const std::vector<AclGrant> none;
  const Case cases[] = {
      {CannedAcl::kPrivate, none, none, none},
      {CannedAcl::kPublicRead,
       {Group(kAllUsersGroup, kRead)},
       {Group(kAllUsersGroup, kRead)},
       {Group(kAllUsersGroup, kRead)}},
      {CannedAcl::kPublicReadWrite,
       {Group(kAllUsersGroup, kRead), Group(kAllUsersGroup, kWrite)},
       {Group(kAllUsersGroup, kRead), Group(kAllUsersGroup, kWrite)},
       {Group(kAllUsersGroup, kRead), Group(kAllUsersGroup, kWrite)}},
      {CannedAcl::kAuthenticatedRead,
       {Group(kAuthenticatedUsersGroup, kRead)},
       {Group(kAuthenticatedUsersGroup, kRead)},
       {Group(kAuthenticatedUsersGroup, kRead)}},
      {CannedAcl::kAwsExecRead, none, none, none},
      {CannedAcl::kBucketOwnerRead, {User(kBob, kRead)}, none, none},
      {CannedAcl::kBucketOwnerFullControl, {User(kBob, kFull)}, none, none},
      {CannedAcl::kLogDeliveryWrite,
       {Group(kLogDeliveryGroup, kWrite), Group(kLogDeliveryGroup, kReadAcp)},
       {Group(kLogDeliveryGroup, kWrite), Group(kLogDeliveryGroup, kReadAcp)},
       {Group(kLogDeliveryGroup, kWrite), Group(kLogDeliveryGroup, kReadAcp)}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(CannedAclName(c.acl)));
    auto expect = [](const std::string& owner, const std::vector<AclGrant>& extra) {
      AclRecord r{owner, {}};
      for (const AclGrant& g : extra) {
        if (g.type == GranteeType::kGroup) r.grants.push_back(g);
      }
      r.grants.push_back(User(owner, kFull));
      for (const AclGrant& g : extra) {
        if (g.type != GranteeType::kGroup) r.grants.push_back(g);
      }
      return r;
    };
    EXPECT_EQ(ExpandCanned(c.acl, kAlice, kBob, /*for_bucket=*/false),
              expect(kAlice, c.object_by_other));
    EXPECT_EQ(ExpandCanned(c.acl, kBob, kBob, /*for_bucket=*/false),
              expect(kBob, c.object_by_bucket_owner));
    EXPECT_EQ(ExpandCanned(c.acl, kBob, kBob, /*for_bucket=*/true), expect(kBob, c.bucket));
    // On a bucket the bucket-owner-* ACLs are ignored even if the ids were to differ.
    if (c.acl == CannedAcl::kBucketOwnerRead || c.acl == CannedAcl::kBucketOwnerFullControl) {
      EXPECT_EQ(ExpandCanned(c.acl, kAlice, kBob, /*for_bucket=*/true), expect(kAlice, none));
    }
  }
  // Spelled out for the case suites index: Grants[2] of public-read-write is the owner.
  EXPECT_EQ(ExpandCanned(CannedAcl::kPublicReadWrite, kBob, kBob, /*for_bucket=*/true).grants,
            (std::vector<AclGrant>{Group(kAllUsersGroup, kRead), Group(kAllUsersGroup, kWrite),
                                   User(kBob, kFull)}));
}

TEST(AclTest, ParseGrantHeadersAccepts) {
  struct Case {
    std::string_view name;
    GrantHeaders headers;
    std::vector<AclGrant> grants;
  };
  const std::string id_alice = "id=" + kAlice;
  const std::string quoted_bob = "id=\"" + kBob + "\"";
  const std::string two = " ID = \"" + kAlice + "\" ,  Id=" + kBob + " ";
  const std::string alice_then_all_users =
      id_alice + ", uri=http://acs.amazonaws.com/groups/global/AllUsers";
  const std::string log_delivery_then_alice =
      "uri=http://acs.amazonaws.com/groups/s3/LogDelivery, " + id_alice;
  const Case cases[] = {
      {"none", {}, {}},
      {"id unquoted", {.read = id_alice}, {User(kAlice, kRead)}},
      {"id quoted", {.write = quoted_bob}, {User(kBob, kWrite)}},
      {"type case-insensitive, spaces, two items",
       {.read_acp = two},
       {User(kAlice, kReadAcp), User(kBob, kReadAcp)}},
      {"email", {.write_acp = "emailAddress=\"alice@example.com\""}, {User(kAlice, kWriteAcp)}},
      {"email key any case",
       {.full_control = "EMAILADDRESS=alice@example.com"},
       {User(kAlice, kFull)}},
      {"groups",
       {.read = "uri=\"http://acs.amazonaws.com/groups/global/AllUsers\", "
                "uri=http://acs.amazonaws.com/groups/global/AuthenticatedUsers",
        .write = "uri=http://acs.amazonaws.com/groups/s3/LogDelivery"},
       {Group(kAllUsersGroup, kRead), Group(kAuthenticatedUsersGroup, kRead),
        Group(kLogDeliveryGroup, kWrite)}},
      // Header order read, write, read-acp, write-acp, full-control, whatever the fields say.
      {"every header",
       {.read = id_alice,
        .write = id_alice,
        .read_acp = id_alice,
        .write_acp = id_alice,
        .full_control = id_alice},
       {User(kAlice, kRead), User(kAlice, kWrite), User(kAlice, kReadAcp), User(kAlice, kWriteAcp),
        User(kAlice, kFull)}},
      // Groups before users, as ExpandCanned lists them; each part in header order.
      {"groups first",
       {.read = alice_then_all_users, .full_control = log_delivery_then_alice},
       {Group(kAllUsersGroup, kRead), Group(kLogDeliveryGroup, kFull), User(kAlice, kRead),
        User(kAlice, kFull)}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.name));
    AclRecord out;
    AclStatus s = ParseGrantHeaders(c.headers, kCarol, Resolver(), &out);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(out.owner_id, kCarol);
    EXPECT_EQ(out.grants, c.grants) << "no implicit owner grant";
  }
}

TEST(AclTest, ParseGrantHeadersRefuses) {
  struct Case {
    std::string_view value;
    AclError code;
    std::string_view message;
  };
  const std::string unknown_id = "id=" + kCarol;
  const std::string good_then_bad = "id=" + kAlice + ", emailAddress=nobody@example.com";
  const Case cases[] = {
      {"", AclError::kInvalidArgument, "Argument format not recognized"},
      {"   ", AclError::kInvalidArgument, "Argument format not recognized"},
      {"id", AclError::kInvalidArgument, "Argument format not recognized"},
      {"id=", AclError::kInvalidArgument, "Argument format not recognized"},
      {"id=\"\"", AclError::kInvalidArgument, "Argument format not recognized"},
      {"id=\"abc", AclError::kInvalidArgument, "Argument format not recognized"},
      {"id=\"", AclError::kInvalidArgument, "Argument format not recognized"},
      {"name=x", AclError::kInvalidArgument, "Argument format not recognized"},
      {"=x", AclError::kInvalidArgument, "Argument format not recognized"},
      {"uri=x,", AclError::kInvalidArgument, "Invalid group uri"},
      {"id=x,", AclError::kInvalidArgument, "Invalid id"},
      {unknown_id, AclError::kInvalidArgument, "Invalid id"},
      {"uri=http://acs.amazonaws.com/groups/global/Everyone", AclError::kInvalidArgument,
       "Invalid group uri"},
      {"emailAddress=nobody@example.com", AclError::kUnresolvableGrantByEmailAddress,
       "The email address you provided does not match any account on record."},
      {good_then_bad, AclError::kUnresolvableGrantByEmailAddress, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.value));
    AclRecord out{kBob, {User(kBob, kFull)}};
    const AclRecord before = out;
    AclStatus s = ParseGrantHeaders({.read_acp = c.value}, kCarol, Resolver(), &out);
    EXPECT_EQ(s.code(), c.code);
    if (!c.message.empty()) {
      EXPECT_EQ(s.message(), c.message);
    }
    EXPECT_EQ(out, before) << "unchanged on failure";
  }
  // A trailing comma after a good item is an empty item.
  AclRecord out;
  EXPECT_EQ(ParseGrantHeaders({.read = "id=" + kAlice + ","}, kCarol, Resolver(), &out).code(),
            AclError::kInvalidArgument);
  // Without resolvers: any id is accepted, every e-mail is unresolvable.
  ASSERT_TRUE(ParseGrantHeaders({.read = "id=someone"}, kCarol, {}, &out).ok());
  EXPECT_EQ(out.grants, std::vector<AclGrant>{User("someone", kRead)});
  EXPECT_EQ(ParseGrantHeaders({.read = "emailAddress=alice@example.com"}, kCarol, {}, &out).code(),
            AclError::kUnresolvableGrantByEmailAddress);
}

TEST(AclTest, AclFromRequest) {
  const std::string id_bob = "id=" + kBob;
  struct Case {
    std::string_view name;
    AclRequestHeaders request;
    bool for_bucket;
    AclError code;
    bool has_acl;
    AclRecord acl;  // when has_acl
  };
  const Case cases[] = {
      {"nothing", {}, false, AclError::kOk, false, {}},
      {"canned object",
       {.canned = "bucket-owner-read"},
       false,
       AclError::kOk,
       true,
       {kAlice, {User(kAlice, kFull), User(kBob, kRead)}}},
      {"canned bucket",
       {.canned = "bucket-owner-read"},
       true,
       AclError::kOk,
       true,
       {kAlice, {User(kAlice, kFull)}}},
      {"grants",
       {.grants = {.read = id_bob}},
       false,
       AclError::kOk,
       true,
       {kAlice, {User(kBob, kRead)}}},
      {"both",
       {.canned = "private", .grants = {.write_acp = id_bob}},
       false,
       AclError::kInvalidRequest,
       false,
       {}},
      {"both, even a bad canned ACL",
       {.canned = "bogus", .grants = {.full_control = "x"}},
       false,
       AclError::kInvalidRequest,
       false,
       {}},
      {"bad canned", {.canned = "bogus"}, false, AclError::kInvalidArgument, false, {}},
      {"bad grant",
       {.grants = {.read = "id=nobody"}},
       false,
       AclError::kInvalidArgument,
       false,
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.name));
    AclRecord out{"sentinel", {}};
    bool has_acl = true;
    AclStatus s = AclFromRequest(c.request, kAlice, kBob, c.for_bucket, Resolver(), &out, &has_acl);
    EXPECT_EQ(s.code(), c.code) << s.message();
    EXPECT_EQ(has_acl, c.has_acl);
    if (c.has_acl) {
      EXPECT_EQ(out, c.acl);
    } else {
      EXPECT_EQ(out.owner_id, "sentinel");
    }
    if (c.code == AclError::kInvalidRequest) {
      EXPECT_EQ(s.message(), "Specifying both Canned ACLs and Header Grants is not allowed");
    }
  }
}

// Whom each kind of grant lets in, for each permission.
TEST(AclTest, AclAllowsMatrix) {
  const AclCaller anonymous = AclCaller::Anonymous();
  const AclCaller alice = AclCaller::User(kAlice);  // the owner
  const AclCaller bob = AclCaller::User(kBob);
  const AclCaller carol = AclCaller::User(kCarol);
  struct Case {
    std::string_view name;
    std::vector<AclGrant> grants;  // on an ACL owned by Alice
    const AclCaller* caller;
    std::vector<AclPermission> allowed;  // every other permission is refused
  };
  const Case cases[] = {
      // The owner: READ_ACP and WRITE_ACP even with no grant at all, nothing else.
      {"owner, no grants", {}, &alice, {kReadAcp, kWriteAcp}},
      {"owner, full control",
       {User(kAlice, kFull)},
       &alice,
       {kRead, kWrite, kReadAcp, kWriteAcp, kFull}},
      {"owner, read", {User(kAlice, kRead)}, &alice, {kRead, kReadAcp, kWriteAcp}},
      {"owner's grant is not another user's", {User(kAlice, kFull)}, &bob, {}},
      {"user read", {User(kBob, kRead)}, &bob, {kRead}},
      {"user write", {User(kBob, kWrite)}, &bob, {kWrite}},
      {"user read_acp", {User(kBob, kReadAcp)}, &bob, {kReadAcp}},
      {"user write_acp", {User(kBob, kWriteAcp)}, &bob, {kWriteAcp}},
      {"user full control", {User(kBob, kFull)}, &bob, {kRead, kWrite, kReadAcp, kWriteAcp, kFull}},
      {"the four make full control",
       {User(kBob, kRead), User(kBob, kWrite), User(kBob, kReadAcp), User(kBob, kWriteAcp)},
       &bob,
       {kRead, kWrite, kReadAcp, kWriteAcp, kFull}},
      {"grant to someone else", {User(kCarol, kFull)}, &bob, {}},
      {"all users: anonymous", {Group(kAllUsersGroup, kRead)}, &anonymous, {kRead}},
      {"all users: signed", {Group(kAllUsersGroup, kWrite)}, &carol, {kWrite}},
      {"authenticated users: anonymous", {Group(kAuthenticatedUsersGroup, kFull)}, &anonymous, {}},
      {"authenticated users: signed", {Group(kAuthenticatedUsersGroup, kRead)}, &carol, {kRead}},
      {"log delivery matches no caller", {Group(kLogDeliveryGroup, kFull)}, &carol, {}},
      {"log delivery, anonymous", {Group(kLogDeliveryGroup, kFull)}, &anonymous, {}},
      {"unknown group matches no one", {Group("http://example.com/g", kFull)}, &carol, {}},
      // An anonymous caller's empty id never matches a grant or the owner.
      {"empty grantee", {User("", kFull)}, &anonymous, {}},
      {"grants add up", {User(kBob, kRead), Group(kAllUsersGroup, kWrite)}, &bob, {kRead, kWrite}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.name));
    const AclRecord acl{kAlice, c.grants};
    for (AclPermission p : kEveryPermission) {
      const bool want = std::find(c.allowed.begin(), c.allowed.end(), p) != c.allowed.end();
      EXPECT_EQ(AclAllows(acl, *c.caller, p), want) << PermissionName(p);
    }
  }
  // An anonymous ACL owner (empty id) gets no implicit rights.
  EXPECT_FALSE(AclAllows(AclRecord{"", {}}, anonymous, kReadAcp));
}

TEST(AclTest, IgnorePublicGrants) {
  const AclRecord acl{kAlice,
                      {Group(kAllUsersGroup, kRead), Group(kAuthenticatedUsersGroup, kWrite),
                       User(kBob, kReadAcp)}};
  const AclCaller bob = AclCaller::User(kBob);
  EXPECT_TRUE(AclAllows(acl, bob, kRead));
  EXPECT_TRUE(AclAllows(acl, bob, kWrite));
  EXPECT_FALSE(AclAllows(acl, bob, kRead, /*ignore_public_grants=*/true));
  EXPECT_FALSE(AclAllows(acl, bob, kWrite, true));
  EXPECT_FALSE(AclAllows(acl, AclCaller::Anonymous(), kRead, true));
  EXPECT_TRUE(AclAllows(acl, bob, kReadAcp, true)) << "a user's grant still counts";
  EXPECT_TRUE(AclAllows(acl, AclCaller::User(kAlice), kWriteAcp, true)) << "the owner's too";
  PublicAccessBlock block;
  EXPECT_FALSE(IgnorePublicGrants(block));
  block.ignore_public_acls = true;
  EXPECT_TRUE(IgnorePublicGrants(block));
}

TEST(AclTest, AclRequirementTable) {
  struct Case {
    std::string_view action;
    AclRequirement requirement;
  };
  const Case cases[] = {
      {"s3:ListBucket", {AclScope::kBucket, kRead}},
      {"s3:ListBucketVersions", {AclScope::kBucket, kRead}},
      {"s3:ListBucketMultipartUploads", {AclScope::kBucket, kRead}},
      {"s3:PutObject", {AclScope::kBucket, kWrite}},
      {"s3:DeleteObject", {AclScope::kBucket, kWrite}},
      {"s3:DeleteObjectVersion", {AclScope::kBucket, kWrite}},
      {"s3:GetBucketAcl", {AclScope::kBucket, kReadAcp}},
      {"s3:PutBucketAcl", {AclScope::kBucket, kWriteAcp}},
      {"s3:GetObject", {AclScope::kObject, kRead}},
      {"s3:GetObjectVersion", {AclScope::kObject, kRead}},
      {"s3:GetObjectTorrent", {AclScope::kObject, kRead}},
      {"s3:GetObjectAcl", {AclScope::kObject, kReadAcp}},
      {"s3:GetObjectVersionAcl", {AclScope::kObject, kReadAcp}},
      {"s3:PutObjectAcl", {AclScope::kObject, kWriteAcp}},
      {"s3:PutObjectVersionAcl", {AclScope::kObject, kWriteAcp}},
      {"s3:AbortMultipartUpload", {AclScope::kInitiator, kFull}},
      {"s3:ListMultipartUploadParts", {AclScope::kInitiator, kFull}},
      {"cubby:AnyBucketAccess", {AclScope::kBucketAny, kFull}},
      {"cubby:Unimplemented", {AclScope::kBucketAny, kFull}},
      {"s3:DeleteBucket", {AclScope::kNotGrantable, kFull}},
      {"s3:CreateBucket", {AclScope::kNotGrantable, kFull}},
      {"s3:ListAllMyBuckets", {AclScope::kNotGrantable, kFull}},
      {"s3:GetBucketLocation", {AclScope::kNotGrantable, kFull}},
      {"s3:GetBucketVersioning", {AclScope::kNotGrantable, kFull}},
      {"s3:PutBucketPolicy", {AclScope::kNotGrantable, kFull}},
      {"s3:GetBucketPolicy", {AclScope::kNotGrantable, kFull}},
      {"s3:PutBucketOwnershipControls", {AclScope::kNotGrantable, kFull}},
      {"s3:PutBucketPublicAccessBlock", {AclScope::kNotGrantable, kFull}},
      {"s3:PutLifecycleConfiguration", {AclScope::kNotGrantable, kFull}},
      {"s3:GetLifecycleConfiguration", {AclScope::kNotGrantable, kFull}},
      {"s3:GetBucketCORS", {AclScope::kNotGrantable, kFull}},
      {"s3:PutBucketCORS", {AclScope::kNotGrantable, kFull}},
      {"s3:getobject", {AclScope::kNotGrantable, kFull}},
      {"", {AclScope::kNotGrantable, kFull}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(AclRequirementFor(c.action), c.requirement) << c.action;
  }
  // Every Action of the Authorizer has a row that agrees with its name.
  struct ActionCase {
    Action action;
    AclScope scope;
  };
  for (const ActionCase& c : {ActionCase{Action::kListAllMyBuckets, AclScope::kNotGrantable},
                              {Action::kCreateBucket, AclScope::kNotGrantable},
                              {Action::kDeleteBucket, AclScope::kNotGrantable},
                              {Action::kListBucket, AclScope::kBucket},
                              {Action::kGetBucketLocation, AclScope::kNotGrantable},
                              {Action::kGetBucketVersioning, AclScope::kNotGrantable},
                              {Action::kGetBucketAcl, AclScope::kBucket},
                              {Action::kPutBucketAcl, AclScope::kBucket},
                              {Action::kGetObject, AclScope::kObject},
                              {Action::kGetObjectAcl, AclScope::kObject},
                              {Action::kPutObject, AclScope::kBucket},
                              {Action::kDeleteObject, AclScope::kBucket},
                              {Action::kAbortMultipartUpload, AclScope::kInitiator},
                              {Action::kListMultipartUploadParts, AclScope::kInitiator},
                              {Action::kListBucketMultipartUploads, AclScope::kBucket},
                              {Action::kGetLifecycleConfiguration, AclScope::kNotGrantable},
                              {Action::kPutLifecycleConfiguration, AclScope::kNotGrantable},
                              {Action::kGetBucketObjectLockConfiguration, AclScope::kNotGrantable},
                              {Action::kPutBucketObjectLockConfiguration, AclScope::kNotGrantable},
                              {Action::kGetObjectRetention, AclScope::kNotGrantable},
                              {Action::kPutObjectRetention, AclScope::kNotGrantable},
                              {Action::kGetObjectLegalHold, AclScope::kNotGrantable},
                              {Action::kPutObjectLegalHold, AclScope::kNotGrantable},
                              {Action::kGetObjectTagging, AclScope::kNotGrantable},
                              {Action::kPutObjectTagging, AclScope::kNotGrantable},
                              {Action::kDeleteObjectVersionTagging, AclScope::kNotGrantable},
                              {Action::kGetBucketTagging, AclScope::kNotGrantable},
                              {Action::kPutBucketTagging, AclScope::kNotGrantable},
                              {Action::kGetBucketCors, AclScope::kNotGrantable},
                              {Action::kPutBucketCors, AclScope::kNotGrantable},
                              {Action::kAnyBucketAccess, AclScope::kBucketAny},
                              {Action::kUnimplemented, AclScope::kBucketAny}}) {
    EXPECT_EQ(AclRequirementFor(c.action).scope, c.scope) << ActionName(c.action);
    EXPECT_EQ(AclRequirementFor(c.action), AclRequirementFor(ActionName(c.action)));
  }
}

TEST(AclTest, AclGrants) {
  const AclRecord bucket{kAlice, {User(kAlice, kFull), User(kBob, kWrite)}};
  const AclRecord object{kCarol, {User(kCarol, kFull), Group(kAllUsersGroup, kRead)}};
  const AclCaller bob = AclCaller::User(kBob);
  const AclCaller anonymous = AclCaller::Anonymous();
  struct Case {
    std::string_view action;
    const AclCaller* caller;
    bool with_object;
    bool ignore_public;
    bool want;
  };
  const Case cases[] = {
      {"s3:PutObject", &bob, true, false, true},
      {"s3:DeleteObject", &bob, false, false, true},
      {"s3:ListBucket", &bob, true, false, false},
      {"s3:GetObject", &bob, true, false, true},    // AllUsers READ on the object
      {"s3:GetObject", &bob, true, true, false},    // ... ignored
      {"s3:GetObject", &bob, false, false, false},  // no object
      {"s3:GetObject", &anonymous, true, false, true},
      {"s3:GetObjectAcl", &bob, true, false, false},
      {"s3:PutObject", &anonymous, true, false, false},
      {"cubby:AnyBucketAccess", &bob, false, false, true},
      {"cubby:AnyBucketAccess", &anonymous, false, false, false},
      {"s3:AbortMultipartUpload", &bob, true, false, false},
      {"s3:DeleteBucket", &bob, true, false, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.action));
    EXPECT_EQ(AclGrants(AclRequirementFor(c.action), bucket, c.with_object ? &object : nullptr,
                        *c.caller, c.ignore_public),
              c.want);
  }
  // Not grantable stays not grantable for the bucket owner too: ownership is the caller's check.
  EXPECT_FALSE(
      AclGrants(AclRequirementFor("s3:DeleteBucket"), bucket, nullptr, AclCaller::User(kAlice)));
  // The owner's implicit ACP rights count as "any bucket access".
  EXPECT_TRUE(AclGrants(AclRequirementFor("cubby:AnyBucketAccess"), AclRecord{kAlice, {}}, nullptr,
                        AclCaller::User(kAlice)));
  // With IgnorePublicAcls a public grant is no bucket access.
  EXPECT_FALSE(AclGrants(AclRequirementFor("cubby:AnyBucketAccess"),
                         AclRecord{kAlice, {Group(kAllUsersGroup, kRead)}}, nullptr, bob, true));
}

TEST(AclTest, ObjectOwnershipValues) {
  struct Case {
    std::string_view value;
    ObjectOwnership ownership;
  };
  for (const Case& c : {Case{"ObjectWriter", ObjectOwnership::kObjectWriter},
                        Case{"BucketOwnerPreferred", ObjectOwnership::kBucketOwnerPreferred},
                        Case{"BucketOwnerEnforced", ObjectOwnership::kBucketOwnerEnforced}}) {
    ObjectOwnership parsed = ObjectOwnership::kObjectWriter;
    ASSERT_TRUE(ParseObjectOwnership(c.value, &parsed).ok()) << c.value;
    EXPECT_EQ(parsed, c.ownership);
    EXPECT_EQ(ObjectOwnershipName(c.ownership), c.value);
  }
  for (std::string_view bad :
       {"", "objectwriter", "BucketOwnerEnforced ", "BUCKETOWNERENFORCED", "BucketOwner"}) {
    ObjectOwnership parsed = ObjectOwnership::kBucketOwnerPreferred;
    AclStatus s = ParseObjectOwnership(bad, &parsed);
    EXPECT_EQ(s.code(), AclError::kInvalidArgument) << bad;
    EXPECT_EQ(parsed, ObjectOwnership::kBucketOwnerPreferred);
  }
}

TEST(AclTest, CheckAclAllowedByOwnership) {
  const std::vector<AclGrant> bucket_owner_full = {User(kBob, kFull)};
  const std::vector<AclGrant> twice = {User(kBob, kFull), User(kBob, kFull)};
  const std::vector<AclGrant> bucket_owner_read = {User(kBob, kRead)};
  const std::vector<AclGrant> writer_and_owner = {User(kAlice, kFull), User(kBob, kFull)};
  const std::vector<AclGrant> public_read = {User(kBob, kFull), Group(kAllUsersGroup, kRead)};
  const std::vector<AclGrant> empty;
  struct Case {
    std::string_view name;
    std::optional<CannedAcl> canned;
    const std::vector<AclGrant>* grants;
    bool enforced_ok;
  };
  const Case cases[] = {
      {"no ACL", std::nullopt, nullptr, true},
      {"bucket-owner-full-control", CannedAcl::kBucketOwnerFullControl, nullptr, true},
      {"private", CannedAcl::kPrivate, nullptr, false},
      {"public-read", CannedAcl::kPublicRead, nullptr, false},
      {"bucket-owner-read", CannedAcl::kBucketOwnerRead, nullptr, false},
      {"log-delivery-write", CannedAcl::kLogDeliveryWrite, nullptr, false},
      {"grants: bucket owner full control", std::nullopt, &bucket_owner_full, true},
      {"grants: twice", std::nullopt, &twice, true},
      {"grants: bucket owner read", std::nullopt, &bucket_owner_read, false},
      {"grants: writer too", std::nullopt, &writer_and_owner, false},
      {"grants: public", std::nullopt, &public_read, false},
      {"grants: none at all", std::nullopt, &empty, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.name));
    for (ObjectOwnership o :
         {ObjectOwnership::kObjectWriter, ObjectOwnership::kBucketOwnerPreferred}) {
      EXPECT_TRUE(CheckAclAllowedByOwnership(o, c.canned, c.grants, kBob).ok());
    }
    AclStatus s =
        CheckAclAllowedByOwnership(ObjectOwnership::kBucketOwnerEnforced, c.canned, c.grants, kBob);
    if (c.enforced_ok) {
      EXPECT_TRUE(s.ok()) << s.message();
    } else {
      EXPECT_EQ(s.code(), AclError::kAccessControlListNotSupported);
      EXPECT_EQ(s.message(), "The bucket does not allow ACLs");
    }
  }
}

TEST(AclTest, CheckBucketAclForOwnership) {
  struct Case {
    std::string_view name;
    AclRecord acl;
    bool enforced_ok;
  };
  const Case cases[] = {
      {"private", ExpandCanned(CannedAcl::kPrivate, kBob, kBob, true), true},
      {"bucket-owner-full-control on a bucket",
       ExpandCanned(CannedAcl::kBucketOwnerFullControl, kBob, kBob, true), true},
      {"no grants", {kBob, {}}, true},
      {"owner read only", {kBob, {User(kBob, kRead)}}, true},
      {"public-read", ExpandCanned(CannedAcl::kPublicRead, kBob, kBob, true), false},
      {"authenticated-read", ExpandCanned(CannedAcl::kAuthenticatedRead, kBob, kBob, true), false},
      {"log-delivery-write", ExpandCanned(CannedAcl::kLogDeliveryWrite, kBob, kBob, true), false},
      {"another user", {kBob, {User(kBob, kFull), User(kAlice, kRead)}}, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.name));
    EXPECT_TRUE(CheckBucketAclForOwnership(ObjectOwnership::kObjectWriter, c.acl).ok());
    EXPECT_TRUE(CheckBucketAclForOwnership(ObjectOwnership::kBucketOwnerPreferred, c.acl).ok());
    AclStatus s = CheckBucketAclForOwnership(ObjectOwnership::kBucketOwnerEnforced, c.acl);
    if (c.enforced_ok) {
      EXPECT_TRUE(s.ok());
    } else {
      EXPECT_EQ(s.code(), AclError::kInvalidBucketAclWithObjectOwnership);
    }
  }
}

TEST(AclTest, EffectiveAcl) {
  const AclRecord stored{kAlice, {User(kAlice, kFull), Group(kAllUsersGroup, kRead)}};
  EXPECT_EQ(EffectiveAcl(ObjectOwnership::kObjectWriter, stored, kBob), stored);
  EXPECT_EQ(EffectiveAcl(ObjectOwnership::kBucketOwnerPreferred, stored, kBob), stored);
  const AclRecord enforced = EffectiveAcl(ObjectOwnership::kBucketOwnerEnforced, stored, kBob);
  EXPECT_EQ(enforced, (AclRecord{kBob, {User(kBob, kFull)}}));
  // The public grant stops counting; the writer's too.
  EXPECT_FALSE(AclAllows(enforced, AclCaller::Anonymous(), kRead));
  EXPECT_FALSE(AclAllows(enforced, AclCaller::User(kAlice), kReadAcp));
  EXPECT_TRUE(AclAllows(enforced, AclCaller::User(kBob), kFull));
}

TEST(AclTest, NewObjectOwner) {
  struct Case {
    ObjectOwnership ownership;
    std::optional<CannedAcl> canned;
    const std::string* owner;
  };
  const Case cases[] = {
      {ObjectOwnership::kObjectWriter, std::nullopt, &kAlice},
      {ObjectOwnership::kObjectWriter, CannedAcl::kBucketOwnerFullControl, &kAlice},
      {ObjectOwnership::kBucketOwnerPreferred, std::nullopt, &kAlice},
      {ObjectOwnership::kBucketOwnerPreferred, CannedAcl::kBucketOwnerRead, &kAlice},
      {ObjectOwnership::kBucketOwnerPreferred, CannedAcl::kPrivate, &kAlice},
      {ObjectOwnership::kBucketOwnerPreferred, CannedAcl::kBucketOwnerFullControl, &kBob},
      {ObjectOwnership::kBucketOwnerEnforced, std::nullopt, &kBob},
      {ObjectOwnership::kBucketOwnerEnforced, CannedAcl::kBucketOwnerFullControl, &kBob},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(NewObjectOwner(c.ownership, kAlice, kBob, c.canned), *c.owner)
        << ObjectOwnershipName(c.ownership) << " "
        << (c.canned ? CannedAclName(*c.canned) : "none");
  }
}

TEST(AclTest, PublicAccessBlock) {
  struct Case {
    CannedAcl canned;
    bool is_public;
  };
  for (const Case& c :
       {Case{CannedAcl::kPrivate, false}, Case{CannedAcl::kPublicRead, true},
        Case{CannedAcl::kPublicReadWrite, true}, Case{CannedAcl::kAuthenticatedRead, true},
        Case{CannedAcl::kAwsExecRead, false}, Case{CannedAcl::kBucketOwnerRead, false},
        Case{CannedAcl::kBucketOwnerFullControl, false},
        Case{CannedAcl::kLogDeliveryWrite, false}}) {
    SCOPED_TRACE(std::string(CannedAclName(c.canned)));
    const AclRecord acl = ExpandCanned(c.canned, kAlice, kBob, false);
    EXPECT_EQ(IsPublicAcl(acl), c.is_public);
    PublicAccessBlock block;
    EXPECT_TRUE(CheckPublicAclAllowed(block, acl).ok()) << "nothing blocked by default";
    block = {.configured = true,
             .ignore_public_acls = true,
             .block_public_policy = true,
             .restrict_public_buckets = true};
    EXPECT_TRUE(CheckPublicAclAllowed(block, acl).ok()) << "only BlockPublicAcls refuses";
    block.block_public_acls = true;
    AclStatus s = CheckPublicAclAllowed(block, acl);
    EXPECT_EQ(s.code(), c.is_public ? AclError::kAccessDenied : AclError::kOk);
  }
  // A grant by id to any user is not public, whatever its permission.
  EXPECT_FALSE(IsPublicAcl({kAlice, {User(kBob, kFull), User(kCarol, kWrite)}}));

  PublicAccessBlock block;
  EXPECT_TRUE(CheckPublicPolicyAllowed(block, true).ok());
  EXPECT_FALSE(RestrictPublicBucketAccess(block, true));
  block.block_public_policy = true;
  EXPECT_TRUE(CheckPublicPolicyAllowed(block, false).ok());
  EXPECT_EQ(CheckPublicPolicyAllowed(block, true).code(), AclError::kAccessDenied);
  EXPECT_FALSE(RestrictPublicBucketAccess(block, true)) << "BlockPublicPolicy does not restrict";
  block.restrict_public_buckets = true;
  EXPECT_TRUE(RestrictPublicBucketAccess(block, true));
  EXPECT_FALSE(RestrictPublicBucketAccess(block, false));
}

}  // namespace
}  // namespace cubby::iam
