#include "iam/authorize.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "iam/acl.h"
#include "storage/users.h"
#include "test/storage/test_util.h"

namespace cubby::iam {
namespace {

using storage::AccessMode;
using storage::Result;
using storage::testing::Bucket;
using storage::testing::OpenOrDie;
using storage::testing::SmallOptions;
using storage::testing::TempDir;

constexpr Action kEveryAction[] = {
    Action::kListAllMyBuckets,
    Action::kCreateBucket,
    Action::kDeleteBucket,
    Action::kListBucket,
    Action::kGetBucketLocation,
    Action::kGetBucketVersioning,
    Action::kGetBucketAcl,
    Action::kPutBucketAcl,
    Action::kGetObject,
    Action::kGetObjectAcl,
    Action::kPutObject,
    Action::kDeleteObject,
    Action::kAbortMultipartUpload,
    Action::kListMultipartUploadParts,
    Action::kListBucketMultipartUploads,
    Action::kPutObjectAcl,
    Action::kGetBucketPolicy,
    Action::kPutBucketPolicy,
    Action::kDeleteBucketPolicy,
    Action::kGetBucketPolicyStatus,
    Action::kGetBucketOwnershipControls,
    Action::kPutBucketOwnershipControls,
    Action::kGetBucketPublicAccessBlock,
    Action::kPutBucketPublicAccessBlock,
    Action::kGetLifecycleConfiguration,
    Action::kPutLifecycleConfiguration,
    Action::kGetBucketObjectLockConfiguration,
    Action::kPutBucketObjectLockConfiguration,
    Action::kGetObjectRetention,
    Action::kPutObjectRetention,
    Action::kGetObjectLegalHold,
    Action::kPutObjectLegalHold,
    Action::kGetObjectTagging,
    Action::kGetObjectVersionTagging,
    Action::kPutObjectTagging,
    Action::kPutObjectVersionTagging,
    Action::kDeleteObjectTagging,
    Action::kDeleteObjectVersionTagging,
    Action::kGetBucketTagging,
    Action::kPutBucketTagging,
    Action::kGetBucketCors,
    Action::kPutBucketCors,
    Action::kGetBucketWebsite,
    Action::kPutBucketWebsite,
    Action::kDeleteBucketWebsite,
    Action::kGetBucketLogging,
    Action::kPutBucketLogging,
    Action::kGetBucketNotification,
    Action::kPutBucketNotification,
    Action::kGetBucketRequestPayment,
    Action::kPutBucketRequestPayment,
    Action::kGetAccelerateConfiguration,
    Action::kPutAccelerateConfiguration,
    Action::kGetReplicationConfiguration,
    Action::kPutReplicationConfiguration,
    Action::kGetEncryptionConfiguration,
    Action::kPutEncryptionConfiguration,
    Action::kGetAnalyticsConfiguration,
    Action::kPutAnalyticsConfiguration,
    Action::kGetMetricsConfiguration,
    Action::kPutMetricsConfiguration,
    Action::kGetInventoryConfiguration,
    Action::kPutInventoryConfiguration,
    Action::kGetIntelligentTieringConfiguration,
    Action::kPutIntelligentTieringConfiguration,
    Action::kAnyBucketAccess,
    Action::kUnimplemented,
};

// Buckets named after their anonymous mode; "missing" does not exist. Keys: "root" (all
// buckets) and one COSI key per mode, each granted on "shared" only.
class AuthorizeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenOrDie(SmallOptions(dir_.path()));
    ASSERT_NE(store_, nullptr);
    for (auto [name, mode] : {std::pair{"private", AccessMode::kNone},
                              {"public-read", AccessMode::kReadOnly},
                              {"public-write", AccessMode::kWriteOnly},
                              {"public-rw", AccessMode::kReadWrite},
                              {"shared", AccessMode::kNone}}) {
      storage::BucketRecord b = Bucket(name);
      b.anonymous = mode;
      ASSERT_OK(store_->CreateBucket(b));
    }
    root_.access_key_id = "root";
    root_.all_buckets = true;
    reader_.grants["shared"] = AccessMode::kReadOnly;
    writer_.grants["shared"] = AccessMode::kWriteOnly;
    read_write_.grants["shared"] = AccessMode::kReadWrite;
    no_mode_.grants["shared"] = AccessMode::kNone;
  }

