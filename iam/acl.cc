#include "iam/acl.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "text/ascii.h"
#include "text/names.h"

namespace cubby::iam {

namespace {

// Permissions as bits, so FULL_CONTROL is the union of the other four.
constexpr uint8_t kReadBit = 1;
constexpr uint8_t kWriteBit = 2;
constexpr uint8_t kReadAcpBit = 4;
constexpr uint8_t kWriteAcpBit = 8;
constexpr uint8_t kAllBits = kReadBit | kWriteBit | kReadAcpBit | kWriteAcpBit;

uint8_t Bits(AclPermission permission) {
  switch (permission) {
    case AclPermission::kRead:
      return kReadBit;
    case AclPermission::kWrite:
      return kWriteBit;
    case AclPermission::kReadAcp:
      return kReadAcpBit;
    case AclPermission::kWriteAcp:
      return kWriteAcpBit;
    case AclPermission::kFullControl:
      return kAllBits;
  }
  return 0;  // a stored value this release does not know grants nothing
}

AclGrant UserGrant(std::string_view id, AclPermission permission) {
  return {GranteeType::kCanonicalUser, std::string(id), permission};
}

AclGrant GroupGrant(std::string_view uri, AclPermission permission) {
  return {GranteeType::kGroup, std::string(uri), permission};
}

bool IsPublicGroup(std::string_view uri) {
  return uri == kAllUsersGroup || uri == kAuthenticatedUsersGroup;
}

AclStatus InvalidArgument(std::string message) {
  return {AclError::kInvalidArgument, std::move(message)};
}

// One `type=value` item of a grant header, resolved to a grant of `permission`.
AclStatus ParseGrantee(std::string_view item, AclPermission permission,
                       const GranteeResolver& resolver, AclGrant* out) {
  const size_t eq = item.find('=');
  if (eq == std::string_view::npos) {
    return InvalidArgument("Argument format not recognized");
  }
  const std::string_view type = text::TrimOws(item.substr(0, eq));
  std::string_view value = text::TrimOws(item.substr(eq + 1));
  if (value.starts_with('"')) {
    if (value.size() < 2 || !value.ends_with('"')) {
      return InvalidArgument("Argument format not recognized");
    }
    value = value.substr(1, value.size() - 2);
  }
  if (value.empty()) return InvalidArgument("Argument format not recognized");
  if (text::EqualsIgnoreCase(type, "id")) {
    if (resolver.id_exists && !resolver.id_exists(value)) return InvalidArgument("Invalid id");
    *out = UserGrant(value, permission);
    return {};
  }
  if (text::EqualsIgnoreCase(type, "emailAddress")) {
    std::optional<std::string> id;
    if (resolver.id_by_email) id = resolver.id_by_email(value);
    if (!id) {
      return {AclError::kUnresolvableGrantByEmailAddress,
              "The email address you provided does not match any account on record."};
    }
    *out = UserGrant(*id, permission);
    return {};
  }
  if (text::EqualsIgnoreCase(type, "uri")) {
    if (!IsKnownGroup(value)) return InvalidArgument("Invalid group uri");
    *out = GroupGrant(value, permission);
    return {};
  }
  return InvalidArgument("Argument format not recognized");
}

}  // namespace

bool IsKnownGroup(std::string_view uri) {
  return uri == kAllUsersGroup || uri == kAuthenticatedUsersGroup || uri == kLogDeliveryGroup;
}

constexpr text::Named<AclPermission> kPermissions[] = {
    {AclPermission::kRead, "READ"},
    {AclPermission::kWrite, "WRITE"},
    {AclPermission::kReadAcp, "READ_ACP"},
    {AclPermission::kWriteAcp, "WRITE_ACP"},
    {AclPermission::kFullControl, "FULL_CONTROL"},
};

std::string_view PermissionName(AclPermission permission) {
  return text::NameOf(kPermissions, permission);
}

bool ParsePermission(std::string_view name, AclPermission* out) {
  std::optional<AclPermission> permission = text::ValueNamed(kPermissions, name);
  if (permission) *out = *permission;
  return permission.has_value();
}

// ---- Canned ACLs ----

constexpr text::Named<CannedAcl> kCannedAcls[] = {
    {CannedAcl::kPrivate, "private"},
    {CannedAcl::kPublicRead, "public-read"},
    {CannedAcl::kPublicReadWrite, "public-read-write"},
    {CannedAcl::kAuthenticatedRead, "authenticated-read"},
    {CannedAcl::kAwsExecRead, "aws-exec-read"},
    {CannedAcl::kBucketOwnerRead, "bucket-owner-read"},
    {CannedAcl::kBucketOwnerFullControl, "bucket-owner-full-control"},
    {CannedAcl::kLogDeliveryWrite, "log-delivery-write"},
};

std::string_view CannedAclName(CannedAcl acl) { return text::NameOf(kCannedAcls, acl); }

AclStatus ParseCannedAcl(std::string_view value, CannedAcl* out) {
  std::optional<CannedAcl> acl = text::ValueNamed(kCannedAcls, value);
  if (!acl) return InvalidArgument("'" + std::string(value) + "' is not a canned ACL.");
  *out = *acl;
  return {};
}

AclRecord ExpandCanned(CannedAcl acl, std::string_view owner_id, std::string_view bucket_owner_id,
                       bool for_bucket) {
  AclRecord record;
  record.owner_id = owner_id;
  const bool separate_bucket_owner = !for_bucket && bucket_owner_id != owner_id;
  // The group grants come first, the users' after (see the header); the owner's FULL_CONTROL is
  // inserted before the first user grant below.
  switch (acl) {
    case CannedAcl::kPrivate:
    case CannedAcl::kAwsExecRead:
      break;
    case CannedAcl::kPublicRead:
      record.grants.push_back(GroupGrant(kAllUsersGroup, AclPermission::kRead));
      break;
    case CannedAcl::kPublicReadWrite:
      record.grants.push_back(GroupGrant(kAllUsersGroup, AclPermission::kRead));
      record.grants.push_back(GroupGrant(kAllUsersGroup, AclPermission::kWrite));
      break;
    case CannedAcl::kAuthenticatedRead:
      record.grants.push_back(GroupGrant(kAuthenticatedUsersGroup, AclPermission::kRead));
      break;
    case CannedAcl::kBucketOwnerRead:
      if (separate_bucket_owner) {
        record.grants.push_back(UserGrant(bucket_owner_id, AclPermission::kRead));
      }
      break;
    case CannedAcl::kBucketOwnerFullControl:
      if (separate_bucket_owner) {
        record.grants.push_back(UserGrant(bucket_owner_id, AclPermission::kFullControl));
      }
      break;
    case CannedAcl::kLogDeliveryWrite:
      record.grants.push_back(GroupGrant(kLogDeliveryGroup, AclPermission::kWrite));
      record.grants.push_back(GroupGrant(kLogDeliveryGroup, AclPermission::kReadAcp));
      break;
  }
  const auto first_user =
      std::find_if(record.grants.begin(), record.grants.end(),
                   [](const AclGrant& g) { return g.type != GranteeType::kGroup; });
  record.grants.insert(first_user, UserGrant(owner_id, AclPermission::kFullControl));
  return record;
}

// ---- Grant headers ----

AclStatus ParseGrantHeaders(const GrantHeaders& headers, std::string_view owner_id,
                            const GranteeResolver& resolver, AclRecord* out) {
  AclRecord record;
  record.owner_id = owner_id;
  const std::pair<const std::optional<std::string_view>*, AclPermission> kHeaders[] = {
      {&headers.read, AclPermission::kRead},
      {&headers.write, AclPermission::kWrite},
      {&headers.read_acp, AclPermission::kReadAcp},
      {&headers.write_acp, AclPermission::kWriteAcp},
      {&headers.full_control, AclPermission::kFullControl},
  };
  for (const auto& [header, permission] : kHeaders) {
    if (!header->has_value()) continue;
    std::string_view rest = **header;
    // Comma-separated; a quoted value holds no comma (ids, e-mail addresses and group URIs
    // cannot), so a plain split is exact.
    while (true) {
      const size_t comma = rest.find(',');
      const std::string_view item = text::TrimOws(rest.substr(0, comma));
      if (item.empty()) return InvalidArgument("Argument format not recognized");
      AclGrant grant;
      if (AclStatus s = ParseGrantee(item, permission, resolver, &grant); !s.ok()) return s;
      record.grants.push_back(std::move(grant));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  std::stable_partition(record.grants.begin(), record.grants.end(),
                        [](const AclGrant& g) { return g.type == GranteeType::kGroup; });
  *out = std::move(record);
  return {};
}

AclStatus AclFromRequest(const AclRequestHeaders& request, std::string_view owner_id,
                         std::string_view bucket_owner_id, bool for_bucket,
                         const GranteeResolver& resolver, AclRecord* out, bool* has_acl) {
  *has_acl = false;
  if (request.canned && request.grants.any()) {
    return {AclError::kInvalidRequest,
            "Specifying both Canned ACLs and Header Grants is not allowed"};
  }
  if (request.canned) {
    CannedAcl canned;
    if (AclStatus s = ParseCannedAcl(*request.canned, &canned); !s.ok()) return s;
    *out = ExpandCanned(canned, owner_id, bucket_owner_id, for_bucket);
    *has_acl = true;
    return {};
  }
  if (request.grants.any()) {
    if (AclStatus s = ParseGrantHeaders(request.grants, owner_id, resolver, out); !s.ok()) {
      return s;
    }
    *has_acl = true;
  }
  return {};
}

// ---- Evaluation ----

namespace {

// The permission bits `acl` gives `caller` (owner's implicit ACP bits included).
uint8_t GrantedBits(const AclRecord& acl, const AclCaller& caller, bool ignore_public_grants) {
  uint8_t bits = 0;
  const bool named = !caller.canonical_id.empty();
  // The owner may always read and write the ACL, as S3 (and Ceph RGW) let it.
  if (named && caller.canonical_id == acl.owner_id) bits |= kReadAcpBit | kWriteAcpBit;
  for (const AclGrant& grant : acl.grants) {
    bool matches = false;
    switch (grant.type) {
      case GranteeType::kCanonicalUser:
        matches = named && grant.grantee == caller.canonical_id;
        break;
      case GranteeType::kGroup:
        if (grant.grantee == kAllUsersGroup) {
          matches = !ignore_public_grants;
        } else if (grant.grantee == kAuthenticatedUsersGroup) {
          matches = !ignore_public_grants && caller.authenticated;
        }
        break;
    }
    if (matches) bits |= Bits(grant.permission);
  }
  return bits;
}

}  // namespace

bool AclAllows(const AclRecord& acl, const AclCaller& caller, AclPermission needed,
               bool ignore_public_grants) {
  const uint8_t need = Bits(needed);
  return need != 0 && (GrantedBits(acl, caller, ignore_public_grants) & need) == need;
}

// ---- The permission table ----

AclRequirement AclRequirementFor(std::string_view action_name) {
  // S3's permission mapping lists one action cubby has no Action for.
  if (action_name == "s3:GetObjectTorrent") return {AclScope::kObject, AclPermission::kRead};
  for (size_t i = 0; i < static_cast<size_t>(Action::kCount); ++i) {
    const ActionInfo& info = Info(static_cast<Action>(i));
    if (info.name == action_name) return info.acl;
  }
  return {};
}

bool AclGrants(const AclRequirement& requirement, const AclRecord& bucket_acl,
               const AclRecord* object_acl, const AclCaller& caller, bool ignore_public_grants) {
  switch (requirement.scope) {
    case AclScope::kBucket:
      return AclAllows(bucket_acl, caller, requirement.permission, ignore_public_grants);
    case AclScope::kObject:
      return object_acl != nullptr &&
             AclAllows(*object_acl, caller, requirement.permission, ignore_public_grants);
    case AclScope::kBucketAny:
      return GrantedBits(bucket_acl, caller, ignore_public_grants) != 0;
    case AclScope::kInitiator:
    case AclScope::kNotGrantable:
      return false;
  }
  return false;
}

// ---- Object ownership ----

constexpr text::Named<ObjectOwnership> kOwnerships[] = {
    {ObjectOwnership::kObjectWriter, "ObjectWriter"},
    {ObjectOwnership::kBucketOwnerPreferred, "BucketOwnerPreferred"},
    {ObjectOwnership::kBucketOwnerEnforced, "BucketOwnerEnforced"},
};

std::string_view ObjectOwnershipName(ObjectOwnership ownership) {
  return text::NameOf(kOwnerships, ownership);
}

AclStatus ParseObjectOwnership(std::string_view value, ObjectOwnership* out) {
  std::optional<ObjectOwnership> ownership = text::ValueNamed(kOwnerships, value);
  if (!ownership) {
    return InvalidArgument("Invalid x-amz-object-ownership header: " + std::string(value));
  }
  *out = *ownership;
  return {};
}

AclStatus CheckAclAllowedByOwnership(ObjectOwnership ownership, std::optional<CannedAcl> canned,
                                     const std::vector<AclGrant>* grants,
                                     std::string_view bucket_owner_id) {
  if (ownership != ObjectOwnership::kBucketOwnerEnforced) return {};
  const AclStatus refused{AclError::kAccessControlListNotSupported,
                          "The bucket does not allow ACLs"};
  if (canned) return *canned == CannedAcl::kBucketOwnerFullControl ? AclStatus{} : refused;
  if (grants == nullptr) return {};
  if (grants->empty()) return refused;
  for (const AclGrant& g : *grants) {
    if (g.type != GranteeType::kCanonicalUser || g.grantee != bucket_owner_id ||
        g.permission != AclPermission::kFullControl) {
      return refused;
    }
  }
  return {};
}

AclStatus CheckBucketAclForOwnership(ObjectOwnership ownership, const AclRecord& bucket_acl) {
  if (ownership != ObjectOwnership::kBucketOwnerEnforced) return {};
  for (const AclGrant& g : bucket_acl.grants) {
    if (g.type != GranteeType::kCanonicalUser || g.grantee != bucket_acl.owner_id) {
      return {AclError::kInvalidBucketAclWithObjectOwnership,
              "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting"};
    }
  }
  return {};
}

AclRecord EffectiveAcl(ObjectOwnership ownership, const AclRecord& stored,
                       std::string_view bucket_owner_id) {
  if (ownership != ObjectOwnership::kBucketOwnerEnforced) return stored;
  return {std::string(bucket_owner_id), {UserGrant(bucket_owner_id, AclPermission::kFullControl)}};
}

std::string_view NewObjectOwner(ObjectOwnership ownership, std::string_view writer_id,
                                std::string_view bucket_owner_id, std::optional<CannedAcl> canned) {
  switch (ownership) {
    case ObjectOwnership::kObjectWriter:
      return writer_id;
    case ObjectOwnership::kBucketOwnerPreferred:
      return canned == CannedAcl::kBucketOwnerFullControl ? bucket_owner_id : writer_id;
    case ObjectOwnership::kBucketOwnerEnforced:
      return bucket_owner_id;
  }
  return writer_id;
}

// ---- Block public access ----

bool IsPublicAcl(const AclRecord& acl) {
  for (const AclGrant& g : acl.grants) {
    if (g.type == GranteeType::kGroup && IsPublicGroup(g.grantee)) return true;
  }
  return false;
}

AclStatus CheckPublicAclAllowed(const PublicAccessBlock& block, const AclRecord& requested) {
  if (block.block_public_acls && IsPublicAcl(requested)) {
    return {AclError::kAccessDenied, "Access Denied"};
  }
  return {};
}

AclStatus CheckPublicPolicyAllowed(const PublicAccessBlock& block, bool policy_is_public) {
  if (block.block_public_policy && policy_is_public) {
    return {AclError::kAccessDenied, "Access Denied"};
  }
  return {};
}

}  // namespace cubby::iam
