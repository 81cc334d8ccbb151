// Object lock (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html): the
// bucket's configuration (Get/PutObjectLockConfiguration), one version's retention and legal
// hold (Get/PutObjectRetention, Get/PutObjectLegalHold), and the lock a write gives its new
// version (NewObjectLock). What a lock refuses is storage's (Store::DeleteObjectVersion,
// Store::PutObjectRetention); the XML and headers are bucket_config_xml.h's.
#include <string>

#include "s3api/auth/checksum.h"
#include "s3api/bucket_config_xml.h"
#include "s3api/handlers.h"

namespace cubby::s3api {

namespace {

// What S3 answers a lock call or lock header on a bucket without object lock.
constexpr std::string_view kMissingLockConfiguration =
    "Bucket is missing Object Lock Configuration";

// The request's bucket when object lock is enabled on it; else the failure to answer
// (InvalidRequest kMissingLockConfiguration, or the bucket read's error). A bucket with object
// lock is always versioning-enabled, so the others are told without a read.
Failure LockedBucket(const Context& ctx, storage::BucketRecord* out) {
  if (ctx.store->BucketVersioning(ctx.route.bucket) != storage::VersioningState::kEnabled) {
    // The bucket may not exist at all: that is NoSuchBucket.
    storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
    if (!bucket.ok()) return StorageError(ctx, bucket.status());
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest, kMissingLockConfiguration);
  }
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  if (!bucket->object_lock.enabled) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest, kMissingLockConfiguration);
  }
  *out = std::move(bucket).value();
  return Failure::None();
}

// The version the request names (ctx.route.version_id, else the latest), read for its lock.
Failure ReadVersion(const Context& ctx, storage::ObjectMeta* out) {
  storage::DeleteMarkerInfo marker;
  storage::Result<storage::ObjectMeta> meta = ctx.store->HeadObjectVersion(
      ctx.route.bucket, ctx.route.key, ctx.route.version_id.value_or(""), &marker);
  if (!meta.ok()) return VersionReadError(ctx, meta.status());
  *out = std::move(meta).value();
  return Failure::None();
}

// Whether a PutObject carries an integrity check of its body: Content-MD5, an
// x-amz-checksum-<algorithm> header or trailer, or x-amz-sdk-checksum-algorithm.
bool HasIntegrityCheck(const HttpRequest& request) {
  for (const Header& h : request.headers) {
    if (h.name == "content-md5" || h.name == "x-amz-sdk-checksum-algorithm") return true;
    if (auth::ChecksumAlgorithmFromHeader(h.name)) return true;
    if (h.name == "x-amz-trailer" && auth::ChecksumAlgorithmFromHeader(text::TrimOws(h.value))) {
      return true;
    }
  }
  return false;
}

}  // namespace

// https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObjectLockConfiguration.html
HttpResponse GetObjectLockConfiguration(const Context& ctx) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  if (!bucket->object_lock.enabled) {
    return ErrorResponse(ctx, ErrorCode::kObjectLockConfigurationNotFoundError);
  }
  return XmlResponse(ObjectLockConfigurationXml(bucket->object_lock));
}

// https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectLockConfiguration.html. Enables
// object lock on a bucket whose versioning is Enabled (S3 allows this since 2023 on existing
// buckets: object-lock-configure.html#object-lock-configure-existing-bucket) and sets or
// removes its default retention. Once enabled it stays. Like the other object-lock Puts, its
// body needs Content-MD5 or a checksum (the API marks them httpChecksumRequired; S3 answers
// "Missing required header for this request: Content-Md5" without).
HttpResponse PutObjectLockConfiguration(const Context& ctx) {
  storage::ObjectLockConfig config;
  if (Failure f = ReadXmlBody(ctx, kDigestRequired, &config, ParseObjectLockConfiguration)) {
    return f.TakeResponse();
  }
  // The record is read under the bucket's lock, which SetBucketVersioning takes too: its
  // versioning state cannot change between this check and the write.
  return AnswerBucketChange(ctx, [&](storage::BucketRecord* bucket) -> Failure {
    if (!bucket->object_lock.enabled) {
      if (XmlBodyError e = CheckObjectLockConfigurationAllowed(bucket->versioning); !e.ok()) {
        return ErrorResponse(ctx, e.code, e.message);
      }
    }
    bucket->object_lock = config;
    return Failure::None();
  });
}

// https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObjectRetention.html
HttpResponse GetObjectRetention(const Context& ctx) {
  storage::BucketRecord bucket;
  if (Failure failure = LockedBucket(ctx, &bucket)) return failure.TakeResponse();
  storage::ObjectMeta meta;
  if (Failure failure = ReadVersion(ctx, &meta)) return failure.TakeResponse();
  if (meta.lock.retention.mode == storage::RetentionMode::kNone) {
    return ErrorResponse(ctx, ErrorCode::kNoSuchObjectLockConfiguration);
  }
  return XmlResponse(RetentionXml(meta.lock.retention));
}

