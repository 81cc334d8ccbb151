// The S3 XML of access control, as pure functions: AccessControlPolicy (Get/PutBucketAcl,
// Get/PutObjectAcl), OwnershipControls (Get/PutBucketOwnershipControls) and
// PublicAccessBlockConfiguration (Get/PutPublicAccessBlock), each rendered and parsed, plus the
// one mapping of iam::AclError to the S3 error table. What the values mean is iam/acl.h's.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketAcl.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketAcl.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketOwnershipControls.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutPublicAccessBlock.html
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "iam/acl.h"
#include "s3api/errors.h"
#include "storage/access_records.h"

namespace cubby::s3api {

inline constexpr std::string_view kXmlSchemaInstanceNamespace =
    "http://www.w3.org/2001/XMLSchema-instance";

// A failed parse: the S3 error and the message its document carries (empty: the table's).
struct [[nodiscard]] XmlBodyError {
  ErrorCode code = ErrorCode::kNone;
  std::string message;

  bool ok() const { return code == ErrorCode::kNone; }
};

// iam's ACL errors in the S3 table: each AclError to the code of the same name (kOk → kNone).
ErrorCode FromAclError(iam::AclError error);
// The same for a status, message included.
XmlBodyError FromAclStatus(const iam::AclStatus& status);

// ---- AccessControlPolicy ----

// A user's display name by canonical id; nullopt leaves DisplayName out (as S3 does where it
// has none).
using DisplayNameLookup = std::function<std::optional<std::string>(std::string_view id)>;

// GetBucketAcl's / GetObjectAcl's body:
//   <AccessControlPolicy xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
//     <Owner><ID/><DisplayName/></Owner>
//     <AccessControlList>
//       <Grant><Grantee xmlns:xsi="..." xsi:type="CanonicalUser"><ID/><DisplayName/></Grantee>
//              <Permission>FULL_CONTROL</Permission></Grant>
//       <Grant><Grantee xmlns:xsi="..." xsi:type="Group"><URI/></Grantee>...</Grant>
//     </AccessControlList>
//   </AccessControlPolicy>
// Grants in the record's order; `display_name` may be empty (no DisplayName anywhere).
std::string AccessControlPolicyXml(const storage::AclRecord& acl,
                                   const DisplayNameLookup& display_name);

// A PutBucketAcl / PutObjectAcl body into the ACL to store, for a resource owned by
// `resource_owner_id`. Grantees: xsi:type CanonicalUser with ID, AmazonCustomerByEmail with
// EmailAddress (resolved to the user's canonical id and stored as CanonicalUser), Group with URI;
// DisplayName is accepted and ignored. Errors (*out unchanged):
//  - kMalformedACLError: not well-formed XML, a root other than AccessControlPolicy, no Owner/ID
//    or AccessControlList, an element the schema does not have, a Grant without exactly one
//    Grantee and Permission, a Grantee without xsi:type or with an unknown one, or without its
//    type's element, a Permission other than READ, WRITE, READ_ACP, WRITE_ACP, FULL_CONTROL;
//  - kAccessDenied: Owner/ID is not the resource's owner (an ACL cannot give a resource away);
//  - kInvalidArgument: an unknown group URI ("Invalid group uri") or an ID the resolver does not
//    know ("Invalid id");
//  - kUnresolvableGrantByEmailAddress: an e-mail address no user has.
XmlBodyError ParseAccessControlPolicy(std::string_view body, std::string_view resource_owner_id,
                                      const iam::GranteeResolver& resolver,
                                      storage::AclRecord* out);

// ---- OwnershipControls ----

// <OwnershipControls xmlns="..."><Rule><ObjectOwnership>…</ObjectOwnership></Rule>
// </OwnershipControls>
std::string OwnershipControlsXml(storage::ObjectOwnership ownership);

// PutBucketOwnershipControls' body: exactly one Rule with one ObjectOwnership naming one of the
// three settings. Anything else is kMalformedXML (*out unchanged).
XmlBodyError ParseOwnershipControls(std::string_view body, storage::ObjectOwnership* out);

// ---- PublicAccessBlockConfiguration ----

// <PublicAccessBlockConfiguration xmlns="..."> with all four flags as true/false.
std::string PublicAccessBlockXml(const storage::PublicAccessBlock& block);

// PutPublicAccessBlock's body: any of BlockPublicAcls, IgnorePublicAcls, BlockPublicPolicy,
// RestrictPublicBuckets, each at most once, as an xs:boolean ("true", "false", "1", "0",
// surrounding whitespace allowed); an absent one is false. The result has configured = true.
// Anything else is kMalformedXML (*out unchanged).
XmlBodyError ParsePublicAccessBlock(std::string_view body, storage::PublicAccessBlock* out);

}  // namespace cubby::s3api
