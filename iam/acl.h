// The S3 ACL model as pure functions over storage's stored values (storage/access_records.h):
// canned ACLs, the x-amz-grant-* headers, whom a grant matches, which ACL permission each S3
// action needs, object ownership and the public access block. Nothing here reads the store, a
// request or a clock; the S3 layer maps AclError to its error table, and the Authorizer combines
// AclAllows with policies.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/acl-overview.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/about-object-ownership.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/access-control-block-public-access.html
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "iam/action.h"
#include "storage/access_records.h"

namespace cubby::iam {

using storage::AclGrant;
using storage::AclPermission;
using storage::AclRecord;
using storage::GranteeType;
using storage::ObjectOwnership;
using storage::PublicAccessBlock;

// The predefined groups a grant may name (acl-overview.html#specifying-grantee). Any other URI
// is refused (InvalidArgument).
inline constexpr std::string_view kAllUsersGroup =
    "http://acs.amazonaws.com/groups/global/AllUsers";
inline constexpr std::string_view kAuthenticatedUsersGroup =
    "http://acs.amazonaws.com/groups/global/AuthenticatedUsers";
inline constexpr std::string_view kLogDeliveryGroup =
    "http://acs.amazonaws.com/groups/s3/LogDelivery";

// True for exactly the three URIs above (compared byte for byte, as S3 does).
bool IsKnownGroup(std::string_view uri);

// "READ", "WRITE", "READ_ACP", "WRITE_ACP", "FULL_CONTROL": the names the XML and the grant
// headers use.
std::string_view PermissionName(AclPermission permission);
// The inverse of PermissionName (exact, case-sensitive); false for anything else.
[[nodiscard]] bool ParsePermission(std::string_view name, AclPermission* out);

// What went wrong, in the S3 vocabulary the S3 layer maps one to one (s3api/acl_xml.h
// FromAclError). Every code is a client error.
enum class AclError {
  kOk,
  kInvalidArgument,                      // 400: unknown canned ACL, group, id, malformed grant,
                                         //      unknown x-amz-object-ownership
  kInvalidRequest,                       // 400: x-amz-acl together with x-amz-grant-*
  kUnresolvableGrantByEmailAddress,      // 400: no user has that e-mail address
  kAccessControlListNotSupported,        // 400: the bucket's ownership is BucketOwnerEnforced
  kInvalidBucketAclWithObjectOwnership,  // 400: BucketOwnerEnforced with a bucket ACL that
                                         //      grants to anyone but the bucket owner
  kAccessDenied,                         // 403: BlockPublicAcls / BlockPublicPolicy refused it
};

// An AclError with the message the S3 error document carries. Default: OK.
class [[nodiscard]] AclStatus {
 public:
  AclStatus() = default;
  AclStatus(AclError code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == AclError::kOk; }
  AclError code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  AclError code_ = AclError::kOk;
  std::string message_;
};

// ---- Canned ACLs (acl-overview.html#canned-acl) ----

enum class CannedAcl {
  kPrivate,
  kPublicRead,
  kPublicReadWrite,
  kAuthenticatedRead,
  kAwsExecRead,
  kBucketOwnerRead,
  kBucketOwnerFullControl,
  kLogDeliveryWrite,
};

// "private", "public-read", ... (the x-amz-acl values).
std::string_view CannedAclName(CannedAcl acl);

// The x-amz-acl value, exactly (case-sensitive, no trimming: the caller passes the header value
// as the HTTP layer trimmed it). Unknown: kInvalidArgument.
AclStatus ParseCannedAcl(std::string_view value, CannedAcl* out);

// The ACL a canned ACL stands for, owned by `owner_id` (the new resource's owner; for a bucket
// also `bucket_owner_id`). Every canned ACL has the owner's FULL_CONTROL, and:
//   private                   nothing more
//   public-read               AllUsers READ
//   public-read-write         AllUsers READ, AllUsers WRITE
//   authenticated-read        AuthenticatedUsers READ
//   aws-exec-read             nothing more: the READ it adds on AWS is for Amazon EC2's own
//                             account, which no cubby user is
//   bucket-owner-read         on an object: the bucket owner READ; on a bucket: ignored (S3
//                             ignores it there), so nothing more
//   bucket-owner-full-control on an object: the bucket owner FULL_CONTROL; on a bucket: ignored
//   log-delivery-write        LogDelivery WRITE and LogDelivery READ_ACP (meant for buckets; an
//                             object gets the same grants)
// The bucket owner's grant is left out when the bucket owner is the owner: the owner's
// FULL_CONTROL already says it (so bucket-owner-full-control by the bucket owner is private).
// Order: the group grants in the order above, then the owner's FULL_CONTROL, then the bucket
// owner's grant, as Ceph RGW lists them (clients and test suites index grants by position:
// public-read-write is AllUsers READ, AllUsers WRITE, owner FULL_CONTROL).
AclRecord ExpandCanned(CannedAcl acl, std::string_view owner_id, std::string_view bucket_owner_id,
                       bool for_bucket);

// ---- Grantees named by a request ----

// Turns what a request names into canonical ids. Both are called only while a request is parsed.
struct GranteeResolver {
  // The canonical id of the user with this e-mail address, or nullopt if there is none.
  // Required when a request names an e-mail address (unset: every e-mail is unresolvable).
  std::function<std::optional<std::string>(std::string_view email)> id_by_email;
  // Whether a canonical id names a user. Unset: every non-empty id is accepted.
  std::function<bool(std::string_view canonical_id)> id_exists;
};

// The x-amz-grant-* header values of a request; nullopt where the header is absent.
struct GrantHeaders {
  std::optional<std::string_view> read;          // x-amz-grant-read
  std::optional<std::string_view> write;         // x-amz-grant-write
  std::optional<std::string_view> read_acp;      // x-amz-grant-read-acp
  std::optional<std::string_view> write_acp;     // x-amz-grant-write-acp
  std::optional<std::string_view> full_control;  // x-amz-grant-full-control

