// Block public access, per bucket: Get/Put/DeletePublicAccessBlock. What the four flags do is
// iam/acl.h's (checks on ACL and policy writes) and iam::Authorizer's (evaluation).
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutPublicAccessBlock.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetPublicAccessBlock.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeletePublicAccessBlock.html
#include <string>

#include "s3api/acl_xml.h"
#include "s3api/handlers.h"

namespace cubby::s3api {

// NoSuchPublicAccessBlockConfiguration (404) when none is set.
HttpResponse GetPublicAccessBlock(const Context& ctx) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  if (!bucket->public_access_block.configured) {
    return ErrorResponse(ctx, ErrorCode::kNoSuchPublicAccessBlockConfiguration);
  }
  return XmlResponse(PublicAccessBlockXml(bucket->public_access_block));
}

// MalformedXML for a body that is not a PublicAccessBlockConfiguration.
HttpResponse PutPublicAccessBlock(const Context& ctx) {
  storage::PublicAccessBlock block;
  if (Failure f = ReadXmlBody(ctx, kDigestOptional, &block, ParsePublicAccessBlock)) {
    return f.TakeResponse();
  }
  return AnswerBucketChange(ctx, [&](storage::BucketRecord* bucket) {
    bucket->public_access_block = block;
    return Failure::None();
  });
}

// 204, whether or not one was set.
HttpResponse DeletePublicAccessBlock(const Context& ctx) {
  return AnswerBucketChange(ctx, [](storage::BucketRecord* bucket) {
    bucket->public_access_block = storage::PublicAccessBlock{};
    return Failure::None();
  }, 204);
}

}  // namespace cubby::s3api
