// The access-control facts storage keeps with buckets and objects: who owns them, their ACL,
// and a bucket's object-ownership and public-access-block settings. Plain values; what they
// mean (the canned ACLs, the permission table, policy evaluation) lives in iam/.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/acl-overview.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/about-object-ownership.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/access-control-block-public-access.html
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cubby::storage {

// An ACL permission. The numbers are stored: never renumber.
enum class AclPermission : uint8_t {
  kRead = 1,
  kWrite = 2,
  kReadAcp = 3,
  kWriteAcp = 4,
  kFullControl = 5,
};

// Whom a grant names. A grant by e-mail address is resolved to the user's canonical id when it
// is written (as S3 does), so only these two are stored. The numbers are stored.
enum class GranteeType : uint8_t {
  kCanonicalUser = 1,  // grantee: a user's canonical id (64 lowercase hex characters)
  kGroup = 2,          // grantee: a group URI, e.g. http://acs.amazonaws.com/groups/global/AllUsers
};

struct AclGrant {
  GranteeType type = GranteeType::kCanonicalUser;
  std::string grantee;
  AclPermission permission = AclPermission::kRead;
  bool operator==(const AclGrant&) const = default;
};

// An access control list: the owner (a canonical id) and its grants, in the order given.
struct AclRecord {
  std::string owner_id;
  std::vector<AclGrant> grants;
  bool operator==(const AclRecord&) const = default;
};

// A bucket's object-ownership setting (x-amz-object-ownership). The numbers are stored.
enum class ObjectOwnership : uint8_t {
  kObjectWriter = 0,  // ACLs enabled; the writer owns an object
  kBucketOwnerPreferred = 1,  // ACLs enabled; bucket-owner-full-control makes the bucket owner own it
  kBucketOwnerEnforced = 2,   // ACLs disabled; the bucket owner owns every object
};

// A bucket's public access block. `configured` false: none set (GetPublicAccessBlock answers
// NoSuchPublicAccessBlockConfiguration) and every flag is false.
struct PublicAccessBlock {
  bool configured = false;
  bool block_public_acls = false;
  bool ignore_public_acls = false;
  bool block_public_policy = false;
  bool restrict_public_buckets = false;
  bool operator==(const PublicAccessBlock&) const = default;
};

}  // namespace cubby::storage
