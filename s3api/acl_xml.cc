#include "s3api/acl_xml.h"

#include <array>
#include <optional>
#include <vector>

#include "s3api/xml.h"
#include "text/ascii.h"

namespace cubby::s3api {

ErrorCode FromAclError(iam::AclError error) {
  switch (error) {
    case iam::AclError::kOk:
      return ErrorCode::kNone;
    case iam::AclError::kInvalidArgument:
      return ErrorCode::kInvalidArgument;
    case iam::AclError::kInvalidRequest:
      return ErrorCode::kInvalidRequest;
    case iam::AclError::kUnresolvableGrantByEmailAddress:
      return ErrorCode::kUnresolvableGrantByEmailAddress;
    case iam::AclError::kAccessControlListNotSupported:
      return ErrorCode::kAccessControlListNotSupported;
    case iam::AclError::kInvalidBucketAclWithObjectOwnership:
      return ErrorCode::kInvalidBucketAclWithObjectOwnership;
    case iam::AclError::kAccessDenied:
      return ErrorCode::kAccessDenied;
  }
  return ErrorCode::kInternalError;
}

XmlBodyError FromAclStatus(const iam::AclStatus& status) {
  return {FromAclError(status.code()), status.message()};
}

namespace {

using text::TrimXmlSpace;

constexpr std::string_view kCanonicalUser = "CanonicalUser";
constexpr std::string_view kAmazonCustomerByEmail = "AmazonCustomerByEmail";
constexpr std::string_view kGroup = "Group";

XmlBodyError MalformedAcl() { return {ErrorCode::kMalformedACLError, {}}; }
XmlBodyError MalformedXml() { return {ErrorCode::kMalformedXML, {}}; }

// A <Grantee> as the schema has it: its xsi:type and the value of that type's element.
struct GranteeShape {
  std::string_view type;   // kCanonicalUser, kAmazonCustomerByEmail or kGroup
  std::string_view value;  // the ID, EmailAddress or URI, trimmed, not empty
};

// False when `grantee` does not validate: an unknown child, no xsi:type or an unknown one, no
// (or an empty) element for its type.
bool ShapeOf(const XmlNode& grantee, GranteeShape* out) {
  if (!ChildrenAmong(grantee, {"ID", "DisplayName", "EmailAddress", "URI"})) return false;
  const std::string* type = grantee.Attribute(kXmlSchemaInstanceNamespace, "type");
  if (type == nullptr) return false;
  std::string_view element;
  if (*type == kCanonicalUser) {
    out->type = kCanonicalUser;
    element = "ID";
  } else if (*type == kAmazonCustomerByEmail) {
    out->type = kAmazonCustomerByEmail;
    element = "EmailAddress";
  } else if (*type == kGroup) {
    out->type = kGroup;
    element = "URI";
  } else {
    return false;
  }
  const XmlNode* n = grantee.Child(element);
  if (n == nullptr) return false;
  out->value = TrimXmlSpace(n->text);
  return !out->value.empty();
}

// A validated grantee into `grant->type` and `grant->grantee`: ids checked, e-mail addresses
// resolved to canonical ids, group URIs checked.
XmlBodyError ResolveGrantee(const GranteeShape& shape, const iam::GranteeResolver& resolver,
                            storage::AclGrant* grant) {
  if (shape.type == kCanonicalUser) {
    if (resolver.id_exists && !resolver.id_exists(shape.value)) {
      return {ErrorCode::kInvalidArgument, "Invalid id"};
    }
    grant->type = storage::GranteeType::kCanonicalUser;
    grant->grantee = shape.value;
    return {};
  }
  if (shape.type == kAmazonCustomerByEmail) {
    std::optional<std::string> id;
    if (resolver.id_by_email) id = resolver.id_by_email(shape.value);
    if (!id) return {ErrorCode::kUnresolvableGrantByEmailAddress, {}};
    grant->type = storage::GranteeType::kCanonicalUser;
    grant->grantee = std::move(*id);
    return {};
  }
  if (!iam::IsKnownGroup(shape.value)) return {ErrorCode::kInvalidArgument, "Invalid group uri"};
  grant->type = storage::GranteeType::kGroup;
  grant->grantee = shape.value;
  return {};
}

// XML Schema's boolean lexical forms (https://www.w3.org/TR/xmlschema-2/#boolean).
bool ParseXsBoolean(std::string_view text, bool* out) {
  const std::string_view v = TrimXmlSpace(text);
  if (v == "true" || v == "1") {
    *out = true;
  } else if (v == "false" || v == "0") {
    *out = false;
  } else {
    return false;
  }
  return true;
}

}  // namespace

// ---- AccessControlPolicy ----

std::string AccessControlPolicyXml(const storage::AclRecord& acl,
                                   const DisplayNameLookup& display_name) {
  auto write_user = [&display_name](XmlWriter& w, std::string_view id) {
    w.Element("ID", id);
    if (!display_name) return;
    if (std::optional<std::string> name = display_name(id)) w.Element("DisplayName", *name);
  };
  XmlWriter w;
  w.Open("AccessControlPolicy", kS3Namespace);
  w.Open("Owner");
  write_user(w, acl.owner_id);
  w.Close();
  w.Open("AccessControlList");
  for (const storage::AclGrant& grant : acl.grants) {
    w.Open("Grant");
    const bool group = grant.type == storage::GranteeType::kGroup;
    w.OpenWithAttributes("Grantee", {{"xmlns:xsi", std::string(kXmlSchemaInstanceNamespace)},
                                     {"xsi:type", std::string(group ? kGroup : kCanonicalUser)}});
    if (group) {
      w.Element("URI", grant.grantee);
    } else {
      write_user(w, grant.grantee);
    }
    w.Close();
    w.Element("Permission", iam::PermissionName(grant.permission));
    w.Close();
  }
  w.Close();
  return std::move(w).Finish();
}

XmlBodyError ParseAccessControlPolicy(std::string_view body, std::string_view resource_owner_id,
                                      const iam::GranteeResolver& resolver,
                                      storage::AclRecord* out) {
  XmlNode root;
  if (!ParseXml(body, &root) || root.name != "AccessControlPolicy" ||
      !ChildrenAmong(root, {"Owner", "AccessControlList"})) {
    return MalformedAcl();
  }
  const XmlNode* owner = root.Child("Owner");
  const XmlNode* list = root.Child("AccessControlList");
  if (owner == nullptr || list == nullptr || !ChildrenAmong(*owner, {"ID", "DisplayName"}) ||
      owner->Child("ID") == nullptr) {
    return MalformedAcl();
  }
  // The whole structure first, so a document that does not validate is MalformedACLError
  // whoever it names; then the owner; then the grantees.
  std::vector<std::pair<storage::AclPermission, GranteeShape>> grants;
  for (const XmlNode& grant : list->children) {
    auto& [permission, shape] = grants.emplace_back();
    if (grant.name != "Grant" || !ChildrenAmong(grant, {"Grantee", "Permission"}) ||
        grant.Child("Grantee") == nullptr || grant.Child("Permission") == nullptr ||
        !iam::ParsePermission(TrimXmlSpace(grant.Child("Permission")->text), &permission) ||
        !ShapeOf(*grant.Child("Grantee"), &shape)) {
      return MalformedAcl();
    }
  }
  storage::AclRecord record;
  record.owner_id = TrimXmlSpace(owner->Child("ID")->text);
  if (record.owner_id != resource_owner_id) return {ErrorCode::kAccessDenied, {}};
  for (const auto& [permission, shape] : grants) {
    storage::AclGrant& g = record.grants.emplace_back();
    g.permission = permission;
    if (XmlBodyError e = ResolveGrantee(shape, resolver, &g); !e.ok()) return e;
  }
  *out = std::move(record);
  return {};
}

// ---- OwnershipControls ----

std::string OwnershipControlsXml(storage::ObjectOwnership ownership) {
  XmlWriter w;
  w.Open("OwnershipControls", kS3Namespace);
  w.Open("Rule");
  w.Element("ObjectOwnership", iam::ObjectOwnershipName(ownership));
  return std::move(w).Finish();
}

XmlBodyError ParseOwnershipControls(std::string_view body, storage::ObjectOwnership* out) {
  XmlNode root;
  if (!ParseXml(body, &root) || root.name != "OwnershipControls" ||
      !ChildrenAmong(root, {"Rule"}) || root.Child("Rule") == nullptr) {
    return MalformedXml();
  }
  const XmlNode& rule = *root.Child("Rule");
  if (!ChildrenAmong(rule, {"ObjectOwnership"}) || rule.Child("ObjectOwnership") == nullptr) {
    return MalformedXml();
  }
  storage::ObjectOwnership ownership;
  if (!iam::ParseObjectOwnership(TrimXmlSpace(rule.Child("ObjectOwnership")->text), &ownership)
           .ok()) {
    return MalformedXml();
  }
  *out = ownership;
  return {};
}

// ---- PublicAccessBlockConfiguration ----

namespace {

constexpr std::array<std::pair<std::string_view, bool storage::PublicAccessBlock::*>, 4>
    kPublicAccessBlockFlags = {{
        {"BlockPublicAcls", &storage::PublicAccessBlock::block_public_acls},
        {"IgnorePublicAcls", &storage::PublicAccessBlock::ignore_public_acls},
        {"BlockPublicPolicy", &storage::PublicAccessBlock::block_public_policy},
        {"RestrictPublicBuckets", &storage::PublicAccessBlock::restrict_public_buckets},
    }};

}  // namespace

std::string PublicAccessBlockXml(const storage::PublicAccessBlock& block) {
  XmlWriter w;
  w.Open("PublicAccessBlockConfiguration", kS3Namespace);
  for (const auto& [name, member] : kPublicAccessBlockFlags) {
    w.Element(name, block.*member ? "true" : "false");
  }
  return std::move(w).Finish();
}

XmlBodyError ParsePublicAccessBlock(std::string_view body, storage::PublicAccessBlock* out) {
  XmlNode root;
  if (!ParseXml(body, &root) || root.name != "PublicAccessBlockConfiguration" ||
      !ChildrenAmong(root, {"BlockPublicAcls", "IgnorePublicAcls", "BlockPublicPolicy",
                            "RestrictPublicBuckets"})) {
    return MalformedXml();
  }
  storage::PublicAccessBlock block;
  block.configured = true;
  for (const auto& [name, member] : kPublicAccessBlockFlags) {
    const XmlNode* flag = root.Child(name);
    if (flag != nullptr && !ParseXsBoolean(flag->text, &(block.*member))) return MalformedXml();
  }
  *out = block;
  return {};
}

}  // namespace cubby::s3api