// https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectRetention.html. A running
// GOVERNANCE retention is shortened, changed or removed only with
// x-amz-bypass-governance-retention from a caller allowed s3:BypassGovernanceRetention; a
// COMPLIANCE one is only extended. Refusals are AccessDenied (storage's kObjectLocked).
HttpResponse PutObjectRetention(const Context& ctx) {
  storage::BucketRecord bucket;
  if (Failure failure = LockedBucket(ctx, &bucket)) return failure.TakeResponse();
  storage::ObjectRetention retention;
  if (Failure f = ReadXmlBody(ctx, kDigestRequired, &retention, ParseRetention, ctx.now_ms())) {
    return f.TakeResponse();
  }
  storage::Status s = ctx.store->PutObjectRetention(ctx.route.bucket, ctx.route.key,
                                                    ctx.route.version_id.value_or(""), retention,
                                                    BypassGovernance(ctx, ctx.route.key));
  if (!s.ok()) return VersionReadError(ctx, s);
  return HttpResponse();
}

// https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObjectLegalHold.html: a version whose
// legal hold was never set has no configuration to answer.
HttpResponse GetObjectLegalHold(const Context& ctx) {
  storage::BucketRecord bucket;
  if (Failure failure = LockedBucket(ctx, &bucket)) return failure.TakeResponse();
  storage::ObjectMeta meta;
  if (Failure failure = ReadVersion(ctx, &meta)) return failure.TakeResponse();
  if (meta.lock.legal_hold == storage::LegalHold::kNever) {
    return ErrorResponse(ctx, ErrorCode::kNoSuchObjectLockConfiguration);
  }
  return XmlResponse(LegalHoldXml(meta.lock.legal_hold));
}

// https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectLegalHold.html
HttpResponse PutObjectLegalHold(const Context& ctx) {
  storage::BucketRecord bucket;
  if (Failure failure = LockedBucket(ctx, &bucket)) return failure.TakeResponse();
  storage::LegalHold hold = storage::LegalHold::kNever;
  if (Failure f = ReadXmlBody(ctx, kDigestRequired, &hold, ParseLegalHold)) {
    return f.TakeResponse();
  }
  storage::Status s = ctx.store->PutObjectLegalHold(ctx.route.bucket, ctx.route.key,
                                                    ctx.route.version_id.value_or(""), hold);
  if (!s.ok()) return VersionReadError(ctx, s);
  return HttpResponse();
}

Failure NewObjectLock(const Context& ctx, storage::ObjectMeta* meta) {
  storage::ObjectLockState asked;
  if (XmlBodyError e = ParseObjectLockHeaders(ctx.request, ctx.now_ms(), &asked); !e.ok()) {
    return ErrorResponse(ctx, e.code, e.message);
  }
  const bool asks = asked != storage::ObjectLockState{};
  // The unversioned fast path: no bucket read (object lock implies Enabled).
  if (!asks &&
      ctx.store->BucketVersioning(ctx.route.bucket) != storage::VersioningState::kEnabled) {
    return Failure::None();
  }
  storage::ObjectLockConfig config;
  if (asks) {
    storage::BucketRecord bucket;
    if (Failure failure = LockedBucket(ctx, &bucket)) return failure;
    config = bucket.object_lock;
  } else {
    // Every PUT into an Enabled bucket asks for the default retention: the cached record.
    storage::Result<std::shared_ptr<const storage::BucketRecord>> read = RequestBucket(ctx);
    if (!read.ok()) return StorageError(ctx, read.status());
    config = (*read)->object_lock;
  }
  storage::ObjectLockState lock = asked;
  if (lock.retention.mode == storage::RetentionMode::kNone) {
    lock.retention = DefaultRetentionFor(config, ctx.now_ms());
  }
  // S3 refuses a PutObject whose version would be locked, by its headers or by the bucket's
  // default retention, unless its body carries an integrity check (the message clients see:
  // https://github.com/kopia/kopia/issues/711, https://github.com/aws/aws-sdk-php/issues/1694).
  if (lock != storage::ObjectLockState{} && ctx.route.op == Operation::kPutObject &&
      !HasIntegrityCheck(ctx.request)) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "Content-MD5 OR x-amz-checksum- HTTP header is required for Put Object "
                         "requests with Object Lock parameters");
  }
  meta->lock = lock;
  return Failure::None();
}

}  // namespace cubby::s3api
