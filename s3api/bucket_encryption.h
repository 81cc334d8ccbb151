// Bucket default encryption: which server-side encryption an object written without encryption
// headers gets, from its bucket's PutBucketEncryption rule and the server's
// --default-encryption setting. A pure function of the bucket record and the options, so the
// object path (PutObject, CopyObject, CreateMultipartUpload, PostObject) asks it once per write.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/default-bucket-encryption.html
#pragma once

#include <string>

#include "s3api/service.h"
#include "storage/records.h"

namespace cubby::s3api {

// The encryption a write without x-amz-server-side-encryption headers gets.
struct DefaultSse {
  enum class Mode { kNone, kSseS3, kSseKms } mode = Mode::kNone;
  // kSseKms: the rule's KMSMasterKeyID as stored (key id, key ARN, alias name or alias ARN);
  // empty: the AWS-managed key aws/s3. Empty for the other modes.
  std::string kms_key_id;
  // kSseKms: the rule's BucketKeyEnabled (reported as x-amz-server-side-encryption-bucket-key-
  // enabled). False for the other modes.
  bool bucket_key_enabled = false;
  bool operator==(const DefaultSse&) const = default;
};

// The bucket's rule when it has one (AES256: kSseS3; aws:kms: kSseKms with its key id and
// bucket-key flag); else kSseS3 when options.default_sse_s3 (--default-encryption AES256); else
// kNone. Whether the mode can be served (options.keys, options.kms set) is the caller's question.
// Thread-safe; no I/O.
DefaultSse BucketDefaultEncryption(const storage::BucketRecord& bucket,
                                   const ServiceOptions& options);

}  // namespace cubby::s3api
