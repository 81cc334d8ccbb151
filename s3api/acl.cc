// ACLs, reduced to what cubby stores: one owner with FULL_CONTROL, and the bucket's anonymous
// mode expressed as AllUsers READ / WRITE grants.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketAcl.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/acl-overview.html#canned-acl
#include <string>

#include "s3api/handlers.h"
#include "s3api/xml.h"

namespace cubby::s3api {

namespace {

constexpr std::string_view kXsiNamespace = "http://www.w3.org/2001/XMLSchema-instance";
constexpr std::string_view kAllUsers = "http://acs.amazonaws.com/groups/global/AllUsers";

void Grant(XmlWriter& w, std::string_view type, std::string_view permission) {
  w.Open("Grant");
  w.OpenWithAttributes("Grantee", {{"xmlns:xsi", std::string(kXsiNamespace)},
                                   {"xsi:type", std::string(type)}});
  if (type == "Group") {
    w.Element("URI", kAllUsers);
  } else {
    w.Element("ID", kOwnerId);
    w.Element("DisplayName", kOwnerDisplayName);
  }
  w.Close();
  w.Element("Permission", permission);
  w.Close();
}

std::string AclXml(storage::AccessMode anonymous) {
  XmlWriter w;
  w.Open("AccessControlPolicy", kS3Namespace);
  w.Open("Owner");
  w.Element("ID", kOwnerId);
  w.Element("DisplayName", kOwnerDisplayName);
  w.Close();
  w.Open("AccessControlList");
  Grant(w, "CanonicalUser", "FULL_CONTROL");
  if (storage::CanRead(anonymous)) Grant(w, "Group", "READ");
  if (storage::CanWrite(anonymous)) Grant(w, "Group", "WRITE");
  w.Close();
  return std::move(w).Finish();
}

// The anonymous mode an AccessControlPolicy document asks for. kMalformedXML when it is not
// one; kNotImplemented when it grants to anyone but the owner and AllUsers.
ErrorCode ModeFromAclXml(std::string_view body, storage::AccessMode* mode) {
  XmlNode root;
  if (!ParseXml(body, &root) || root.name != "AccessControlPolicy") {
    return ErrorCode::kMalformedXML;
  }
  const XmlNode* list = root.Child("AccessControlList");
  if (list == nullptr) return ErrorCode::kMalformedXML;
  uint8_t bits = 0;
  for (const XmlNode& grant : list->children) {
    if (grant.name != "Grant") return ErrorCode::kMalformedXML;
    const XmlNode* grantee = grant.Child("Grantee");
    const XmlNode* permission = grant.Child("Permission");
    if (grantee == nullptr || permission == nullptr) return ErrorCode::kMalformedXML;
    const XmlNode* uri = grantee->Child("URI");
    const XmlNode* id = grantee->Child("ID");
    if (uri != nullptr && uri->text == kAllUsers) {
      if (permission->text == "READ") {
        bits |= 1;
      } else if (permission->text == "WRITE") {
        bits |= 2;
      } else if (permission->text == "FULL_CONTROL") {
        bits |= 3;
      } else {
        return ErrorCode::kNotImplemented;
      }
    } else if (id == nullptr || id->text != kOwnerId) {
      return ErrorCode::kNotImplemented;
    }
  }
  *mode = static_cast<storage::AccessMode>(bits);
  return ErrorCode::kNone;
}

bool HasGrantHeader(const HttpRequest& request) {
  for (const Header& h : request.headers) {
    if (h.name.starts_with("x-amz-grant-")) return true;
  }
  return false;
}

}  // namespace

HttpResponse GetBucketAcl(const Context& ctx) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  return XmlResponse(AclXml(bucket->anonymous));
}

HttpResponse PutBucketAcl(const Context& ctx) {
  if (HasGrantHeader(ctx.request)) {
    return ErrorResponse(ctx, ErrorCode::kNotImplemented, "x-amz-grant-* headers are not supported.");
  }
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  storage::BucketRecord record = std::move(bucket).value();
  if (const std::string* acl = ctx.request.Find("x-amz-acl")) {
    if (ErrorCode e = CannedBucketAcl(*acl, &record.anonymous); e != ErrorCode::kNone) {
      return CannedAclError(ctx, e, *acl);
    }
  } else {
    std::string body;
    if (ErrorCode e = ReadSmallBody(ctx, &body); e != ErrorCode::kNone) {
      return ErrorResponse(ctx, e);
    }
    if (ErrorCode e = ModeFromAclXml(body, &record.anonymous); e != ErrorCode::kNone) {
      return ErrorResponse(ctx, e);
    }
  }
  storage::Status s = ctx.store->UpdateBucket(record);
  if (!s.ok()) return StorageError(ctx, s);
  return HttpResponse{};
}

// Objects have no ACL of their own: the owner has FULL_CONTROL.
HttpResponse GetObjectAcl(const Context& ctx) {
  storage::Result<storage::ObjectMeta> meta = ctx.store->HeadObject(ctx.route.bucket, ctx.route.key);
  if (!meta.ok()) return StorageError(ctx, meta.status());
  return XmlResponse(AclXml(storage::AccessMode::kNone));
}

}  // namespace cubby::s3api