  Identity Who(const std::string& name) const {
    if (name == "root") return Identity::Key(root_);
    if (name == "reader") return Identity::Key(reader_);
    if (name == "writer") return Identity::Key(writer_);
    if (name == "rw") return Identity::Key(read_write_);
    if (name == "no-mode") return Identity::Key(no_mode_);
    return Identity::Anonymous();
  }

  TempDir dir_;
  std::unique_ptr<storage::Store> store_;
  storage::AccessKeyRecord root_, reader_, writer_, read_write_, no_mode_;
};

struct Case {
  std::string who;  // "root", "reader", "writer", "rw", "no-mode", "anonymous"
  Action action;
  std::string bucket;
  std::string key;
  RequestFacts facts;
  Verdict verdict;
};

constexpr RequestFacts kPlain{};
constexpr RequestFacts kCopy{.copy_source = true};
constexpr RequestFacts kMultipart{.multipart = true};

TEST_F(AuthorizeTest, Table) {
  const Verdict allow = Verdict::kAllow, deny = Verdict::kDeny;
  const std::vector<Case> cases = {
      // The root key may do anything, even on a bucket that does not exist.
      {"root", Action::kListAllMyBuckets, "", "", kPlain, allow},
      {"root", Action::kCreateBucket, "new", "", kPlain, allow},
      {"root", Action::kDeleteBucket, "private", "", kPlain, allow},
      {"root", Action::kPutBucketAcl, "private", "", kPlain, allow},
      {"root", Action::kPutObject, "missing", "k", kCopy, allow},
      {"root", Action::kUnimplemented, "", "", kPlain, allow},
      // COSI keys: confined to their bucket, by mode.
      {"reader", Action::kListAllMyBuckets, "", "", kPlain, allow},
      {"reader", Action::kListAllMyBuckets, "shared", "", kPlain, allow},
      {"reader", Action::kListAllMyBuckets, "private", "", kPlain, deny},
      {"no-mode", Action::kListAllMyBuckets, "shared", "", kPlain, allow},
      {"reader", Action::kListBucket, "shared", "", kPlain, allow},
      {"reader", Action::kGetObject, "shared", "k", kPlain, allow},
      {"reader", Action::kGetBucketLocation, "shared", "", kPlain, allow},
      {"reader", Action::kGetBucketVersioning, "shared", "", kPlain, allow},
      {"reader", Action::kGetBucketAcl, "shared", "", kPlain, allow},
      {"reader", Action::kGetObjectAcl, "shared", "k", kPlain, allow},
      {"reader", Action::kListMultipartUploadParts, "shared", "k", kPlain, allow},
      {"reader", Action::kListBucketMultipartUploads, "shared", "", kPlain, allow},
      {"reader", Action::kPutObject, "shared", "k", kPlain, deny},
      {"reader", Action::kDeleteObject, "shared", "k", kPlain, deny},
      {"reader", Action::kAbortMultipartUpload, "shared", "k", kPlain, deny},
      {"reader", Action::kAnyBucketAccess, "shared", "", kPlain, allow},
      {"reader", Action::kUnimplemented, "shared", "", kPlain, allow},
      {"reader", Action::kGetObject, "private", "k", kPlain, deny},
      {"reader", Action::kGetObject, "public-read", "k", kPlain, deny},  // keys ignore anon modes
      {"reader", Action::kAnyBucketAccess, "private", "", kPlain, deny},
      {"reader", Action::kUnimplemented, "private", "", kPlain, deny},
      {"reader", Action::kUnimplemented, "", "", kPlain, allow},  // answered NotImplemented
      {"reader", Action::kCreateBucket, "shared", "", kPlain, deny},
      {"reader", Action::kDeleteBucket, "shared", "", kPlain, deny},
      {"rw", Action::kPutBucketAcl, "shared", "", kPlain, deny},
      {"reader", Action::kGetLifecycleConfiguration, "shared", "", kPlain, allow},
      {"writer", Action::kGetLifecycleConfiguration, "shared", "", kPlain, deny},
      {"rw", Action::kPutLifecycleConfiguration, "shared", "", kPlain, deny},  // admin only
      {"root", Action::kPutLifecycleConfiguration, "private", "", kPlain, allow},
      // Object lock: a COSI key reads it by its mode; setting it is the owner's (admin).
      {"reader", Action::kGetBucketObjectLockConfiguration, "shared", "", kPlain, allow},
      {"reader", Action::kGetObjectRetention, "shared", "k", kPlain, allow},
      {"reader", Action::kGetObjectLegalHold, "shared", "k", kPlain, allow},
      {"writer", Action::kGetObjectRetention, "shared", "k", kPlain, deny},
      {"rw", Action::kPutBucketObjectLockConfiguration, "shared", "", kPlain, deny},
      {"rw", Action::kPutObjectRetention, "shared", "k", kPlain, deny},
      {"rw", Action::kPutObjectLegalHold, "shared", "k", kPlain, deny},
      {"anonymous", Action::kPutBucketObjectLockConfiguration, "missing", "", kPlain, deny},
      {"anonymous", Action::kPutObjectRetention, "public-rw", "k", kPlain, deny},
      // Tagging: a COSI key reads tags by its read mode and changes an object's by its write
      // mode (as it writes the object); a bucket's tags are the owner's (admin).
      {"reader", Action::kGetObjectTagging, "shared", "k", kPlain, allow},
      {"reader", Action::kGetObjectVersionTagging, "shared", "k", kPlain, allow},
      {"reader", Action::kGetBucketTagging, "shared", "", kPlain, allow},
      {"writer", Action::kGetObjectTagging, "shared", "k", kPlain, deny},
      {"reader", Action::kPutObjectTagging, "shared", "k", kPlain, deny},
      {"writer", Action::kPutObjectTagging, "shared", "k", kPlain, allow},
      {"writer", Action::kPutObjectVersionTagging, "shared", "k", kPlain, allow},
      {"writer", Action::kDeleteObjectTagging, "shared", "k", kPlain, allow},
      {"writer", Action::kDeleteObjectVersionTagging, "shared", "k", kPlain, allow},
      {"rw", Action::kPutBucketTagging, "shared", "", kPlain, deny},
      {"root", Action::kPutBucketTagging, "private", "", kPlain, allow},
      {"anonymous", Action::kPutBucketTagging, "public-rw", "", kPlain, deny},
      // Anonymous callers: object tagging is not granted by ACLs (S3's mapping table does not
      // list it), so a public bucket's anonymous writer may not tag.
      {"anonymous", Action::kPutObjectTagging, "public-rw", "k", kPlain, deny},
      {"anonymous", Action::kGetObjectTagging, "public-rw", "k", kPlain, deny},
      // CORS: a COSI key reads the configuration by its mode; setting it is the owner's.
      {"reader", Action::kGetBucketCors, "shared", "", kPlain, allow},
      {"writer", Action::kGetBucketCors, "shared", "", kPlain, deny},
      {"rw", Action::kPutBucketCors, "shared", "", kPlain, deny},  // admin only
      {"root", Action::kPutBucketCors, "private", "", kPlain, allow},
      {"anonymous", Action::kPutBucketCors, "public-rw", "", kPlain, deny},
      {"anonymous", Action::kGetBucketCors, "public-rw", "", kPlain, deny},  // owner's only
      // Bucket sub-resources without configuration: a COSI key reads them by its read mode;
      // their Put (and Delete) actions are the owner's (admin); anonymous callers only by policy.
      {"reader", Action::kGetBucketWebsite, "shared", "", kPlain, allow},
      {"reader", Action::kGetBucketLogging, "shared", "", kPlain, allow},
      {"reader", Action::kGetAnalyticsConfiguration, "shared", "", kPlain, allow},
      {"writer", Action::kGetBucketNotification, "shared", "", kPlain, deny},
      {"rw", Action::kPutBucketWebsite, "shared", "", kPlain, deny},
      {"rw", Action::kDeleteBucketWebsite, "shared", "", kPlain, deny},
      {"rw", Action::kPutReplicationConfiguration, "shared", "", kPlain, deny},
      {"root", Action::kPutBucketWebsite, "private", "", kPlain, allow},
      {"anonymous", Action::kGetBucketWebsite, "public-rw", "", kPlain, deny},
      {"anonymous", Action::kPutBucketLogging, "public-rw", "", kPlain, deny},
      {"rw", Action::kCreateBucket, "new", "", kPlain, deny},
      {"writer", Action::kPutObject, "shared", "k", kCopy, allow},
      {"writer", Action::kPutObject, "shared", "k", kMultipart, allow},
      {"writer", Action::kDeleteObject, "shared", "k", kPlain, allow},
      {"writer", Action::kAbortMultipartUpload, "shared", "k", kPlain, allow},
      {"writer", Action::kGetObject, "shared", "k", kPlain, deny},
      {"writer", Action::kListBucket, "shared", "", kPlain, deny},
      {"writer", Action::kAnyBucketAccess, "shared", "", kPlain, allow},
      {"rw", Action::kGetObject, "shared", "k", kPlain, allow},
      {"rw", Action::kDeleteObject, "shared", "k", kPlain, allow},
      {"no-mode", Action::kGetObject, "shared", "k", kPlain, deny},
      {"no-mode", Action::kPutObject, "shared", "k", kPlain, deny},
      {"no-mode", Action::kAnyBucketAccess, "shared", "", kPlain, deny},
      {"no-mode", Action::kUnimplemented, "shared", "", kPlain, deny},
      // Anonymous callers: never service-level or admin (no bucket read), else by the bucket's
      // anonymous mode, and NoSuchBucket for a missing bucket.
      {"anonymous", Action::kListAllMyBuckets, "", "", kPlain, deny},
      {"anonymous", Action::kUnimplemented, "", "", kPlain, deny},
      {"anonymous", Action::kCreateBucket, "missing", "", kPlain, deny},
      {"anonymous", Action::kDeleteBucket, "public-rw", "", kPlain, deny},
      {"anonymous", Action::kPutBucketAcl, "missing", "", kPlain, deny},
      {"anonymous", Action::kGetObject, "missing", "k", kPlain, Verdict::kNoSuchBucket},
      {"anonymous", Action::kUnimplemented, "missing", "", kPlain, Verdict::kNoSuchBucket},
      {"anonymous", Action::kGetObject, "private", "k", kPlain, deny},
      {"anonymous", Action::kListBucket, "private", "", kPlain, deny},
      {"anonymous", Action::kAnyBucketAccess, "private", "", kPlain, deny},
      {"anonymous", Action::kGetObject, "public-read", "k", kPlain, allow},
      {"anonymous", Action::kListBucket, "public-read", "", kPlain, allow},
      {"anonymous", Action::kAnyBucketAccess, "public-read", "", kPlain, allow},
      {"anonymous", Action::kPutObject, "public-read", "k", kPlain, deny},
      {"anonymous", Action::kDeleteObject, "public-read", "k", kPlain, deny},
      {"anonymous", Action::kGetBucketAcl, "public-read", "", kPlain, deny},
      {"anonymous", Action::kGetBucketLocation, "public-read", "", kPlain, deny},
      {"anonymous", Action::kGetObjectAcl, "public-read", "k", kPlain, deny},
      // Bucket READ: ListBucket and ListBucketMultipartUploads (the ACL permission table).
      {"anonymous", Action::kListBucketMultipartUploads, "public-read", "", kPlain, allow},
      {"anonymous", Action::kListMultipartUploadParts, "public-read", "k", kPlain, deny},
      {"anonymous", Action::kUnimplemented, "public-read", "", kPlain, deny},
      {"anonymous", Action::kPutObject, "public-write", "k", kPlain, allow},
      {"anonymous", Action::kPutObject, "public-write", "k", kCopy, deny},
      {"anonymous", Action::kPutObject, "public-write", "k", kMultipart, deny},
      // WriteOnly (AllUsers WRITE alone) stays a drop box: no anonymous delete.
      {"anonymous", Action::kDeleteObject, "public-write", "k", kPlain, deny},
      {"anonymous", Action::kGetObject, "public-write", "k", kPlain, deny},
      {"anonymous", Action::kAnyBucketAccess, "public-write", "", kPlain, allow},
      {"anonymous", Action::kAbortMultipartUpload, "public-write", "k", kPlain, deny},
      {"anonymous", Action::kGetObject, "public-rw", "k", kPlain, allow},
      {"anonymous", Action::kPutObject, "public-rw", "k", kPlain, allow},
      {"anonymous", Action::kPutObject, "public-rw", "k", kCopy, deny},
      {"anonymous", Action::kPutObject, "public-rw", "k", kMultipart, deny},
      {"anonymous", Action::kDeleteObject, "public-rw", "k", kPlain, allow},
      {"anonymous", Action::kAbortMultipartUpload, "public-rw", "k", kPlain, deny},
      {"anonymous", Action::kUnimplemented, "public-rw", "", kPlain, deny},
  };
  const Authorizer authorizer(store_.get());
  for (const Case& c : cases) {
    SCOPED_TRACE(c.who + " " + std::string(ActionName(c.action)) + " " + c.bucket + "/" + c.key);
    Decision d = authorizer.Authorize(Who(c.who), c.action, {c.bucket, c.key}, c.facts);
    EXPECT_EQ(d.verdict, c.verdict);
    EXPECT_EQ(d.allowed(), c.verdict == Verdict::kAllow);
    EXPECT_TRUE(d.failure.ok());
  }
}

