#include "iam/acl_audit.h"

#include "iam/acl.h"
#include "iam/authorize.h"

namespace cubby::iam {
namespace {

bool IsPublicGroup(const storage::AclGrant& g) {
  return g.type == storage::GranteeType::kGroup &&
         (g.grantee == kAllUsersGroup || g.grantee == kAuthenticatedUsersGroup);
}

bool HasOwnAcl(const storage::ObjectMeta& meta) {
  return !meta.acl.owner_id.empty() || !meta.acl.grants.empty();
}

}  // namespace

bool CopiesPublicBucketGrant(const storage::AclRecord& bucket_acl,
                             const storage::AclRecord& object_acl) {
  for (const storage::AclGrant& g : object_acl.grants) {
    if (!IsPublicGroup(g)) continue;
    for (const storage::AclGrant& b : bucket_acl.grants) {
      if (b.type == g.type && b.grantee == g.grantee && b.permission == g.permission) return true;
    }
  }
  return false;
}

storage::Result<BucketAclAudit> AuditBucketAcls(storage::Store& store,
                                                const storage::BucketRecord& bucket, bool reset,
                                                size_t list_limit) {
  BucketAclAudit audit;
  audit.bucket = bucket.name;
  const storage::AclRecord bucket_acl = BucketAclOf(bucket);
  bool group_reads = false;
  for (const storage::AclGrant& g : bucket_acl.grants) {
    if (!IsPublicGroup(g)) continue;
    audit.public_bucket = true;
    group_reads |= g.permission == storage::AclPermission::kRead ||
                   g.permission == storage::AclPermission::kFullControl;
  }
  storage::VersionsQuery query;
  query.bucket = bucket.name;
  for (;;) {
    storage::Result<storage::VersionsPage> page = store.ListObjectVersions(query);
    if (!page.ok()) return page.status();
    for (const storage::ObjectVersion& v : page->versions) {
      if (v.delete_marker) continue;
      const std::string id = v.version_id.empty() ? "null" : v.version_id;
      storage::Result<storage::ObjectMeta> meta =
          store.HeadObjectVersion(bucket.name, v.key, id, nullptr);
      if (!meta.ok()) {
        const storage::Code code = meta.status().code();
        if (code == storage::Code::kNoSuchKey || code == storage::Code::kNoSuchVersion) continue;
        return meta.status();
      }
      ++audit.versions;
      if (!HasOwnAcl(*meta)) {
        if (group_reads) {
          ++audit.implicit_count;
          if (audit.implicit.size() < list_limit) audit.implicit.push_back({v.key, id});
        }
        continue;
      }
      if (!CopiesPublicBucketGrant(bucket_acl, meta->acl)) continue;
      audit.copied.push_back({v.key, id});
      if (!reset) continue;
      bool changed = false;
      storage::Status s =
          store.UpdateObjectAccess(bucket.name, v.key, id, [&](storage::ObjectMeta* m) {
            if (CopiesPublicBucketGrant(bucket_acl, m->acl)) {
              m->acl = storage::AclRecord{};
              changed = true;
            }
            return storage::Status::Ok();
          });
      if (!s.ok() && s.code() != storage::Code::kNoSuchKey &&
          s.code() != storage::Code::kNoSuchVersion) {
        return s;
      }
      if (s.ok() && changed) ++audit.reset;
    }
    if (!page->truncated) break;
    query.key_marker = page->next_key_marker;
    query.version_id_marker = page->next_version_id_marker;
  }
  return audit;
}

}  // namespace cubby::iam
