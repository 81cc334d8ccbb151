// Finding (and resetting) object ACLs that a public bucket's grants reached.
//
// Earlier releases made an object written without an ACL of its own readable by everyone while
// its bucket's ACL granted AllUsers READ, and GetObjectAcl reported that grant (README,
// "Upgrades"). Such an object is private now (see Authorizer). Two kinds of
// object are worth an operator's look after the upgrade:
//  - `copied`: versions whose stored ACL carries a group grant (AllUsers, AuthenticatedUsers)
//    that the bucket's own ACL also grants. The usual way there: a client read the object's
//    ACL (which showed the bucket's grant) and wrote it back with a change (s3cmd setacl, an
//    SDK's read-modify-write). Some were asked for on purpose (x-amz-acl: public-read into a
//    public-read bucket): cubby cannot tell the two apart, so a reset is the operator's call.
//  - `implicit`: versions without an ACL of their own in a bucket whose ACL grants a group
//    READ: readable by everyone before the upgrade, private now (nothing to reset; listed so
//    that what should stay public can be given its own ACL).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storage/records.h"
#include "storage/status.h"
#include "storage/store.h"

namespace cubby::iam {

struct AuditedVersion {
  std::string key;
  std::string version_id;  // "null" for the null version
};

struct BucketAclAudit {
  std::string bucket;
  bool public_bucket = false;  // the bucket's ACL grants AllUsers or AuthenticatedUsers anything
  uint64_t versions = 0;       // object versions looked at (delete markers are not counted)
  std::vector<AuditedVersion> copied;    // see the file comment; all of them
  uint64_t implicit_count = 0;           // see the file comment
  std::vector<AuditedVersion> implicit;  // the first `list_limit` of them
  uint64_t reset = 0;                    // of `copied`, how many were made private
};

// Whether `object_acl` carries a group grant that `bucket_acl` also grants (same group and
// permission): the `copied` test above.
bool CopiesPublicBucketGrant(const storage::AclRecord& bucket_acl,
                             const storage::AclRecord& object_acl);

// Looks at every object version of `bucket` (each one's head is read: a scan for an operator,
// not for a request path). With `reset`, each `copied` version's ACL is made private (the
// stored ACL removed: its owner's FULL_CONTROL alone) in one Store::UpdateObjectAccess each,
// which checks again under the key's lock, so an ACL changed meanwhile is left as it is.
// Versions that go away during the scan are skipped. kNoSuchBucket, or the store's failure.
storage::Result<BucketAclAudit> AuditBucketAcls(storage::Store& store,
                                                const storage::BucketRecord& bucket, bool reset,
                                                size_t list_limit = 1000);

}  // namespace cubby::iam
