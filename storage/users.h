// The rules IAM sets for users, access keys, tags and inline policies, in one place for every
// way a user is made (the IAM API, the users file, the COSI driver, the format-2 migration), and
// the values storage derives from a user (ARN, the default bucket ACL).
//   https://docs.aws.amazon.com/IAM/latest/APIReference/API_CreateUser.html
//   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/records.h"
#include "storage/status.h"

namespace cubby::storage {

// The administrator: owns the root key and every bucket that existed before users did.
inline constexpr std::string_view kRootUserName = "root";
// Settings (Store::GetSetting): the root access key's id (written by server/root_credentials.cc)
// and the data folder's 12-digit account id (written once, by the format-2 migration or by the
// first open of a new folder).
inline constexpr std::string_view kRootKeySetting = "root_access_key_id";
inline constexpr std::string_view kAccountIdSetting("\0account-id", 11);

// IAM's quotas: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html
inline constexpr size_t kMaxAccessKeysPerUser = 2;
inline constexpr size_t kMaxTagsPerUser = 50;
// "Aggregate inline policy size" of a user: characters other than white space.
inline constexpr size_t kMaxUserPolicyChars = 2048;
// One policy document (PutUserPolicy's PolicyDocument: 1-131072 characters).
inline constexpr size_t kMaxPolicyDocumentBytes = 131072;

// ACL group URIs (https://docs.aws.amazon.com/AmazonS3/latest/userguide/acl-overview.html).
inline constexpr std::string_view kAllUsersGroup =
    "http://acs.amazonaws.com/groups/global/AllUsers";
inline constexpr std::string_view kAuthenticatedUsersGroup =
    "http://acs.amazonaws.com/groups/global/AuthenticatedUsers";

// OK or kInvalidArgument naming the rule broken. User names: 1-64 characters of
// [A-Za-z0-9_+=,.@-] (IAM's pattern [\w+=,.@-]+).
Status ValidateUserName(std::string_view name);

// The user name of a COSI grant whose own name cannot name a user (longer than 64 characters,
// other characters) or is taken: "cosi-grant-" and the first 32 hex digits of the SHA-256 of
// `grant_name`. Deterministic, so the grant is found again by name; always a valid user name.
std::string GrantUserName(std::string_view grant_name);
// Inline policy names: 1-128 characters of the same set.
Status ValidatePolicyName(std::string_view name);
// Tag keys: 1-128 characters, values 0-256, of letters, digits, white space and _.:/=+-@
// (IAM's [\p{L}\p{Z}\p{N}_.:/=+\-@]*; non-ASCII characters are accepted when valid UTF-8);
// keys may not start with "aws:" (reserved by AWS, in any case).
Status ValidateTag(std::string_view key, std::string_view value);
// E-mail addresses: 3-128 bytes, one '@' with something on each side, no white space or control
// characters.
Status ValidateEmail(std::string_view email);

// The key under which names and e-mail addresses are unique: ASCII lowercase (IAM compares
// user names case-insensitively).
std::string FoldName(std::string_view name);

// True for 64 lowercase hex characters.
bool IsCanonicalId(std::string_view id);

// An access key id a caller may choose (IAM's accessKeyIdType): 16-128 characters of
// [A-Za-z0-9_].
bool IsValidAccessKeyId(std::string_view id);
// A secret a caller may choose: 1-128 printable ASCII characters other than space.
bool IsValidSecretKey(std::string_view secret);

// arn:aws:iam::<account_id>:user<path><name>, e.g. arn:aws:iam::123456789012:user/alice.
std::string UserArn(std::string_view account_id, const UserRecord& user);

// The characters of `document` other than white space (IAM's measure of policy size).
size_t PolicyChars(std::string_view document);

// A bucket's ACL as it follows from its owner and its anonymous mode: AllUsers READ when
// `anonymous` is readable, AllUsers WRITE when writable, then the owner FULL_CONTROL (the order
// of the canned ACLs public-read and public-read-write; the COSI anonymousBucketAccessMode and
// the format-2 migration of earlier buckets).
AclRecord BucketAclFor(std::string_view owner_id, AccessMode anonymous);

}  // namespace cubby::storage
