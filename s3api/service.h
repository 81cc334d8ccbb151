// S3Service: the S3 API as a plain function from request (+ body) to response.
// Flow per request (Garage's order): route → authenticate → authorize the key's rights on the
// bucket → one exhaustive dispatch to one function per AWS action.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "lifecycle/lifecycle.h"
#include "s3api/http.h"
#include "storage/access_records.h"
#include "storage/store.h"

namespace cubby::iam {
class Authorizer;
}

namespace cubby::crypt {
struct ServiceKeys;
}
namespace cubby::kms {
class KeyService;
}

namespace cubby::s3api {

// What a request turned out to be, for the server's log line and metrics.
struct RequestSummary {
  std::string operation;  // AWS action name, e.g. "PutObject"; "Unknown" if unrouted
  std::string bucket;
  std::string key;
  std::string access_key_id;  // empty when anonymous
  uint64_t bytes_in = 0;      // request body bytes consumed
  std::string error;          // S3 error code answered ("NoSuchKey"); empty on success
  std::string error_detail;   // for 5xx: the underlying failure, for the log (never secrets)
};

// The front doors one listener serves, told apart by the request alone: the server's
// endpoints under kAdminPathPrefix (health, metrics, backup, quotas), KMS (IsKmsRequest), the
// IAM API (IsIamRequest), and S3 for everything else.
inline constexpr std::string_view kAdminPathPrefix = "/_cubby/";
enum class FrontDoor { kAdmin, kKms, kIam, kS3 };
FrontDoor PickFrontDoor(const HttpRequest& request);

using RequestHandler =
    std::function<HttpResponse(const HttpRequest&, BodyReader&, RequestSummary*)>;

struct ServiceOptions {
  std::string region = "us-east-1";
  std::string domain;  // "" disables virtual-hosted-style; else "<bucket>.<domain>" hosts
  // A new bucket's object ownership when CreateBucket sends no x-amz-object-ownership
  // (--default-object-ownership): ObjectWriter, ACLs enabled.
  storage::ObjectOwnership default_object_ownership = storage::ObjectOwnership::kObjectWriter;
  // How long a lifecycle day lasts (--lifecycle-day-seconds): what x-amz-expiration computes
  // with; the server's lifecycle worker uses the same.
  std::chrono::seconds lifecycle_day = lifecycle::kDay;
  // Encryption at rest. keys: the SSE-S3 root KEK (crypt/service_keys.h), null when
  // the server runs without a keyring (tests): SSE-S3 requests are then refused. kms: the
  // built-in key store (kms/kms.h), null: SSE-KMS refused. Both must outlive the service.
  const crypt::ServiceKeys* keys = nullptr;
  kms::KeyService* kms = nullptr;
  // --default-encryption AES256: objects written with no encryption header to a bucket with no
  // encryption configuration are SSE-S3.
  bool default_sse_s3 = false;
  // --allow-sse-c-over-http: SSE-C over plain HTTP is accepted (AWS refuses it; tests allow it).
  bool allow_sse_c_over_http = false;
  std::function<std::chrono::system_clock::time_point()> clock = [] {
    return std::chrono::system_clock::now();
  };
  // The server's kAdminPathPrefix endpoints; null (tests): those paths are S3 paths.
  RequestHandler admin;
};

class S3Service {
 public:
  // `store` must outlive the service. Thread-safe: Handle may run on many threads at once.
  S3Service(storage::Store* store, ServiceOptions options);
  ~S3Service();

  // Picks the front door (PickFrontDoor) and serves the request there. Never throws.
  // `request.request_id` must be set (error documents carry it; the server stamps the
  // x-amz-request-id and x-amz-id-2 headers). The body is read only as far as the operation needs
  // (errors answered before or while reading leave the rest unread); the server drains what is left
  // or closes the connection. `summary` may be null.
  HttpResponse Handle(const HttpRequest& request, BodyReader& body, RequestSummary* summary);

  // The one Authorizer of every front door: the S3 API, IAM and KMS here, and the server's
  // /_cubby/ admin endpoints.
  const iam::Authorizer& authorizer() const { return *authorizer_; }

 private:
  storage::Store* store_;
  ServiceOptions options_;
  std::unique_ptr<iam::Authorizer> authorizer_;  // one per service: it caches parsed policies
};

}  // namespace cubby::s3api
