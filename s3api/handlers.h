// Internal to s3api: what every per-action handler gets, and the handlers themselves, one file
// per family (bucket.cc, object.cc, list.cc, acl.cc). Handlers run after routing,
// authentication and authorization; they never throw and return the complete response (the
// service adds x-amz-request-id and x-amz-id-2).
#pragma once

#include <cassert>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "iam/acl.h"
#include "iam/authorize.h"
#include "s3api/auth/auth.h"
#include "s3api/auth/checksum.h"
#include "s3api/http.h"
#include "s3api/router.h"
#include "s3api/service.h"
#include "s3api/xml.h"
#include "storage/store.h"
#include "text/ascii.h"

namespace cubby::s3api {

// The canonical owner cubby reports (one appliance, one owner).
inline constexpr std::string_view kOwnerId =
    "6375626279000000000000000000000000000000000000000000000000000000";
inline constexpr std::string_view kOwnerDisplayName = "cubby";

// The raw request body, counted (RequestSummary::bytes_in).
class CountingBodyReader : public BodyReader {
 public:
  explicit CountingBodyReader(BodyReader& inner) : inner_(inner) {}
  ReadResult Read(char* buf, size_t n) override;
  uint64_t count() const { return count_; }

 private:
  BodyReader& inner_;
  uint64_t count_ = 0;
};

struct Context {
  const HttpRequest& request;
  CountingBodyReader& raw_body;
  const Route& route;
  const auth::AuthResult& auth;
  storage::Store* store;
  const ServiceOptions& options;
  std::chrono::system_clock::time_point now;
  RequestSummary* summary;  // never null; ErrorResponse records the error in it
  const iam::Authorizer* authorizer = nullptr;  // the service's; null (tests): one per question
  const auth::KeyLookup* key_lookup = nullptr;   // the service's; PostObject authenticates with it

  bool head() const { return request.method == "HEAD"; }
  int64_t now_ms() const;
  // The body with the payload protection of `auth` enforced (sha256 checked at end of body,
  // aws-chunked decoded and its signatures verified), with its trailers.
  std::unique_ptr<auth::PayloadReader> Body() const;
};

// The error document for `code` (no body for HEAD), Content-Type application/xml. Records the
// code in ctx.summary.
HttpResponse ErrorResponse(const Context& ctx, ErrorCode code, std::string_view message = {});
// storage → S3, the one mapping (exhaustive switch).
ErrorCode FromStorage(storage::Code code);
// The S3 error for a storage failure; for internal failures storage's message goes to
// summary->error_detail (the log), never into the response.
HttpResponse StorageError(const Context& ctx, const storage::Status& status);
HttpResponse XmlResponse(std::string body, int status = 200);
// 204 No Content.
HttpResponse NoContent();

// The outcome of a handler's step that either succeeds with nothing to return or fails with the
// complete error response to send (an ErrorResponse or StorageError). [[nodiscard]]: dropping a
// Failure is a compiler warning, so an error cannot be lost by accident.
//   if (Failure failure = PutCondition(ctx, &cond)) return failure.TakeResponse();
class [[nodiscard]] Failure {
 public:
  // No failure: the step succeeded.
  Failure() = default;
  static Failure None() { return Failure(); }
  // Failed with `response`. Implicit, so that a step returns ErrorResponse(...) as it is.
  Failure(HttpResponse response) : response_(std::move(response)) {}

  // True if the step failed.
  explicit operator bool() const { return response_.has_value(); }
  // The error response. REQUIRES: the step failed.
  const HttpResponse& response() const {
    assert(response_);
    return *response_;
  }
  HttpResponse TakeResponse() {
    assert(response_);
    return std::move(*response_);
  }

