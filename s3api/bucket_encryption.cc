// Bucket default encryption: Put/Get/DeleteBucketEncryption, and the rule a write without
// encryption headers follows (bucket_encryption.h).
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketEncryption.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketEncryption.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteBucketEncryption.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/default-bucket-encryption.html
#include "s3api/bucket_encryption.h"

#include <string>
#include <utility>

#include "kms/kms.h"
#include "s3api/bucket_config_xml.h"
#include "s3api/handlers.h"

namespace cubby::s3api {

DefaultSse BucketDefaultEncryption(const storage::BucketRecord& bucket,
                                   const ServiceOptions& options) {
  if (!bucket.encryption.rules.empty()) {
    const storage::BucketEncryptionRule& rule = bucket.encryption.rules.front();
    switch (rule.algorithm) {
      case storage::SseAlgorithm::kAes256:
        return {DefaultSse::Mode::kSseS3, "", false};
      // PutBucketEncryption refuses aws:kms:dsse, so no bucket has it; were one stored, SSE-KMS
      // is the nearest cubby does (DSSE-KMS is SSE-KMS plus a second layer).
      case storage::SseAlgorithm::kAwsKms:
      case storage::SseAlgorithm::kAwsKmsDsse:
        return {DefaultSse::Mode::kSseKms, rule.kms_master_key_id, rule.bucket_key_enabled};
    }
  }
  if (options.default_sse_s3) return {DefaultSse::Mode::kSseS3, "", false};
  return {};
}

namespace {

// The rule every bucket follows without a configuration of its own when the server runs with
// --default-encryption AES256: what GetBucketEncryption answers for it.
const storage::BucketEncryption& ServerDefaultRule() {
  static const storage::BucketEncryption kRule{{storage::BucketEncryptionRule{}}};
  return kRule;
}

// An aws:kms rule's key must name a key of the built-in KMS (kms/kms.h) when the server has one,
// so a mistyped id is refused now rather than on every later write. Without a KMS (options.kms
// null) the id is stored as given: SSE-KMS writes are refused then anyway.
Failure CheckKmsKey(const Context& ctx, const storage::BucketEncryptionRule& rule) {
  if (rule.algorithm != storage::SseAlgorithm::kAwsKms || rule.kms_master_key_id.empty() ||
      ctx.options.kms == nullptr) {
    return Failure::None();
  }
  std::string key_arn;
  const kms::Status status = ctx.options.kms->ResolveKey(rule.kms_master_key_id, &key_arn);
  // S3 passes KMS's refusal on as a 400 named after KMS's exception.
  const std::string& named = key_arn.empty() ? rule.kms_master_key_id : key_arn;
  switch (status.code) {
    case kms::Code::kOk:
      return Failure::None();
    case kms::Code::kNotFound:
      return ErrorResponse(ctx, ErrorCode::kKmsNotFound,
                           "Key '" + rule.kms_master_key_id + "' does not exist");
    case kms::Code::kInvalidKeyId:
      return ErrorResponse(ctx, ErrorCode::kKmsNotFound, "Invalid keyId " + rule.kms_master_key_id);
    case kms::Code::kDisabled:
      return ErrorResponse(ctx, ErrorCode::kKmsDisabled, named + " is disabled.");
    case kms::Code::kInvalidState:
      return ErrorResponse(ctx, ErrorCode::kKmsInvalidState, named + " is pending deletion.");
    case kms::Code::kInternal:
      ctx.summary->error_detail = "kms: " + status.message;
      return ErrorResponse(ctx, ErrorCode::kInternalError);
  }
  return ErrorResponse(ctx, ErrorCode::kInternalError);
}

}  // namespace

// 200 with no body. The body needs Content-MD5 or a checksum (the API marks PutBucketEncryption
// httpChecksumRequired); MalformedXML, InvalidArgument and NotImplemented (aws:kms:dsse) from the
// parser; KMS.NotFoundException, KMS.DisabledException, KMS.KMSInvalidStateException for the key
// of an aws:kms rule (CheckKmsKey). The rule replaces any earlier one.
HttpResponse PutBucketEncryption(const Context& ctx) {
  storage::BucketEncryption config;
  if (Failure f =
          ReadXmlBody(ctx, kDigestRequired, &config, ParseServerSideEncryptionConfiguration)) {
    return f.TakeResponse();
  }
  // The key is checked before the bucket is locked (ChangeBucket): KMS reads the store.
  if (Failure failure = CheckKmsKey(ctx, config.rules.front())) return failure.TakeResponse();
  return AnswerBucketChange(ctx, [&](storage::BucketRecord* bucket) {
    bucket->encryption = config;
    return Failure::None();
  });
}

// The bucket's stored rule. Without one: since January 2023 S3 encrypts every new object with
// SSE-S3 and answers the AES256 rule for every bucket; cubby encrypts by default only with
// --default-encryption AES256 (options.default_sse_s3), so it answers that rule only then, and
// 404 ServerSideEncryptionConfigurationNotFoundError (S3's answer before 2023) otherwise, so that
// a client can tell whether its objects will be encrypted.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/default-encryption-faq.html
HttpResponse GetBucketEncryption(const Context& ctx) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  if (!bucket->encryption.rules.empty()) {
    return XmlResponse(ServerSideEncryptionConfigurationXml(bucket->encryption));
  }
  if (ctx.options.default_sse_s3) {
    return XmlResponse(ServerSideEncryptionConfigurationXml(ServerDefaultRule()));
  }
  return ErrorResponse(ctx, ErrorCode::kServerSideEncryptionConfigurationNotFoundError);
}

// 204 whether or not a rule was set (as S3 answers). New objects then follow the server's
// default (BucketDefaultEncryption); stored objects keep their encryption.
HttpResponse DeleteBucketEncryption(const Context& ctx) {
  return AnswerBucketChange(ctx, [](storage::BucketRecord* bucket) {
    bucket->encryption = {};
    return Failure::None();
  }, 204);
}

}  // namespace cubby::s3api
