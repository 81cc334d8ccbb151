// Bucket operations: ListBuckets, CreateBucket, HeadBucket, DeleteBucket, GetBucketLocation,
// Get/PutBucketVersioning.
#include <optional>
#include <string>
#include <vector>

#include "iam/acl.h"
#include "s3api/acl_xml.h"
#include "s3api/bucket_config_xml.h"
#include "s3api/format.h"
#include "s3api/handlers.h"
#include "s3api/xml.h"
#include "storage/bucket_name.h"
#include "storage/users.h"
#include "text/ascii.h"
#include "text/encoding.h"
#include "text/uri.h"

namespace cubby::s3api {

namespace {

// The owner, object ownership and ACL of a new bucket: the caller owns it; x-amz-object-ownership
// or the server's default (ServiceOptions::default_object_ownership) is its ownership; x-amz-acl
// or x-amz-grant-* its ACL (private without them). The AllUsers grants are mirrored as the
// bucket's anonymous mode. Errors: the ACL errors, InvalidArgument for an unknown ownership,
// InvalidBucketAclWithObjectOwnership for a non-owner grant under BucketOwnerEnforced.
Failure NewBucketAccess(const Context& ctx, storage::BucketRecord* record) {
  record->object_ownership = ctx.options.default_object_ownership;
  if (const std::string* ownership = ctx.request.Find("x-amz-object-ownership")) {
    if (iam::AclStatus s = iam::ParseObjectOwnership(*ownership, &record->object_ownership);
        !s.ok()) {
      XmlBodyError e = FromAclStatus(s);
      return ErrorResponse(ctx, e.code, e.message);
    }
  }
  record->owner_id = ctx.auth.key->user_id;
  storage::AclRecord acl;
  bool has_acl = false;
  if (iam::AclStatus s =
          iam::AclFromRequest(AclHeadersOf(ctx.request), record->owner_id, record->owner_id,
                              /*for_bucket=*/true, Resolver(ctx), &acl, &has_acl);
      !s.ok()) {
    XmlBodyError e = FromAclStatus(s);
    return ErrorResponse(ctx, e.code, e.message);
  }
  if (!has_acl) acl = storage::BucketAclFor(record->owner_id, storage::AccessMode::kNone);
  if (iam::AclStatus s = iam::CheckBucketAclForOwnership(record->object_ownership, acl); !s.ok()) {
    XmlBodyError e = FromAclStatus(s);
    return ErrorResponse(ctx, e.code, e.message);
  }
  record->anonymous = AnonymousModeOf(acl);
  // A key without a user (before format 2) makes an ownerless bucket: no ACL stored, its mode.
  if (!record->owner_id.empty()) record->acl = std::move(acl);
  return Failure::None();
}

}  // namespace

// https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListBuckets.html: the caller's own
// buckets, and the caller as their owner.
HttpResponse ListBuckets(const Context& ctx) {
  // Pagination (max-buckets 1..10000, an opaque continuation-token: base64 of the last name
  // answered), a name prefix, and bucket-region (all of cubby's buckets are in its region).
  // Without max-buckets a page holds 10,000 buckets, as AWS's.
  const std::string_view target = ctx.request.target;
  const size_t q = target.find('?');
  const std::vector<text::NameValue> query = text::SplitUrlEncodedLenient(
      q == std::string_view::npos ? std::string_view{} : target.substr(q + 1), text::Plus::kSpace);
  size_t max_buckets = 10000;
  if (const std::string* v = text::FindValue(query, "max-buckets")) {
    size_t n = 0;
    bool ok = !v->empty() && v->size() <= 5;
    for (char c : *v) {
      ok = ok && c >= '0' && c <= '9';
      if (ok) n = n * 10 + static_cast<size_t>(c - '0');
    }
    if (!ok || n < 1 || n > 10000) {
      return ErrorResponse(ctx, ErrorCode::kInvalidArgument,
                           "Argument max-buckets must be an integer between 1 and 10000.");
    }
    max_buckets = n;
  }
  std::string after;
  if (const std::string* token = text::FindValue(query, "continuation-token");
      token != nullptr && !token->empty() && !text::Base64Decode(*token, &after)) {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument,
                         "The continuation token provided is incorrect");
  }
  const std::string* prefix = text::FindValue(query, "prefix");
  const std::string* region = text::FindValue(query, "bucket-region");

  storage::Result<std::vector<storage::BucketRecord>> buckets = ctx.store->ListBuckets();
  if (!buckets.ok()) return StorageError(ctx, buckets.status());
  XmlWriter w;
  w.Open("ListAllMyBucketsResult", kS3Namespace);
  w.Open("Owner");
  if (const std::string& user_id = ctx.auth.key->user_id; !user_id.empty()) {
    storage::Result<storage::UserRecord> caller = ctx.store->GetUserById(user_id);
    if (!caller.ok()) return StorageError(ctx, caller.status());
    w.Element("ID", caller->user_id);
    w.Element("DisplayName", caller->display_name);
  } else {  // a key from before users (tests plant them)
    w.Element("ID", kOwnerId);
    w.Element("DisplayName", kOwnerDisplayName);
  }
  w.Close();
  w.Open("Buckets");
  size_t answered = 0;
  std::string next_token;
  for (const storage::BucketRecord& b : *buckets) {
    if (!after.empty() && b.name <= after) continue;
    if (prefix != nullptr && !b.name.starts_with(*prefix)) continue;
    if (region != nullptr && *region != ctx.options.region) continue;
    // A user sees the buckets it owns; a key issued by COSI those of its grants.
    if (Authorize(ctx, iam::Action::kListAllMyBuckets, {b.name, "", &b}) != ErrorCode::kNone) {
      continue;
    }
    if (answered == max_buckets) {
      next_token = text::Base64Encode(after);
      break;
    }
    w.Open("Bucket");
    w.Element("Name", b.name);
    w.Element("CreationDate", Iso8601(b.created_ms));
    w.Element("BucketRegion", ctx.options.region);
    w.Close();
    after = b.name;
    ++answered;
  }
  w.Close();
  if (!next_token.empty()) w.Element("ContinuationToken", next_token);
  if (prefix != nullptr) w.Element("Prefix", *prefix);
  return XmlResponse(std::move(w).Finish());
}

