// Lifecycle configuration: Put/Get/DeleteBucketLifecycle(Configuration), and the
// x-amz-expiration header of the objects a rule will expire. The XML is
// s3api/bucket_config_xml.h's, what a rule does lifecycle/lifecycle.h's; the background worker
// that applies the rules is lifecycle/worker.h's, run by the server.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketLifecycleConfiguration.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketLifecycleConfiguration.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteBucketLifecycle.html
#include "lifecycle/lifecycle.h"

#include <cstdio>
#include <memory>
#include <random>
#include <string>

#include "s3api/bucket_config_xml.h"
#include "s3api/handlers.h"
#include "text/encoding.h"
#include "text/time.h"

namespace cubby::s3api {

namespace {

// The id of a rule given without one. S3 makes a base64 string of 48 characters; any unique
// string of up to 255 will do, the parser asks again on a repeat.
std::string NewRuleId() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  char raw[37];
  std::snprintf(raw, sizeof(raw), "%016llx%016llx", static_cast<unsigned long long>(random()),
                static_cast<unsigned long long>(random()));
  return text::Base64Encode(std::string_view(raw, 32)).substr(0, 43);
}

}  // namespace

// 200 with no body. MalformedXML and the parser's other errors (bucket_config_xml.h), 501
// NotImplemented for transitions; the configuration replaces any earlier one as a whole.
HttpResponse PutBucketLifecycleConfiguration(const Context& ctx) {
  storage::LifecycleConfig config;
  if (Failure f =
          ReadXmlBody(ctx, kDigestRequired, &config, ParseLifecycleConfiguration, NewRuleId)) {
    return f.TakeResponse();
  }
  return AnswerBucketChange(ctx, [&](storage::BucketRecord* bucket) {
    bucket->lifecycle = config;
    return Failure::None();
  });
}

// The stored rules; 404 NoSuchLifecycleConfiguration when none are set.
HttpResponse GetBucketLifecycleConfiguration(const Context& ctx) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  if (bucket->lifecycle.rules.empty()) {
    return ErrorResponse(ctx, ErrorCode::kNoSuchLifecycleConfiguration);
  }
  return XmlResponse(LifecycleConfigurationXml(bucket->lifecycle));
}

// 204 whether or not rules were set (as S3 answers).
HttpResponse DeleteBucketLifecycle(const Context& ctx) {
  return AnswerBucketChange(ctx, [](storage::BucketRecord* bucket) {
    bucket->lifecycle = {};
    return Failure::None();
  }, 204);
}

std::optional<std::string> ExpirationHeaderFor(const Context& ctx, std::string_view key,
                                               const storage::ObjectMeta& meta) {
  storage::Result<std::shared_ptr<const storage::BucketRecord>> bucket = RequestBucket(ctx);
  if (!bucket.ok() || (*bucket)->lifecycle.rules.empty()) return std::nullopt;
  // The version's own tags: a rule that filters by tag selects it only when it carries them.
  const lifecycle::ObjectFacts facts{
      .key = key, .size = meta.size, .tags = meta.tags, .last_modified_ms = meta.last_modified_ms};
  std::optional<lifecycle::Expiry> expiry =
      lifecycle::CurrentVersionExpiry((*bucket)->lifecycle, facts, ctx.options.lifecycle_day);
  if (!expiry) return std::nullopt;
  return lifecycle::ExpirationHeader(*expiry);
}

void SetAbortHeaders(const Context& ctx, const storage::UploadRecord& upload, HttpResponse* r) {
  storage::Result<std::shared_ptr<const storage::BucketRecord>> bucket = RequestBucket(ctx);
  if (!bucket.ok() || (*bucket)->lifecycle.rules.empty()) return;
  std::optional<lifecycle::Expiry> expiry = lifecycle::UploadAbortExpiry(
      (*bucket)->lifecycle, {.key = upload.key, .initiated_ms = upload.initiated_ms},
      ctx.options.lifecycle_day);
  if (!expiry) return;
  r->Set("x-amz-abort-date", text::FormatHttpDate(text::FromUnixMillis(expiry->at_ms)));
  r->Set("x-amz-abort-rule-id", expiry->rule_id);
}

void SetExpirationHeader(const Context& ctx, std::string_view key, const storage::ObjectMeta& meta,
                         HttpResponse* r) {
  std::optional<std::string> expiration = ExpirationHeaderFor(ctx, key, meta);
  if (expiration) r->Set(std::string(kAmzExpiration), std::move(*expiration));
}

storage::Result<std::shared_ptr<const storage::BucketRecord>> RequestBucket(const Context& ctx) {
  if (ctx.authorizer != nullptr) return ctx.authorizer->CachedBucket(ctx.route.bucket);
  storage::Result<storage::BucketRecord> read = ctx.store->GetBucket(ctx.route.bucket);
  if (!read.ok()) return read.status();
  return std::make_shared<const storage::BucketRecord>(std::move(read).value());
}

}  // namespace cubby::s3api
