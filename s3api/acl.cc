// ACLs: Get/PutBucketAcl, Get/PutObjectAcl, and the ACL and owner of a new object. The model
// (canned ACLs, grant headers, ownership, block public access) is iam/acl.h's; the XML is
// s3api/acl_xml.h's; evaluation is iam::Authorizer's.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketAcl.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketAcl.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectAcl.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/acl-overview.html
#include "iam/acl.h"

#include <optional>
#include <string>

#include "s3api/acl_xml.h"
#include "s3api/handlers.h"
#include "s3api/xml.h"

namespace cubby::s3api {

namespace {

std::optional<std::string_view> HeaderOf(const HttpRequest& request, std::string_view name) {
  const std::string* value = request.Find(name);
  if (value == nullptr) return std::nullopt;
  return std::string_view(*value);
}

// Display names by canonical id: the user's, or cubby's for buckets without an owner.
DisplayNameLookup DisplayNames(const Context& ctx) {
  return [&ctx](std::string_view id) -> std::optional<std::string> {
    if (id == kOwnerId) return std::string(kOwnerDisplayName);
    storage::Result<storage::UserRecord> user = ctx.store->GetUserById(id);
    if (!user.ok()) return std::nullopt;
    return user->display_name;
  };
}

// A bucket without an owner (tests plant them; before users) is reported as cubby's.
storage::AclRecord Reported(storage::AclRecord acl) {
  if (!acl.owner_id.empty()) return acl;
  acl.owner_id = std::string(kOwnerId);
  for (storage::AclGrant& g : acl.grants) {
    if (g.type == storage::GranteeType::kCanonicalUser && g.grantee.empty()) {
      g.grantee = std::string(kOwnerId);
    }
  }
  return acl;
}

HttpResponse AclError(const Context& ctx, const iam::AclStatus& status) {
  XmlBodyError e = FromAclStatus(status);
  return ErrorResponse(ctx, e.code, e.message);
}

// The ACL a PutBucketAcl / PutObjectAcl asks for, from its headers or else its `body`, for a
// resource owned by `owner_id` in `bucket`; checked against the bucket's ownership and public
// access block.
Failure RequestedAcl(const Context& ctx, std::string_view body,
                     const storage::BucketRecord& bucket, std::string_view owner_id,
                     bool for_bucket, storage::AclRecord* out) {
  const iam::AclRequestHeaders headers = AclHeadersOf(ctx.request);
  const iam::GranteeResolver resolver = Resolver(ctx);
  bool has_acl = false;
  std::optional<iam::CannedAcl> canned;
  if (headers.canned) {
    iam::CannedAcl c;
    if (iam::AclStatus s = iam::ParseCannedAcl(*headers.canned, &c); !s.ok()) {
      return AclError(ctx, s);
    }
    canned = c;
  }
  if (iam::AclStatus s = iam::AclFromRequest(headers, owner_id, bucket.owner_id, for_bucket,
                                             resolver, out, &has_acl);
      !s.ok()) {
    return AclError(ctx, s);
  }
  if (!has_acl) {
    if (body.empty()) {
      return ErrorResponse(ctx, ErrorCode::kMalformedACLError);
    }
    if (XmlBodyError e = ParseAccessControlPolicy(body, owner_id, resolver, out); !e.ok()) {
      return ErrorResponse(ctx, e.code, e.message);
    }
  }
  if (iam::AclStatus s = iam::CheckAclAllowedByOwnership(
          bucket.object_ownership, canned, canned ? nullptr : &out->grants, bucket.owner_id);
      !s.ok()) {
    return AclError(ctx, s);
  }
  if (iam::AclStatus s = iam::CheckPublicAclAllowed(bucket.public_access_block, *out); !s.ok()) {
    return AclError(ctx, s);
  }
  return Failure::None();
}

}  // namespace

storage::AccessMode AnonymousModeOf(const storage::AclRecord& acl) {
  uint8_t bits = 0;
  for (const storage::AclGrant& g : acl.grants) {
    if (g.type != storage::GranteeType::kGroup || g.grantee != iam::kAllUsersGroup) continue;
    switch (g.permission) {
      case storage::AclPermission::kRead:
        bits |= 1;
        break;
      case storage::AclPermission::kWrite:
        bits |= 2;
        break;
      case storage::AclPermission::kFullControl:
        bits |= 3;
        break;
      case storage::AclPermission::kReadAcp:
      case storage::AclPermission::kWriteAcp:
        break;
    }
  }
  return static_cast<storage::AccessMode>(bits);
}

iam::GranteeResolver Resolver(const Context& ctx) {
  return {.id_by_email = [&ctx](std::string_view email) -> std::optional<std::string> {
            storage::Result<storage::UserRecord> user = ctx.store->FindUserByEmail(email);
            if (!user.ok()) return std::nullopt;
            return user->user_id;
          },
          .id_exists =
              [&ctx](std::string_view id) {
                return id == kOwnerId || ctx.store->GetUserById(id).ok();
              }};
}

iam::AclRequestHeaders AclHeadersOf(const HttpRequest& request) {
  return {.canned = HeaderOf(request, "x-amz-acl"),
          .grants = {.read = HeaderOf(request, "x-amz-grant-read"),
                     .write = HeaderOf(request, "x-amz-grant-write"),
                     .read_acp = HeaderOf(request, "x-amz-grant-read-acp"),
                     .write_acp = HeaderOf(request, "x-amz-grant-write-acp"),
                     .full_control = HeaderOf(request, "x-amz-grant-full-control")}};
}

Failure NewObjectAccess(const Context& ctx, storage::ObjectMeta* meta) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  const iam::AclRequestHeaders headers = AclHeadersOf(ctx.request);
  std::optional<iam::CannedAcl> canned;
  if (headers.canned) {
    iam::CannedAcl c;
    if (iam::AclStatus s = iam::ParseCannedAcl(*headers.canned, &c); !s.ok()) {
      return AclError(ctx, s);
    }
    canned = c;
  }
  const std::string writer = ctx.auth.anonymous ? std::string() : ctx.auth.key->user_id;
  // An anonymous writer's object is the bucket owner's (S3 makes it so for anonymous PUTs).
  const std::string owner(iam::NewObjectOwner(bucket->object_ownership,
                                              writer.empty() ? bucket->owner_id : writer,
                                              bucket->owner_id, canned));
  storage::AclRecord acl;
  bool has_acl = false;
  if (iam::AclStatus s = iam::AclFromRequest(headers, owner, bucket->owner_id,
                                             /*for_bucket=*/false, Resolver(ctx), &acl, &has_acl);
      !s.ok()) {
    return AclError(ctx, s);
  }
  if (iam::AclStatus s = iam::CheckAclAllowedByOwnership(bucket->object_ownership, canned,
                                                         has_acl && !canned ? &acl.grants : nullptr,
                                                         bucket->owner_id);
      !s.ok()) {
    return AclError(ctx, s);
  }
  if (has_acl) {
    if (iam::AclStatus s = iam::CheckPublicAclAllowed(bucket->public_access_block, acl); !s.ok()) {
      return AclError(ctx, s);
    }
  }
  meta->owner_id = owner;
  // Without an ACL in the request the object keeps none of its own: the default (see
  // iam::ObjectAclOf).
  meta->acl = has_acl ? std::move(acl) : storage::AclRecord{};
  return Failure::None();
}