 private:
  std::optional<HttpResponse> response_;
};

// Changes the bucket's record as one step (storage::Store::UpdateBucket): `change` edits the
// record, or refuses with the response to answer, and then nothing is written. A storage error
// is a StorageError. `change` runs while the bucket is locked: it reads no request body.
Failure ChangeBucket(const Context& ctx,
                     const std::function<Failure(storage::BucketRecord*)>& change);
// ChangeBucket, answered: the refusal or storage error, else an empty answer with `status`
// (200 for a Put, 204 for a Delete).
HttpResponse AnswerBucketChange(const Context& ctx,
                                const std::function<Failure(storage::BucketRecord*)>& change,
                                int status = 200);

// The request's bucket record for a setting read on every write or read (lifecycle rules, the
// default retention): the Authorizer's cached copy, current as of the store's AccessGeneration,
// so the hot path does no store read; a read when there is no Authorizer (tests). lifecycle.cc.
storage::Result<std::shared_ptr<const storage::BucketRecord>> RequestBucket(const Context& ctx);

// Reads a small request body (XML) of at most kMaxRequestXmlBytes. kNone on success; the body's
// own error (XAmzContentSHA256Mismatch, IncompleteBody, ...) or MalformedXML when too large.
ErrorCode ReadSmallBody(const Context& ctx, std::string* out);
// As ReadSmallBody, for the calls whose body S3 requires an integrity check on (DeleteObjects,
// PutBucketLifecycleConfiguration): Content-MD5 or an x-amz-checksum-* (header, or trailer with
// x-amz-sdk-checksum-algorithm), verified; neither is InvalidRequest "Missing required header
// for this request: Content-Md5". kNone, or the error with *message (empty: the table's).
// delete_objects.cc.
ErrorCode ReadVerifiedSmallBody(const Context& ctx, std::string* out, std::string* message);
// The small XML body of a configuration call, read (ReadVerifiedSmallBody when `verified`, else
// ReadSmallBody) and parsed into *out by `parse(body, args..., out)`, which answers an
// XmlBodyError: the read's or the parser's error as the Failure.
//   if (Failure f = ReadXmlBody(ctx, kDigestRequired, &tags, ParseTagging, TagTarget::kBucket))
template <typename T, typename Parse, typename... Args>
Failure ReadXmlBody(const Context& ctx, bool verified, T* out, Parse&& parse, Args&&... args) {
  std::string body, message;
  const ErrorCode read =
      verified ? ReadVerifiedSmallBody(ctx, &body, &message) : ReadSmallBody(ctx, &body);
  if (read != ErrorCode::kNone) return ErrorResponse(ctx, read, message);
  if (auto e = parse(std::string_view(body), std::forward<Args>(args)..., out); !e.ok()) {
    return ErrorResponse(ctx, e.code, e.message);
  }
  return Failure::None();
}
// ReadXmlBody's `verified`, by name.
constexpr bool kDigestRequired = true;
constexpr bool kDigestOptional = false;

// The one authorization question (iam::Authorizer::Authorize) asked for the caller of `ctx`:
// kNone when allowed, else the error to answer (AccessDenied; NoSuchBucket for an anonymous
// caller on a missing bucket; the storage error when the bucket could not be read). The service
// asks it once per request before the handler; handlers ask it again only for what the request
// names besides its own bucket and key (the source of a copy, each key of DeleteObjects).
// The request's condition keys (iam::RequestFacts) are computed from ctx (its headers are read
// only when a condition asks), with `body`'s for the keys that come from a body.
// CreateBucket and PutObjectTagging are authorized by their handler once it has read the body
// (the service skips them): the keys s3:LocationConstraint and s3:RequestObjectTag come from it.
struct BodyFacts {
  std::optional<std::string_view> location_constraint;  // CreateBucket's, "" when none given
  const std::vector<std::pair<std::string, std::string>>* tags = nullptr;  // PutObjectTagging's
};
ErrorCode Authorize(const Context& ctx, iam::Action action, const iam::Resource& resource,
                    const BodyFacts& body);
inline ErrorCode Authorize(const Context& ctx, iam::Action action, const iam::Resource& resource) {
  return Authorize(ctx, action, resource, BodyFacts{});
}
// Authorize for the request's own action on its bucket and key (what the service asks before
// every handler but those above). service.cc.
ErrorCode AuthorizeRequest(const Context& ctx, const BodyFacts& body = {});

// An owner as S3 writes it (<Owner><ID/><DisplayName/></Owner>).
struct OwnerName {
  std::string id;
  std::string display_name;
};
// The owner of the request's bucket (ctx.route.bucket): its user's canonical id and display
// name; kOwnerId and kOwnerDisplayName for a bucket without an owner (tests plant them) or whose
// user is gone. Objects are reported as owned by their bucket's owner until object ownership is
// enforced. Costs a bucket and a user read.
OwnerName BucketOwnerName(const Context& ctx);
// The user `user_id` as an owner; BucketOwnerName when `user_id` is empty or its user is gone.
OwnerName UserOwnerName(const Context& ctx, std::string_view user_id);
void WriteOwner(XmlWriter& w, std::string_view element, const OwnerName& owner);

// x-amz-expected-bucket-owner (of the request's bucket) and x-amz-source-expected-bucket-owner
// (of a copy's source bucket): kNone when `header` is absent, names the owner of `bucket`, or
// the bucket does not exist (the handler answers NoSuchBucket); otherwise kAccessDenied, as S3
// answers (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucket-owner-condition.html).
// Every cubby user is its own "account": the owner is named by its canonical id; root's
// buckets also by the data folder's 12-digit account id (the id in users' ARNs), which is what
// AWS tools pass.
ErrorCode CheckExpectedBucketOwner(const Context& ctx, std::string_view header,
                                   std::string_view bucket);
inline constexpr std::string_view kExpectedBucketOwner = "x-amz-expected-bucket-owner";
inline constexpr std::string_view kSourceExpectedBucketOwner = "x-amz-source-expected-bucket-owner";

// ---- Shared by the object handlers (object.cc).
inline constexpr uint64_t kMaxObjectBytes = 5ull << 30;  // 5 GiB: single PUT, copy source, part
inline constexpr size_t kCopyBufferBytes = 256 << 10;

// A new object's steps and its write (MetaFromHeaders, PutCondition, WriteError, ...):
// new_object.h.

// x-amz-version-id of an object version in a response: its id, or "null" for the null
// version of a bucket whose versioning was ever set; nothing in a bucket never versioned.
// `header` and `bucket` name another header and bucket (a copy's source).
void SetVersionIdHeader(const Context& ctx, std::string_view version_id, HttpResponse* r,
                        std::string_view header = "x-amz-version-id",
                        std::string_view bucket = {});
// The response for a storage failure of a read or change of the version ctx.route names
// (version_id, else the latest): a malformed id is InvalidArgument "Invalid version id
// specified"; a delete marker (storage's kNoSuchKey) is 405 MethodNotAllowed when named by id
// and 404 NoSuchKey when it is the latest, both with x-amz-delete-marker; else as StorageError.
HttpResponse VersionReadError(const Context& ctx, const storage::Status& status);
// x-amz-bypass-governance-retention: true, from a caller allowed s3:BypassGovernanceRetention
// on object `key` of the request's bucket
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock-managing.html#object-lock-managing-bypass).
bool BypassGovernance(const Context& ctx, std::string_view key);
// The checksum type of a stored checksum value: a multipart COMPOSITE value carries
// "-<parts>" (base64 itself never contains '-'), anything else is FULL_OBJECT.
std::string_view ChecksumType(std::string_view value);
// The stored x-amz-checksum-<alg> and x-amz-checksum-type of an object or part.
void SetChecksumHeaders(const std::map<std::string, std::string>& checksums, HttpResponse* r);

// The size a PutObject or UploadPart body declares: x-amz-decoded-content-length for an
// aws-chunked body, else Content-Length; 0 when unknown (chunked transfer-encoding), malformed,
// or for any other operation. service.cc.
uint64_t KnownBodySize(const Context& ctx);

// ---- Receiving an object or part body (integrity.cc).
struct ReceivedBody {
  uint64_t size = 0;
  std::string md5;            // raw 16 bytes
  std::string checksum_name;  // "CRC32", ...; empty when no checksum was named or required
  std::string checksum_b64;   // its value, verified against the header or trailer if sent
};
using BodySink = std::function<storage::Status(std::string_view)>;
// Streams the request body into `sink`, never buffering it whole. The declared size is
// x-amz-decoded-content-length for aws-chunked bodies, else Content-Length (MissingContentLength
// when neither nor chunked transfer-encoding); above `max_size` → EntityTooLarge. Verifies
// Content-MD5 (InvalidDigest / BadDigest), x-amz-checksum-* header or trailer (InvalidRequest /
// BadDigest), the payload hash or chunk signatures, and the length (IncompleteBody).
// `required`: the algorithm the part of a multipart upload must carry (computed when the request
// names none; another one is InvalidRequest). Returns the failure, or Failure::None() with *out.
// Any error happens before the caller commits, so nothing is stored.
// Threads: a body declared (or, of unknown size, seen) larger than kReceiveOverlapBytes is
// hashed with MD5 on a second thread, in pieces of kReceivePieceBytes, while this one receives
// and stores it. `sink` is always called on the calling thread, with each piece as it is read
// (at most kReceivePieceBytes). The second thread is joined before ReceiveBody returns, on
// every path; memory stays a few MiB per call.
inline constexpr uint64_t kReceiveOverlapBytes = 4 << 20;
inline constexpr size_t kReceivePieceBytes = 256 << 10;
Failure ReceiveBody(const Context& ctx, uint64_t max_size,
                    std::optional<auth::ChecksumAlgorithm> required, const BodySink& sink,
                    ReceivedBody* out);
// ReceiveBody's two halves, for a body whose integrity headers are not the request's own (a POST
// form's file, whose fields stand for them).
// Content-MD5 of `request` (raw 16 bytes into *expected_md5, empty when absent; InvalidDigest
// when malformed) and its x-amz-checksum-* (*spec; InvalidRequest as ParseChecksumHeaders).
Failure ReadIntegrityHeaders(const Context& ctx, const HttpRequest& request,
                             std::string* expected_md5, std::optional<auth::ChecksumSpec>* spec);
// Streams `reader` (the object's bytes, through `checksum` when not null) into `sink` with MD5
// as ReceiveBody does (on a second thread once past kReceiveOverlapBytes; `length`, when known,
// decides at the start) and fills *out: size, md5 and the checksum computed. A read error is
// answered with `checksum`'s message, else `payload`'s; more than `max_size` bytes is
// EntityTooLarge. The caller compares out->md5 with what it expects.
Failure ReceiveStream(const Context& ctx, BodyReader& reader, const auth::PayloadReader& payload,
                      const auth::ChecksumReader* checksum, std::optional<uint64_t> length,
                      uint64_t max_size, const BodySink& sink, ReceivedBody* out);

// ---- Copy sources (copy.cc), for CopyObject and UploadPartCopy.
struct CopySource {
  std::string bucket;
  std::string key;
  std::optional<std::string> version_id;  // "?versionId=": that version, else the current one
};
// Parses x-amz-copy-source ("/bucket/key" or "bucket/key", URL-encoded, optional
// "?versionId=..."), checks read access (s3:GetObject, or s3:GetObjectVersion with a version
// id) and source preconditions (x-amz-copy-source-if-*), and opens the source. A source that is
// a delete marker is NoSuchKey (the latest version) or InvalidRequest (named by id). Returns
// the failure, or Failure::None() with *reader set.
Failure OpenCopySource(const Context& ctx, CopySource* source,
                       std::unique_ptr<storage::ObjectReader>* reader);
// x-amz-copy-source-version-id: the version a copy read (see SetVersionIdHeader).
void SetCopySourceVersionHeader(const Context& ctx, const CopySource& source,
                                const storage::ObjectMeta& read, HttpResponse* r);
// Copies `length` bytes from `reader`'s position into `sink` in pieces, hashing with MD5 (and
// `checksum` when not null). Storage errors come back as the failure.
Failure CopyBytes(const Context& ctx, storage::ObjectReader& reader, uint64_t length,
                  const BodySink& sink, std::string* md5, auth::Checksummer* checksum);

// acl.cc: the grantee resolver of a request (e-mail addresses and ids of stored users), its
// x-amz-acl / x-amz-grant-* headers, and the owner and ACL of an object it writes (PutObject,
// CopyObject, CreateMultipartUpload): the owner by the bucket's object ownership
// (iam::NewObjectOwner; an anonymous writer's object is the bucket owner's), the ACL the headers
// ask for (none of its own without headers). Failures: the ACL errors (InvalidArgument,
// InvalidRequest, UnresolvableGrantByEmailAddress, AccessControlListNotSupported, AccessDenied
// by BlockPublicAcls) and the bucket read's.
iam::GranteeResolver Resolver(const Context& ctx);
iam::AclRequestHeaders AclHeadersOf(const HttpRequest& request);
Failure NewObjectAccess(const Context& ctx, storage::ObjectMeta* meta);
// The anonymous mode an ACL's AllUsers grants stand for (READ: readable, WRITE: writable,
// FULL_CONTROL: both); buckets keep it beside their ACL (COSI's anonymousBucketAccessMode).
storage::AccessMode AnonymousModeOf(const storage::AclRecord& acl);

// bucket.cc
HttpResponse ListBuckets(const Context& ctx);
HttpResponse CreateBucket(const Context& ctx);
HttpResponse HeadBucket(const Context& ctx);
HttpResponse DeleteBucket(const Context& ctx);
HttpResponse GetBucketLocation(const Context& ctx);
HttpResponse GetBucketVersioning(const Context& ctx);
HttpResponse PutBucketVersioning(const Context& ctx);
// acl.cc
HttpResponse GetBucketAcl(const Context& ctx);
HttpResponse PutBucketAcl(const Context& ctx);
HttpResponse GetObjectAcl(const Context& ctx);
HttpResponse PutObjectAcl(const Context& ctx);
// policy.cc
HttpResponse GetBucketPolicy(const Context& ctx);
HttpResponse PutBucketPolicy(const Context& ctx);
HttpResponse DeleteBucketPolicy(const Context& ctx);
HttpResponse GetBucketPolicyStatus(const Context& ctx);
// ownership.cc
HttpResponse GetBucketOwnershipControls(const Context& ctx);
HttpResponse PutBucketOwnershipControls(const Context& ctx);
HttpResponse DeleteBucketOwnershipControls(const Context& ctx);
// public_access_block.cc
HttpResponse GetPublicAccessBlock(const Context& ctx);
HttpResponse PutPublicAccessBlock(const Context& ctx);
HttpResponse DeletePublicAccessBlock(const Context& ctx);
// lifecycle.cc
HttpResponse GetBucketLifecycleConfiguration(const Context& ctx);
HttpResponse PutBucketLifecycleConfiguration(const Context& ctx);
HttpResponse DeleteBucketLifecycle(const Context& ctx);
// The x-amz-expiration header value for the current version `meta` of `key` in the request's
// bucket (ctx.route.bucket), under the bucket's lifecycle rules and ctx.options.lifecycle_day:
// expiry-date="<HTTP date>", rule-id="<id>" (lifecycle::ExpirationHeader). nullopt when no
// enabled rule expires it, the bucket has no rules, or the bucket cannot be read (the header is
// advisory: a read failure never fails the request). Costs one bucket read. Callers add it
// only for a current version: PutObject, and GetObject / HeadObject without a versionId.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html#API_PutObject_ResponseSyntax
std::optional<std::string> ExpirationHeaderFor(const Context& ctx, std::string_view key,
                                               const storage::ObjectMeta& meta);
inline constexpr std::string_view kAmzExpiration = "x-amz-expiration";
// Sets x-amz-expiration on `r` when ExpirationHeaderFor answers one.
void SetExpirationHeader(const Context& ctx, std::string_view key, const storage::ObjectMeta& meta,
                         HttpResponse* r);
// CreateMultipartUpload's x-amz-abort-date (an HTTP date) and x-amz-abort-rule-id when an
// enabled AbortIncompleteMultipartUpload rule of the request's bucket selects `upload`
// (lifecycle::UploadAbortExpiry); nothing otherwise, or when the bucket cannot be read.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateMultipartUpload.html
void SetAbortHeaders(const Context& ctx, const storage::UploadRecord& upload, HttpResponse* r);

// object.cc
HttpResponse PutObject(const Context& ctx);
HttpResponse GetObject(const Context& ctx);  // GET and HEAD
HttpResponse DeleteObject(const Context& ctx);
// attributes.cc
HttpResponse GetObjectAttributes(const Context& ctx);
// copy.cc
HttpResponse CopyObject(const Context& ctx);
// delete_objects.cc
HttpResponse DeleteObjects(const Context& ctx);
// multipart.cc
HttpResponse CreateMultipartUpload(const Context& ctx);
HttpResponse UploadPart(const Context& ctx);
HttpResponse UploadPartCopy(const Context& ctx);
HttpResponse CompleteMultipartUpload(const Context& ctx);
HttpResponse AbortMultipartUpload(const Context& ctx);
HttpResponse ListParts(const Context& ctx);
HttpResponse ListMultipartUploads(const Context& ctx);
// object_lock.cc
HttpResponse GetObjectLockConfiguration(const Context& ctx);
HttpResponse PutObjectLockConfiguration(const Context& ctx);
HttpResponse GetObjectRetention(const Context& ctx);
HttpResponse PutObjectRetention(const Context& ctx);
HttpResponse GetObjectLegalHold(const Context& ctx);
HttpResponse PutObjectLegalHold(const Context& ctx);
// The object lock of the version a write makes (PutObject, CopyObject, CreateMultipartUpload,
// whose upload carries it to CompleteMultipartUpload): the x-amz-object-lock-* headers
// (ParseObjectLockHeaders' errors), with the bucket's default retention when they name no
// retention. Sets meta->lock, or leaves it unset on a bucket without object lock. Errors:
// InvalidRequest "Bucket is missing Object Lock Configuration" for lock headers on such a
// bucket; on PutObject, InvalidRequest "Content-MD5 OR x-amz-checksum- HTTP header is required
// for Put Object requests with Object Lock parameters" when the version would be locked and
// the request has no Content-MD5, x-amz-checksum-* (header or trailer) or
// x-amz-sdk-checksum-algorithm. Reads the bucket record only for a versioning-enabled bucket
// or when lock headers are sent.
Failure NewObjectLock(const Context& ctx, storage::ObjectMeta* meta);
// tagging.cc
HttpResponse GetObjectTagging(const Context& ctx);
HttpResponse PutObjectTagging(const Context& ctx);
HttpResponse DeleteObjectTagging(const Context& ctx);
HttpResponse GetBucketTagging(const Context& ctx);
HttpResponse PutBucketTagging(const Context& ctx);
HttpResponse DeleteBucketTagging(const Context& ctx);
// The tags of the object a write makes, into meta->tags. PutObject and CreateMultipartUpload
// (source null): the x-amz-tagging header's (tagging.h's ParseTaggingHeader errors), none
// without it. CopyObject (source: the object copied): x-amz-tagging-directive COPY (the
// default) keeps the source's tags, REPLACE takes the header's; another directive is
// InvalidArgument "Unknown tagging directive.". Tags asked for also need s3:PutObjectTagging
// on the key (AccessDenied), as S3 requires.
Failure NewObjectTags(const Context& ctx, const storage::ObjectMeta* source,
                      storage::ObjectMeta* meta);
// x-amz-tagging-count on a GET / HEAD of an object with tags.
void SetTaggingCountHeader(const storage::ObjectMeta& meta, HttpResponse* r);
// post_object.cc: POST Object, a browser form upload (form_data.h, post_policy.h). Authenticates
// from the form (ctx.auth is anonymous: the service let it through), authorizes s3:PutObject on
// the form's key, and stores the file as PutObject does.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/RESTObjectPOST.html
HttpResponse PostObject(const Context& ctx);
// bucket_subresources.cc: every operation on a bucket sub-resource cubby keeps no configuration
// for (website, logging, notification, requestPayment, accelerate, replication, analytics,
// metrics, inventory, intelligent-tiering): NoSuchBucket for a missing bucket, else
// S3's answer for a bucket without that configuration (Get, List, Delete) or NotImplemented (Put).
HttpResponse UnconfiguredBucketSubresource(const Context& ctx);
// bucket_encryption.cc: default encryption (its errors there).
HttpResponse GetBucketEncryption(const Context& ctx);
HttpResponse PutBucketEncryption(const Context& ctx);
HttpResponse DeleteBucketEncryption(const Context& ctx);
// cors.cc
HttpResponse GetBucketCors(const Context& ctx);
HttpResponse PutBucketCors(const Context& ctx);
HttpResponse DeleteBucketCors(const Context& ctx);
// The preflight: cors.h AnswerPreflight over the request's bucket (RequestBucket: the
// Authorizer's cached record), 200 with the rule's headers or the refusal; an AccessForbidden
// document names <Method> and <ResourceType> (BUCKET or OBJECT) as S3's does.
HttpResponse OptionsObject(const Context& ctx);
// Adds to `r` the CORS headers of the request's bucket for a request with an Origin header
// (cors.h ActualRequestCorsHeaders), whatever the answer: S3 adds them to errors too. Called once
// per request, by the service, after the pipeline; without an Origin it reads nothing. The rules
// come from the Authorizer's cached record (no store read while it is current); a bucket that
// cannot be read gets no headers.
void SetCorsHeaders(const Context& ctx, HttpResponse* r);
// list.cc
HttpResponse ListObjects(const Context& ctx);
HttpResponse ListObjectsV2(const Context& ctx);
HttpResponse ListObjectVersions(const Context& ctx);

}  // namespace cubby::s3api
