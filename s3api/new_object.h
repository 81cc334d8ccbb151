// The one write path of a new object. PutObject, PostObject and CopyObject describe the object
// their request asks for (a NewObject, built by DescribeNewObject's steps in the order each of
// them checks its request: that order is what its clients see) and store it with WriteNewObject;
// CreateMultipartUpload describes the object its upload completes into.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html
#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "s3api/auth/checksum.h"
#include "s3api/handlers.h"
#include "s3api/sse.h"
#include "storage/records.h"
#include "storage/store.h"

namespace cubby::s3api {

inline constexpr std::string_view kMetaPrefix = "x-amz-meta-";

// A new object as its request describes it: object ctx.route.key of bucket ctx.route.bucket.
struct NewObject {
  // Content headers, user metadata, storage class, owner and ACL, lock, tags. WriteNewObject adds
  // the size, the ETag, the checksum, the encryption record and the time.
  storage::ObjectMeta meta;
  SseRequest sse;                // the encryption asked for (kEncryption)
  storage::WriteCondition cond;  // If-None-Match, If-Match (kCondition)
  WriteKey data_key;             // the key the bytes are sealed with (kDataKey)
  // CopyObject: the object copied, whose tags the copy keeps unless x-amz-tagging-directive is
  // REPLACE (kTags). Null for the other writes.
  const storage::ObjectMeta* copy_source = nullptr;
};

// One step of a new object's description: each fills its part of the NewObject from ctx.request,
// or fails with the response to answer, the errors of the function it names.
enum class NewObjectStep {
  kContent,     // MetaFromHeaders: content headers, x-amz-meta-*, x-amz-storage-class
  kAccess,      // NewObjectAccess: the owner and the ACL (x-amz-acl, x-amz-grant-*)
  kLock,        // NewObjectLock: x-amz-object-lock-*, else the bucket's default retention
  kTags,        // NewObjectTags: x-amz-tagging (of a copy: x-amz-tagging-directive)
  kEncryption,  // SseRequestForWrite: x-amz-server-side-encryption*, else the bucket's default
  kCondition,   // PutCondition: If-None-Match, If-Match
  kDataKey,     // NewWriteKey: a fresh data key for the encryption chosen (KMS.* errors)
};

// Runs `steps` in the order given; Failure::None(), or the first step's failure.
// REQUIRES: kEncryption has run before kDataKey.
Failure DescribeNewObject(const Context& ctx, std::initializer_list<NewObjectStep> steps,
                          NewObject* object);

// Where a new object's bytes come from: a request body, a form's file, a copy source.
struct NewObjectBytes {
  // Streams the bytes into `sink` (plaintext: it seals them when the object is encrypted) and
  // fills *out: the size, the MD5, and the checksum computed (checksum_name empty: none).
  std::function<Failure(const BodySink& sink, ReceivedBody* out)> receive;
  // Optional: checks what was received once all of it is stored, before the commit.
  std::function<Failure(const ReceivedBody& received)> check = nullptr;
};

// Stores the object: opens a writer on ctx.route.bucket, receives the bytes through the seal of
// object->data_key, fills in the size, the ETag (SealedEtag), the encryption record, the time
// and, when the bytes came with one, the checksum (in place of any the description kept), checks
// the quota again with the size received against the usage now (CheckQuota: concurrent writers
// pass it by at most the writes in flight), and commits ctx.route.key under object->cond, whose
// failure is WriteError's answer. Nothing is committed on any failure (the writer's destructor
// drops the bytes stored). Failure::None() with *committed, the stored version's record.
// REQUIRES: the kDataKey step has run.
Failure WriteNewObject(const Context& ctx, NewObject* object, const NewObjectBytes& bytes,
                       storage::ObjectMeta* committed);

// The headers PutObject and PostObject answer a stored object with: ETag, its checksums
// (x-amz-checksum-<alg>, x-amz-checksum-type), x-amz-version-id (SetVersionIdHeader).
void SetNewObjectHeaders(const Context& ctx, const storage::ObjectMeta& committed, HttpResponse* r);

// The steps' own parts.
// Content headers (Content-Encoding without "aws-chunked") and x-amz-meta-* of the request, and
// StorageClassFromHeaders. kMetadataTooLarge when the user metadata exceeds 2 KiB.
ErrorCode MetaFromHeaders(const HttpRequest& request, storage::ObjectMeta* meta);
// x-amz-storage-class into *storage_class: empty when absent or STANDARD, else as given;
// kInvalidStorageClass for a name AWS does not have.
ErrorCode StorageClassFromHeaders(const HttpRequest& request, std::string* storage_class);
// x-amz-checksum-algorithm of a write whose bytes come with no checksum of their own
// (CopyObject, CreateMultipartUpload): *algorithm, nullopt when the header is absent;
// InvalidRequest for an algorithm S3 does not have.
Failure ChecksumAlgorithmFromHeaders(const Context& ctx,
                                     std::optional<auth::ChecksumAlgorithm>* algorithm);
// If-None-Match: * / If-Match on a write → *cond, or the failure (If-Match on a missing key is
// NoSuchKey, as AWS answers).
Failure PutCondition(const Context& ctx, storage::WriteCondition* cond);
// The response for a failed commit under `cond`: as StorageError, except that a failed If-Match
// because the key is gone is NoSuchKey.
HttpResponse WriteError(const Context& ctx, const storage::Status& status,
                        const storage::WriteCondition& cond);

}  // namespace cubby::s3api