  bool any() const { return read || write || read_acp || write_acp || full_control; }
};

// The ACL the grant headers describe, owned by `owner_id`. Each header is a comma-separated list
// of `type=value` (spaces around each part allowed, as S3 and Ceph RGW accept them): type `id`
// (a canonical id), `emailAddress` (resolved through the resolver to a canonical id; S3 stores
// the user, not the address) or `uri` (a group); type names match case-insensitively and the
// value may be in double quotes. Group grants come before user grants (as ExpandCanned orders
// them); within each, in header order read, write, read-acp, write-acp, full-control and in list
// order within one header. The owner gets nothing it is not named for
// (S3 adds no implicit FULL_CONTROL when grants are given).
// Errors: kInvalidArgument for an empty list item, a missing '=', an unknown type, an empty or
// unterminated quoted value, an unknown group URI or an id the resolver does not know;
// kUnresolvableGrantByEmailAddress for an e-mail address no user has. *out is unchanged then.
AclStatus ParseGrantHeaders(const GrantHeaders& headers, std::string_view owner_id,
                            const GranteeResolver& resolver, AclRecord* out);

// What a writing request (CreateBucket, PutObject, CopyObject, CreateMultipartUpload, and
// PutBucketAcl/PutObjectAcl by headers) says about the new ACL.
struct AclRequestHeaders {
  std::optional<std::string_view> canned;  // x-amz-acl
  GrantHeaders grants;
};

// The ACL a request asks for: the canned ACL expanded, or the grant headers parsed; *has_acl is
// false (and *out unchanged) when the request names neither, so the caller keeps its default
// (private for a new resource). Both at once: kInvalidRequest ("Specifying both Canned ACLs and
// Header Grants is not allowed", as S3 answers); otherwise the errors of ParseCannedAcl and
// ParseGrantHeaders.
AclStatus AclFromRequest(const AclRequestHeaders& request, std::string_view owner_id,
                         std::string_view bucket_owner_id, bool for_bucket,
                         const GranteeResolver& resolver, AclRecord* out, bool* has_acl);

// ---- Evaluation ----

// Who asks. An anonymous caller has an empty id and authenticated false.
struct AclCaller {
  std::string_view canonical_id;
  bool authenticated = false;

