#include "iam/acl_audit.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "iam/acl.h"
#include "iam/authorize.h"
#include "test/storage/test_util.h"

namespace cubby::iam {
namespace {

using storage::AclGrant;
using storage::AclPermission;
using storage::AclRecord;
using storage::GranteeType;
using storage::testing::Bucket;
using storage::testing::OpenOrDie;
using storage::testing::SmallOptions;
using storage::testing::TempDir;

const std::string kAlice(64, 'a'), kBob(64, 'b');

AclRecord Canned(CannedAcl acl, const std::string& owner, bool for_bucket) {
  return ExpandCanned(acl, owner, kAlice, for_bucket);
}

TEST(CopiesPublicBucketGrantTest, Table) {
  const AclRecord public_read = Canned(CannedAcl::kPublicRead, kAlice, true);
  const AclRecord public_rw = Canned(CannedAcl::kPublicReadWrite, kAlice, true);
  const AclRecord authenticated = Canned(CannedAcl::kAuthenticatedRead, kAlice, true);
  const AclRecord private_bucket = Canned(CannedAcl::kPrivate, kAlice, true);
  const struct {
    const char* name;
    const AclRecord& bucket;
    AclRecord object;
    bool copied;
  } cases[] = {
      {"AllUsers READ from a public-read bucket", public_read,
       Canned(CannedAcl::kPublicRead, kBob, false), true},
      {"AllUsers READ from a public-read-write bucket", public_rw,
       Canned(CannedAcl::kPublicRead, kBob, false), true},
      {"AuthenticatedUsers READ from an authenticated-read bucket", authenticated,
       Canned(CannedAcl::kAuthenticatedRead, kBob, false), true},
      {"AllUsers READ in a private bucket: asked for", private_bucket,
       Canned(CannedAcl::kPublicRead, kBob, false), false},
      {"AuthenticatedUsers READ in a public-read bucket: not the bucket's", public_read,
       Canned(CannedAcl::kAuthenticatedRead, kBob, false), false},
      {"private object", public_read, Canned(CannedAcl::kPrivate, kBob, false), false},
      {"a user's grant equal to the bucket's owner grant", public_read,
       AclRecord{kBob, {{GranteeType::kCanonicalUser, kAlice, AclPermission::kFullControl}}},
       false},
      {"no ACL", public_read, AclRecord{}, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(CopiesPublicBucketGrant(c.bucket, c.object), c.copied);
  }
}

class AclAuditTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenOrDie(SmallOptions(dir_.path()));
    ASSERT_NE(store_, nullptr);
  }

  void Put(const std::string& bucket, const std::string& key, AclRecord acl) {
    storage::Result<std::unique_ptr<storage::ObjectWriter>> w = store_->NewObjectWriter(bucket);
    ASSERT_OK(w.status());
    storage::ObjectMeta meta;
    meta.etag = "e";
    meta.owner_id = kBob;
    meta.acl = std::move(acl);
    ASSERT_OK((*w)->Commit(key, meta, {}).status());
  }

  TempDir dir_;
  std::unique_ptr<storage::Store> store_;
};

// A public-read versioned bucket: "copied" (AllUsers READ stored, twice: an older version and
// the latest), "implicit" (no ACL), "mine" (bob gave alice READ); the audit finds the first
// two kinds, a reset makes the copied versions private and touches nothing else, and a second
// reset finds nothing left to do.
TEST_F(AclAuditTest, FindsAndResetsCopiedGrants) {
  storage::BucketRecord b = Bucket("pub");
  b.owner_id = kAlice;
  b.acl = Canned(CannedAcl::kPublicRead, kAlice, true);
  ASSERT_OK(store_->CreateBucket(b));
  ASSERT_OK(store_->SetBucketVersioning("pub", storage::VersioningState::kEnabled));
  Put("pub", "copied", Canned(CannedAcl::kPublicRead, kBob, false));
  Put("pub", "copied", Canned(CannedAcl::kPublicRead, kBob, false));
  Put("pub", "implicit", AclRecord{});
  const AclRecord mine{kBob,
                       {{GranteeType::kCanonicalUser, kBob, AclPermission::kFullControl},
                        {GranteeType::kCanonicalUser, kAlice, AclPermission::kRead}}};
  Put("pub", "mine", mine);
  storage::Result<storage::BucketRecord> record = store_->GetBucket("pub");
  ASSERT_OK(record.status());

  storage::Result<BucketAclAudit> report = AuditBucketAcls(*store_, *record, /*reset=*/false);
  ASSERT_OK(report.status());
  EXPECT_TRUE(report->public_bucket);
  EXPECT_EQ(report->versions, 4u);
  ASSERT_EQ(report->copied.size(), 2u);
  EXPECT_EQ(report->copied[0].key, "copied");
  EXPECT_NE(report->copied[0].version_id, report->copied[1].version_id);
  EXPECT_EQ(report->implicit_count, 1u);
  ASSERT_EQ(report->implicit.size(), 1u);
  EXPECT_EQ(report->implicit[0].key, "implicit");
  EXPECT_EQ(report->reset, 0u);
  // The report changed nothing.
  storage::Result<storage::ObjectMeta> still = store_->HeadObject("pub", "copied");
  ASSERT_OK(still.status());
  EXPECT_TRUE(CopiesPublicBucketGrant(record->acl, still->acl));

  storage::Result<BucketAclAudit> reset = AuditBucketAcls(*store_, *record, /*reset=*/true);
  ASSERT_OK(reset.status());
  EXPECT_EQ(reset->reset, 2u);
  for (const AuditedVersion& v : report->copied) {
    storage::Result<storage::ObjectMeta> meta =
        store_->HeadObjectVersion("pub", v.key, v.version_id, nullptr);
    ASSERT_OK(meta.status());
    const AclRecord acl = ObjectAclOf(*record, *meta);
    EXPECT_EQ(acl.owner_id, kBob);
    ASSERT_EQ(acl.grants.size(), 1u);  // the owner's FULL_CONTROL alone
    EXPECT_EQ(acl.grants[0].grantee, kBob);
  }
  storage::Result<storage::ObjectMeta> kept = store_->HeadObject("pub", "mine");
  ASSERT_OK(kept.status());
  EXPECT_EQ(kept->acl, mine);

  storage::Result<BucketAclAudit> again = AuditBucketAcls(*store_, *record, /*reset=*/true);
  ASSERT_OK(again.status());
  EXPECT_TRUE(again->copied.empty());
  EXPECT_EQ(again->reset, 0u);
  EXPECT_EQ(again->implicit_count, 3u);  // the two reset versions have no ACL of their own now
}

// A private bucket has nothing implicit: its objects were never public.
TEST_F(AclAuditTest, PrivateBucketHasNothingImplicit) {
  storage::BucketRecord b = Bucket("priv");
  b.owner_id = kAlice;
  b.acl = Canned(CannedAcl::kPrivate, kAlice, true);
  ASSERT_OK(store_->CreateBucket(b));
  Put("priv", "k", AclRecord{});
  storage::Result<BucketAclAudit> report = AuditBucketAcls(*store_, b, false);
  ASSERT_OK(report.status());
  EXPECT_FALSE(report->public_bucket);
  EXPECT_EQ(report->versions, 1u);
  EXPECT_EQ(report->implicit_count, 0u);
  EXPECT_TRUE(report->copied.empty());
}

}  // namespace
}  // namespace cubby::iam