HttpResponse GetBucketAcl(const Context& ctx) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  return XmlResponse(
      AccessControlPolicyXml(Reported(iam::BucketAclOf(*bucket)), DisplayNames(ctx)));
}

HttpResponse PutBucketAcl(const Context& ctx) {
  std::string body;
  if (ErrorCode e = ReadSmallBody(ctx, &body); e != ErrorCode::kNone) return ErrorResponse(ctx, e);
  return AnswerBucketChange(ctx, [&](storage::BucketRecord* record) -> Failure {
    const std::string owner = record->owner_id.empty() ? std::string(kOwnerId) : record->owner_id;
    storage::AclRecord acl;
    if (Failure f = RequestedAcl(ctx, body, *record, owner, /*for_bucket=*/true, &acl)) return f;
    if (record->owner_id.empty()) {  // a bucket from before users stays ownerless
      acl.owner_id.clear();
      for (storage::AclGrant& g : acl.grants) {
        if (g.type == storage::GranteeType::kCanonicalUser && g.grantee == kOwnerId)
          g.grantee.clear();
      }
    }
    record->anonymous = AnonymousModeOf(acl);
    record->acl = std::move(acl);
    return Failure::None();
  });
}

HttpResponse GetObjectAcl(const Context& ctx) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  storage::Result<storage::ObjectMeta> meta = ctx.store->HeadObjectVersion(
      ctx.route.bucket, ctx.route.key, ctx.route.version_id.value_or(std::string()), nullptr);
  if (!meta.ok()) return VersionReadError(ctx, meta.status());
  HttpResponse r = XmlResponse(
      AccessControlPolicyXml(Reported(iam::ObjectAclOf(*bucket, *meta)), DisplayNames(ctx)));
  SetVersionIdHeader(ctx, meta->version_id, &r);
  return r;
}

// The object version's ACL is replaced in one step with what the request asks for, for the
// owner the version has then (Store::UpdateObjectAccess), so a concurrent overwrite cannot get
// the old object's owner or ACL.
HttpResponse PutObjectAcl(const Context& ctx) {
  std::string body;
  if (ErrorCode e = ReadSmallBody(ctx, &body); e != ErrorCode::kNone) return ErrorResponse(ctx, e);
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  Failure refused;
  std::string version_id;
  storage::Status s = ctx.store->UpdateObjectAccess(
      ctx.route.bucket, ctx.route.key, ctx.route.version_id.value_or(std::string()),
      [&](storage::ObjectMeta* meta) {
        std::string owner = meta->owner_id.empty() ? bucket->owner_id : meta->owner_id;
        if (owner.empty()) owner = std::string(kOwnerId);
        storage::AclRecord acl;
        refused = RequestedAcl(ctx, body, *bucket, owner, /*for_bucket=*/false, &acl);
        if (refused) return storage::Status(storage::Code::kAborted, "refused");
        meta->owner_id = owner == kOwnerId ? std::string() : owner;
        meta->acl = std::move(acl);
        version_id = meta->version_id;
        return storage::Status::Ok();
      });
  if (refused) return refused.TakeResponse();
  if (!s.ok()) return VersionReadError(ctx, s);
  HttpResponse r;
  SetVersionIdHeader(ctx, version_id, &r);
  return r;
}

}  // namespace cubby::s3api