  static AclCaller Anonymous() { return {}; }
  static AclCaller User(std::string_view id) { return {id, true}; }
};

// Whether `acl` gives `caller` the permission `needed`. A grant counts when its grantee is the
// caller's canonical id, the AllUsers group (anyone, anonymous included) or the
// AuthenticatedUsers group (any signed caller); the LogDelivery group is S3's log service, no
// cubby caller. FULL_CONTROL is READ, WRITE, READ_ACP and WRITE_ACP together, so it satisfies any
// need, and needing FULL_CONTROL is satisfied by the four together. The resource owner may always
// read and write the ACL (READ_ACP and WRITE_ACP without a grant, so an owner cannot lock itself
// out), but has no READ or WRITE beyond its grants. With `ignore_public_grants` (the bucket's
// IgnorePublicAcls) grants to AllUsers and AuthenticatedUsers do not count.
bool AclAllows(const AclRecord& acl, const AclCaller& caller, AclPermission needed,
               bool ignore_public_grants = false);

// ---- Which ACL permission each action needs (acl-overview.html#permissions) ----

// AclScope and AclRequirement are action.h's: its table holds each Action's requirement.

// The ACL permission an IAM action name ("s3:GetObject"; the names of Action, and every other
// s3: action S3's permission mapping table lists) needs:
//   bucket READ       s3:ListBucket, s3:ListBucketVersions, s3:ListBucketMultipartUploads
//   bucket WRITE      s3:PutObject (PutObject, CopyObject's target, the multipart writes),
//                     s3:DeleteObject, s3:DeleteObjectVersion
//   bucket READ_ACP   s3:GetBucketAcl
//   bucket WRITE_ACP  s3:PutBucketAcl
//   object READ       s3:GetObject, s3:GetObjectVersion, s3:GetObjectTorrent
//   object READ_ACP   s3:GetObjectAcl, s3:GetObjectVersionAcl
//   object WRITE_ACP  s3:PutObjectAcl, s3:PutObjectVersionAcl
//   initiator         s3:AbortMultipartUpload, s3:ListMultipartUploadParts
//   any bucket grant  cubby:AnyBucketAccess, cubby:Unimplemented
//   not grantable     everything else, unknown names included (the s3:*Tagging actions too:
//                     S3's table does not list them)
// Names are matched exactly (IAM action names are case-insensitive in policies; the policy
// parser normalizes them before asking).
AclRequirement AclRequirementFor(std::string_view action_name);
inline AclRequirement AclRequirementFor(Action action) { return Info(action).acl; }

// Whether the ACLs grant `requirement` to `caller`: kBucket asks `bucket_acl`, kObject
// `object_acl` (null: false; the object does not exist), kBucketAny any permission on
// `bucket_acl`; kInitiator and kNotGrantable are never granted by an ACL (the caller checks
// ownership and the initiator itself).
bool AclGrants(const AclRequirement& requirement, const AclRecord& bucket_acl,
               const AclRecord* object_acl, const AclCaller& caller,
               bool ignore_public_grants = false);

// ---- Object ownership (about-object-ownership.html) ----

// "ObjectWriter", "BucketOwnerPreferred", "BucketOwnerEnforced".
std::string_view ObjectOwnershipName(ObjectOwnership ownership);
// The x-amz-object-ownership header / <ObjectOwnership> value, exactly. Unknown:
// kInvalidArgument.
AclStatus ParseObjectOwnership(std::string_view value, ObjectOwnership* out);

// Whether a request that sets an ACL (PutObject, CopyObject, CreateMultipartUpload,
// PutObjectAcl, PutBucketAcl) may, given the bucket's ownership. Only BucketOwnerEnforced
// refuses: it accepts no ACL at all (canned nullopt and grants null), the
// bucket-owner-full-control canned ACL, or explicit grants (headers or XML) that are all
// FULL_CONTROL to the bucket owner's canonical id (at least one); anything else is
// kAccessControlListNotSupported ("The bucket does not allow ACLs").
AclStatus CheckAclAllowedByOwnership(ObjectOwnership ownership, std::optional<CannedAcl> canned,
                                     const std::vector<AclGrant>* grants,
                                     std::string_view bucket_owner_id);

// Whether a bucket ACL may stand with BucketOwnerEnforced: CreateBucket with the header and an
// ACL, and PutBucketOwnershipControls(BucketOwnerEnforced) on the stored ACL, ask this. It may
// when every grant is to the bucket owner's canonical id; otherwise
// kInvalidBucketAclWithObjectOwnership. Other ownerships: always OK.
AclStatus CheckBucketAclForOwnership(ObjectOwnership ownership, const AclRecord& bucket_acl);

// The ACL that counts for a bucket or object in a bucket with `ownership`. BucketOwnerEnforced
// disables ACLs: whatever is stored (an object may keep a public ACL from before the switch),
// GetBucketAcl/GetObjectAcl answer, and evaluation sees, the bucket owner's FULL_CONTROL alone,
// owned by the bucket owner. Any other ownership: `stored`.
AclRecord EffectiveAcl(ObjectOwnership ownership, const AclRecord& stored,
                       std::string_view bucket_owner_id);

// Who owns an object `writer_id` writes: the writer (ObjectWriter); the bucket owner
// (BucketOwnerEnforced); BucketOwnerPreferred: the bucket owner if the writer sent the
// bucket-owner-full-control canned ACL, else the writer. The new object's ACL is then expanded
// for that owner: ExpandCanned(canned, NewObjectOwner(...), bucket_owner_id, false) (so
// bucket-owner-full-control under BucketOwnerPreferred is the bucket owner's FULL_CONTROL), and
// EffectiveAcl under BucketOwnerEnforced.
std::string_view NewObjectOwner(ObjectOwnership ownership, std::string_view writer_id,
                                std::string_view bucket_owner_id, std::optional<CannedAcl> canned);

// ---- Block public access (access-control-block-public-access.html) ----

// An ACL is public when it grants any permission to AllUsers or AuthenticatedUsers
// ("The meaning of public": ACLs).
bool IsPublicAcl(const AclRecord& acl);

// BlockPublicAcls: PutBucketAcl, PutObjectAcl and PutObject (CopyObject, CreateMultipartUpload)
// calls fail when the ACL they set is public: kAccessDenied. Existing ACLs are not affected.
AclStatus CheckPublicAclAllowed(const PublicAccessBlock& block, const AclRecord& requested);

// IgnorePublicAcls: public grants on the bucket and its objects do not count; pass the result as
// AclAllows' / AclGrants' ignore_public_grants.
inline bool IgnorePublicGrants(const PublicAccessBlock& block) { return block.ignore_public_acls; }

// BlockPublicPolicy: PutBucketPolicy fails when the new policy is public (whether it is, the
// policy module decides): kAccessDenied.
AclStatus CheckPublicPolicyAllowed(const PublicAccessBlock& block, bool policy_is_public);

// RestrictPublicBuckets: while the bucket's policy is public, only the bucket owner's own users
// (and S3 itself) get access through it; anonymous and other users' access that the policy
// grants is refused. True when the evaluator must apply that restriction.
inline bool RestrictPublicBucketAccess(const PublicAccessBlock& block, bool policy_is_public) {
  return block.restrict_public_buckets && policy_is_public;
}

}  // namespace cubby::iam