// The root key may do every action anywhere; an anonymous caller never gets past a missing
// bucket except for the actions denied before any read.
TEST_F(AuthorizeTest, EveryAction) {
  const Authorizer authorizer(store_.get());
  for (Action action : kEveryAction) {
    SCOPED_TRACE(ActionName(action));
    EXPECT_TRUE(authorizer.Authorize(Who("root"), action, {"missing", "k"}, kPlain).allowed());
    const Verdict anonymous =
        authorizer.Authorize(Who("anonymous"), action, {"missing", "k"}, kPlain).verdict;
    const bool denied_first =
        action == Action::kListAllMyBuckets || action == Action::kCreateBucket ||
        action == Action::kDeleteBucket || action == Action::kPutBucketAcl ||
        action == Action::kPutBucketPolicy || action == Action::kDeleteBucketPolicy ||
        action == Action::kPutBucketOwnershipControls ||
        action == Action::kPutBucketPublicAccessBlock ||
        action == Action::kPutLifecycleConfiguration ||
        action == Action::kPutBucketObjectLockConfiguration ||
        action == Action::kPutBucketTagging || action == Action::kPutBucketCors ||
        // The bucket sub-resources' writes.
        action == Action::kPutBucketWebsite || action == Action::kDeleteBucketWebsite ||
        action == Action::kPutBucketLogging || action == Action::kPutBucketNotification ||
        action == Action::kPutBucketRequestPayment ||
        action == Action::kPutAccelerateConfiguration ||
        action == Action::kPutReplicationConfiguration ||
        action == Action::kPutEncryptionConfiguration ||
        action == Action::kPutAnalyticsConfiguration ||
        action == Action::kPutMetricsConfiguration ||
        action == Action::kPutInventoryConfiguration ||
        action == Action::kPutIntelligentTieringConfiguration;
    EXPECT_EQ(anonymous, denied_first ? Verdict::kDeny : Verdict::kNoSuchBucket);
  }
}