// https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateBucket.html
// Authorized here, once the body is read, so that s3:LocationConstraint sees it; a body that
// cannot be read or parsed is answered only to a caller allowed without it.
HttpResponse CreateBucket(const Context& ctx) {
  std::string body;
  const ErrorCode read = ReadSmallBody(ctx, &body);
  XmlNode root;
  const bool parsed =
      read == ErrorCode::kNone &&
      (body.empty() || (ParseXml(body, &root) && root.name == "CreateBucketConfiguration"));
  std::string constraint;
  if (parsed && !body.empty()) {
    if (const XmlNode* location = root.Child("LocationConstraint")) constraint = location->text;
  }
  BodyFacts facts;
  if (parsed) facts.location_constraint = constraint;
  if (ErrorCode denied = AuthorizeRequest(ctx, facts); denied != ErrorCode::kNone) {
    return ErrorResponse(ctx, denied);
  }
  if (read != ErrorCode::kNone) return ErrorResponse(ctx, read);
  if (!parsed) return ErrorResponse(ctx, ErrorCode::kMalformedXML);

  const std::string& name = ctx.route.bucket;
  if (storage::Status valid = storage::ValidateBucketName(name); !valid.ok()) {
    return ErrorResponse(ctx, ErrorCode::kInvalidBucketName, valid.message());
  }

  storage::BucketRecord record;
  record.name = name;
  record.created_ms = ctx.now_ms();
  if (Failure f = NewBucketAccess(ctx, &record)) return f.TakeResponse();
  // x-amz-bucket-object-lock-enabled: true makes a bucket with object lock, and so with
  // versioning Enabled, in the one write that creates it: a lock-enabled bucket is never
  // unversioned (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html).
  if (const std::string* lock = ctx.request.Find("x-amz-bucket-object-lock-enabled");
      lock != nullptr && text::EqualsIgnoreCase(*lock, "true")) {
    record.object_lock.enabled = true;
    record.versioning = storage::VersioningState::kEnabled;
  }

  if (!body.empty()) {
    bool ok = constraint == ctx.options.region ||
              (constraint.empty() && ctx.options.region == "us-east-1");
    if (!ok) return ErrorResponse(ctx, ErrorCode::kInvalidLocationConstraint);
  }

  bool created = false;
  storage::Result<storage::BucketRecord> stored = ctx.store->GetOrCreateBucket(record, &created);
  if (!stored.ok()) return StorageError(ctx, stored.status());
  if (!created) {
    // Another user's bucket: BucketAlreadyExists. The caller's own: BucketAlreadyOwnedByYou,
    // except in us-east-1, where S3 answers 200 for backward compatibility (the "Errors" of
    // CreateBucket). Nothing changes either way.
    if (stored->owner_id != record.owner_id) {
      return ErrorResponse(ctx, ErrorCode::kBucketAlreadyExists);
    }
    if (ctx.options.region != "us-east-1") {
      return ErrorResponse(ctx, ErrorCode::kBucketAlreadyOwnedByYou);
    }
  }
  HttpResponse r;
  r.Set("Location", "/" + name);
  return r;
}

HttpResponse HeadBucket(const Context& ctx) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  HttpResponse r;
  r.Set("x-amz-bucket-region", ctx.options.region);
  return r;
}

HttpResponse DeleteBucket(const Context& ctx) {
  storage::Status s = ctx.store->DeleteBucket(ctx.route.bucket, /*force=*/false);
  if (!s.ok()) return StorageError(ctx, s);
  return NoContent();
}

// https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketLocation.html: us-east-1 is
// reported as an empty LocationConstraint.
HttpResponse GetBucketLocation(const Context& ctx) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  XmlWriter w;
  w.Open("LocationConstraint", kS3Namespace);
  if (ctx.options.region != "us-east-1") w.Text(ctx.options.region);
  return XmlResponse(std::move(w).Finish());
}

// https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketVersioning.html: a bucket never
// versioned answers the element empty.
HttpResponse GetBucketVersioning(const Context& ctx) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  return XmlResponse(VersioningConfigurationXml(bucket->versioning));
}

// https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketVersioning.html. A body without
// Status leaves the state as it is; a bucket with object lock stays Enabled.
HttpResponse PutBucketVersioning(const Context& ctx) {
  std::optional<storage::VersioningState> requested;
  if (Failure f = ReadXmlBody(ctx, kDigestOptional, &requested, ParseVersioningConfiguration)) {
    return f.TakeResponse();
  }
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  if (!requested) return HttpResponse();
  if (XmlBodyError e = CheckVersioningChange(bucket->object_lock, *requested); !e.ok()) {
    return ErrorResponse(ctx, e.code, e.message);
  }
  storage::Status s = ctx.store->SetBucketVersioning(ctx.route.bucket, *requested);
  if (!s.ok()) return StorageError(ctx, s);
  return HttpResponse();
}

}  // namespace cubby::s3api
