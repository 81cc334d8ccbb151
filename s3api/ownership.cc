// Object ownership: Get/Put/DeleteBucketOwnershipControls. The setting's meaning (who owns a
// new object, whether ACLs count) is iam/acl.h's.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketOwnershipControls.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketOwnershipControls.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteBucketOwnershipControls.html
#include <string>

#include "iam/acl.h"
#include "s3api/acl_xml.h"
#include "s3api/handlers.h"

namespace cubby::s3api {

// cubby keeps a setting for every bucket (ObjectWriter unless one was chosen), so Get always
// answers one; OwnershipControlsNotFoundError is not answered.
HttpResponse GetBucketOwnershipControls(const Context& ctx) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  return XmlResponse(OwnershipControlsXml(bucket->object_ownership));
}

// MalformedXML for a body that is not one Rule with one known ObjectOwnership;
// InvalidBucketAclWithObjectOwnership when BucketOwnerEnforced meets a bucket ACL that grants
// to anyone but the owner.
HttpResponse PutBucketOwnershipControls(const Context& ctx) {
  storage::ObjectOwnership ownership;
  if (Failure f = ReadXmlBody(ctx, kDigestOptional, &ownership, ParseOwnershipControls)) {
    return f.TakeResponse();
  }
  return AnswerBucketChange(ctx, [&](storage::BucketRecord* bucket) -> Failure {
    if (iam::AclStatus s = iam::CheckBucketAclForOwnership(ownership, bucket->acl); !s.ok()) {
      XmlBodyError e = FromAclStatus(s);
      return ErrorResponse(ctx, e.code, e.message);
    }
    bucket->object_ownership = ownership;
    return Failure::None();
  });
}

// Back to the default, ObjectWriter (ACLs enabled); 204.
HttpResponse DeleteBucketOwnershipControls(const Context& ctx) {
  return AnswerBucketChange(ctx, [](storage::BucketRecord* bucket) {
    bucket->object_ownership = storage::ObjectOwnership::kObjectWriter;
    return Failure::None();
  }, 204);
}

}  // namespace cubby::s3api
