// Internal to s3api: what every per-action handler gets, and the handlers themselves, one file
// per family (bucket.cc, object.cc, list.cc, acl.cc). Handlers run after routing,
// authentication and authorization; they never throw and return the complete response (the
// service adds x-amz-request-id and x-amz-id-2).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "s3api/auth/auth.h"
#include "s3api/http.h"
#include "s3api/router.h"
#include "s3api/service.h"
#include "storage/store.h"

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

  bool head() const { return request.method == "HEAD"; }
  int64_t now_ms() const;
  // The body with the payload protection of `auth` enforced (sha256 checked at end of body).
  std::unique_ptr<BodyReader> Body() const;
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

// Reads a small request body (XML) of at most kMaxRequestXmlBytes. kNone on success; the body's
// own error (XAmzContentSHA256Mismatch, IncompleteBody, ...) or MalformedXML when too large.
ErrorCode ReadSmallBody(const Context& ctx, std::string* out);

// S3 bucket naming rules:
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
bool IsValidBucketName(std::string_view name);
// Maps a canned ACL (x-amz-acl) on a bucket to its anonymous mode: private → kNone,
// public-read → kReadOnly, public-read-write → kReadWrite. kNotImplemented for the other AWS
// canned ACLs (authenticated-read, ...), kInvalidArgument for a name that is no canned ACL.
ErrorCode CannedBucketAcl(std::string_view acl, storage::AccessMode* mode);
// The error response for a CannedBucketAcl failure.
HttpResponse CannedAclError(const Context& ctx, ErrorCode error, std::string_view acl);

// bucket.cc
HttpResponse ListBuckets(const Context& ctx);
HttpResponse CreateBucket(const Context& ctx);
HttpResponse HeadBucket(const Context& ctx);
HttpResponse DeleteBucket(const Context& ctx);
HttpResponse GetBucketLocation(const Context& ctx);
HttpResponse GetBucketVersioning(const Context& ctx);
// acl.cc
HttpResponse GetBucketAcl(const Context& ctx);
HttpResponse PutBucketAcl(const Context& ctx);
HttpResponse GetObjectAcl(const Context& ctx);
// object.cc
HttpResponse PutObject(const Context& ctx);
HttpResponse GetObject(const Context& ctx);  // GET and HEAD
HttpResponse DeleteObject(const Context& ctx);
// list.cc
HttpResponse ListObjects(const Context& ctx);
HttpResponse ListObjectsV2(const Context& ctx);

}  // namespace cubby::s3api