// Users (format 2, interim rules): every right on the buckets they own, none on others; root's
// keys may do anything, but list only root's own buckets; a COSI user's key keeps its grants.
TEST_F(AuthorizeTest, Users) {
  const std::string alice(64, 'a'), bob(64, 'b'), root(64, 'f');
  storage::BucketRecord owned = Bucket("alices");
  owned.owner_id = alice;
  ASSERT_OK(store_->CreateBucket(owned));
  storage::BucketRecord roots = Bucket("roots");
  roots.owner_id = root;
  ASSERT_OK(store_->CreateBucket(roots));
  storage::AccessKeyRecord alice_key, bob_key, root_key, cosi_key;
  alice_key.user_id = alice;
  bob_key.user_id = bob;
  root_key.user_id = root;
  root_key.all_buckets = true;
  cosi_key.user_id = std::string(64, 'c');
  cosi_key.grant_name = "ba-1";
  cosi_key.grants["shared"] = AccessMode::kReadWrite;
  const Authorizer authorizer(store_.get());
  const Verdict allow = Verdict::kAllow, deny = Verdict::kDeny;
  struct UserCase {
    const storage::AccessKeyRecord* key;
    Action action;
    std::string bucket;
    Verdict verdict;
  } cases[] = {
      {&alice_key, Action::kCreateBucket, "new", allow},
      {&alice_key, Action::kListAllMyBuckets, "", allow},
      {&alice_key, Action::kListAllMyBuckets, "alices", allow},
      {&alice_key, Action::kListAllMyBuckets, "roots", deny},
      {&alice_key, Action::kListAllMyBuckets, "missing", deny},
      {&alice_key, Action::kUnimplemented, "", allow},
      {&bob_key, Action::kListAllMyBuckets, "alices", deny},
      {&root_key, Action::kListAllMyBuckets, "roots", allow},
      {&root_key, Action::kListAllMyBuckets, "alices", deny},    // listed: its own only
      {&root_key, Action::kListAllMyBuckets, "private", allow},  // no owner: from before users
      {&root_key, Action::kDeleteObject, "alices", allow},       // but may do anything
      {&cosi_key, Action::kPutObject, "shared", allow},
      {&cosi_key, Action::kGetObject, "alices", deny},
      {&cosi_key, Action::kCreateBucket, "new", deny},
  };
  for (const UserCase& c : cases) {
    SCOPED_TRACE(std::string(ActionName(c.action)) + " on " + c.bucket + " by " + c.key->user_id);
    EXPECT_EQ(authorizer.Authorize(Identity::Key(*c.key), c.action, {c.bucket, ""}, kPlain).verdict,
              c.verdict);
  }
  for (Action action : kEveryAction) {
    SCOPED_TRACE(ActionName(action));
    EXPECT_TRUE(
        authorizer.Authorize(Identity::Key(alice_key), action, {"alices", "k"}, kPlain).allowed());
    const bool service = action == Action::kCreateBucket;
    EXPECT_EQ(authorizer.Authorize(Identity::Key(bob_key), action, {"alices", "k"}, kPlain).verdict,
              service ? allow : deny);
    const Verdict missing =
        authorizer.Authorize(Identity::Key(bob_key), action, {"missing", "k"}, kPlain).verdict;
    EXPECT_EQ(missing, service                               ? allow
                       : action == Action::kListAllMyBuckets ? deny
                                                             : Verdict::kNoSuchBucket);
  }
  // A record handed in is used as it is (ListBuckets passes each one).
  storage::BucketRecord other = Bucket("alices");
  other.owner_id = bob;
  EXPECT_TRUE(authorizer
                  .Authorize(Identity::Key(bob_key), Action::kListAllMyBuckets,
                             {"alices", "", &other}, kPlain)
                  .allowed());
}

