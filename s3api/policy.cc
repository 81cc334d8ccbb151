// Bucket policies: stored as given, checked by iam/policy's parser, enforced by iam::Authorizer.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketPolicy.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketPolicy.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteBucketPolicy.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketPolicyStatus.html
#include "iam/policy.h"

#include <string>

#include "iam/acl.h"
#include "s3api/handlers.h"
#include "s3api/xml.h"

namespace cubby::s3api {

namespace {

// The bucket's policy text and whether it is public; NoSuchBucketPolicy when it has none.
Failure StoredPolicy(const Context& ctx, std::string* text, bool* is_public) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  if (bucket->policy.empty()) return ErrorResponse(ctx, ErrorCode::kNoSuchBucketPolicy);
  *text = std::move(bucket->policy);
  if (is_public != nullptr) {
    storage::Result<iam::Policy> policy =
        iam::Parse(*text, {.kind = iam::PolicyKind::kBucket,
                           .bucket = ctx.route.bucket,
                           .max_bytes = iam::kMaxBucketPolicyBytes});
    *is_public = policy.ok() && iam::IsPublic(*policy);
  }
  return Failure::None();
}

}  // namespace

// 400 MalformedPolicy with the parser's message for a document that does not parse; 403
// AccessDenied for a public one while the bucket's BlockPublicPolicy is set; 204 otherwise.
HttpResponse PutBucketPolicy(const Context& ctx) {
  std::string body;
  if (ErrorCode e = ReadSmallBody(ctx, &body); e != ErrorCode::kNone) {
    // A body over the XML limit is over the policy limit too.
    return ErrorResponse(
        ctx, e == ErrorCode::kMalformedXML ? ErrorCode::kMalformedPolicy : e,
        e == ErrorCode::kMalformedXML ? "Policy exceeds the maximum allowed document size" : "");
  }
  storage::Result<iam::Policy> policy = iam::Parse(body, {.kind = iam::PolicyKind::kBucket,
                                                          .bucket = ctx.route.bucket,
                                                          .max_bytes = iam::kMaxBucketPolicyBytes,
                                                          .keys = iam::KeyCheck::kFilled});
  if (!policy.ok()) {
    return ErrorResponse(ctx, ErrorCode::kMalformedPolicy, policy.status().message());
  }
  const bool is_public = iam::IsPublic(*policy);
  return AnswerBucketChange(ctx, [&](storage::BucketRecord* bucket) -> Failure {
    if (iam::AclStatus s = iam::CheckPublicPolicyAllowed(bucket->public_access_block, is_public);
        !s.ok()) {
      return ErrorResponse(ctx, ErrorCode::kAccessDenied);
    }
    bucket->policy = body;
    return Failure::None();
  }, 204);
}

// The document exactly as stored (application/json).
HttpResponse GetBucketPolicy(const Context& ctx) {
  std::string text;
  if (Failure f = StoredPolicy(ctx, &text, nullptr)) return f.TakeResponse();
  HttpResponse r;
  r.Set("Content-Type", "application/json");
  if (!ctx.head()) r.body = std::move(text);
  return r;
}

// 204 whether or not a policy was set (as S3 answers).
HttpResponse DeleteBucketPolicy(const Context& ctx) {
  return AnswerBucketChange(ctx, [](storage::BucketRecord* bucket) {
    bucket->policy.clear();
    return Failure::None();
  }, 204);
}

// <PolicyStatus><IsPublic>true|false</IsPublic></PolicyStatus>; NoSuchBucketPolicy without one.
HttpResponse GetBucketPolicyStatus(const Context& ctx) {
  std::string text;
  bool is_public = false;
  if (Failure f = StoredPolicy(ctx, &text, &is_public)) return f.TakeResponse();
  XmlWriter w;
  w.Open("PolicyStatus", kS3Namespace);
  w.Element("IsPublic", is_public ? "true" : "false");
  return XmlResponse(std::move(w).Finish());
}

}  // namespace cubby::s3api