// A new object is private unless its own ACL says otherwise: a bucket's grants (public-read,
// public-read-write) let others list it and write into it, never read what is in it. Only a
// COSI bucket's readable anonymous mode, a rule of the bucket, lets anyone read its objects.
TEST_F(AuthorizeTest, ObjectsDoNotTakeTheirBucketsGrants) {
  const std::string alice(64, 'a'), bob(64, 'b'), carol(64, 'c');
  storage::BucketRecord s3_public = Bucket("s3-public");  // as CreateBucket public-read-write
  s3_public.owner_id = alice;
  s3_public.acl = ExpandCanned(CannedAcl::kPublicReadWrite, alice, alice, /*for_bucket=*/true);
  s3_public.anonymous = AccessMode::kReadWrite;
  ASSERT_OK(store_->CreateBucket(s3_public));
  storage::BucketRecord cosi_public = Bucket("cosi-public");  // anonymousBucketAccessMode ReadOnly
  cosi_public.owner_id = alice;
  cosi_public.created_by_cosi = true;
  cosi_public.anonymous = AccessMode::kReadOnly;
  cosi_public.acl = storage::BucketAclFor(alice, AccessMode::kReadOnly);
  ASSERT_OK(store_->CreateBucket(cosi_public));
  storage::BucketRecord ignoring = cosi_public;  // the same, with IgnorePublicAcls
  ignoring.name = "cosi-ignoring";
  ignoring.public_access_block.ignore_public_acls = true;
  ASSERT_OK(store_->CreateBucket(ignoring));
  // "plain": bob's, written without an ACL; "public": bob's, written with public-read.
  for (const char* bucket : {"s3-public", "cosi-public", "cosi-ignoring"}) {
    for (const bool with_acl : {false, true}) {
      Result<std::unique_ptr<storage::ObjectWriter>> w = store_->NewObjectWriter(bucket);
      ASSERT_OK(w.status());
      storage::ObjectMeta meta;
      meta.etag = "e";
      meta.owner_id = bob;
      if (with_acl) meta.acl = ExpandCanned(CannedAcl::kPublicRead, bob, alice, false);
      ASSERT_OK((*w)->Commit(with_acl ? "public" : "plain", meta, {}).status());
    }
  }
  storage::AccessKeyRecord alice_key, bob_key, carol_key;
  alice_key.user_id = alice;
  bob_key.user_id = bob;
  carol_key.user_id = carol;
  const Identity anonymous = Identity::Anonymous();
  const Identity as_alice = Identity::Key(alice_key), as_bob = Identity::Key(bob_key),
                 as_carol = Identity::Key(carol_key);
  const Verdict allow = Verdict::kAllow, deny = Verdict::kDeny;
  struct ObjectCase {
    const Identity* who;
    Action action;
    std::string bucket, key;
    Verdict verdict;
  } cases[] = {
      {&anonymous, Action::kGetObject, "s3-public", "plain", deny},
      {&as_carol, Action::kGetObject, "s3-public", "plain", deny},
      {&as_alice, Action::kGetObject, "s3-public", "plain", deny},  // the bucket owner too
      {&as_bob, Action::kGetObject, "s3-public", "plain", allow},   // the writer owns it
      {&anonymous, Action::kGetObjectAcl, "s3-public", "plain", deny},
      {&anonymous, Action::kListBucket, "s3-public", "", allow},    // the bucket's READ: listing
      {&anonymous, Action::kPutObject, "s3-public", "new", allow},  // its WRITE: writing
      {&anonymous, Action::kGetObject, "s3-public", "public", allow},
      {&as_carol, Action::kGetObject, "s3-public", "public", allow},
      {&anonymous, Action::kGetObject, "cosi-public", "plain", allow},
      {&as_carol, Action::kGetObject, "cosi-public", "plain", allow},
      {&anonymous, Action::kGetObjectAcl, "cosi-public", "plain", deny},
      {&anonymous, Action::kGetObject, "cosi-ignoring", "plain", deny},
      {&anonymous, Action::kGetObject, "cosi-ignoring", "public", deny},
      {&as_bob, Action::kGetObject, "cosi-ignoring", "plain", allow},
  };
  const Authorizer authorizer(store_.get());
  for (const ObjectCase& c : cases) {
    SCOPED_TRACE(
        std::string(ActionName(c.action)) + " " + c.bucket + "/" + c.key + " by " +
        (c.who->anonymous() ? std::string("anonymous") : c.who->key->user_id.substr(0, 1)));
    EXPECT_EQ(authorizer.Authorize(*c.who, c.action, {c.bucket, c.key}, kPlain).verdict, c.verdict);
  }
  // GetObjectAcl reports what counts: the owner's FULL_CONTROL alone for an object without ACL.
  for (const char* bucket : {"s3-public", "cosi-public"}) {
    SCOPED_TRACE(bucket);
    Result<storage::BucketRecord> record = store_->GetBucket(bucket);
    ASSERT_OK(record.status());
    Result<storage::ObjectMeta> plain = store_->HeadObject(bucket, "plain");
    ASSERT_OK(plain.status());
    const storage::AclRecord acl = ObjectAclOf(*record, *plain);
    EXPECT_EQ(acl.owner_id, bob);
    ASSERT_EQ(acl.grants.size(), 1u);
    EXPECT_EQ(acl.grants[0].grantee, bob);
    EXPECT_EQ(acl.grants[0].permission, storage::AclPermission::kFullControl);
  }
}

TEST(ActionNameTest, IamNames) {
  EXPECT_EQ(ActionName(Action::kListAllMyBuckets), "s3:ListAllMyBuckets");
  EXPECT_EQ(ActionName(Action::kGetObject), "s3:GetObject");
  EXPECT_EQ(ActionName(Action::kListMultipartUploadParts), "s3:ListMultipartUploadParts");
  for (Action action : kEveryAction) {
    const std::string_view name = ActionName(action);
    EXPECT_TRUE(name.starts_with("s3:") || name.starts_with("cubby:")) << name;
    EXPECT_NE(name, "cubby:Unknown");
  }
}

}  // namespace
}  // namespace cubby::iam
