#include "server/quota_admin.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "s3api/auth/auth.h"
#include "s3api/errors.h"
#include "server/admin.h"
#include "text/ascii.h"
#include "text/json.h"
#include "text/uri.h"

namespace cubby::server {
namespace {

using storage::Code;
using storage::Status;

void AppendLimit(const std::optional<uint64_t>& limit, std::string* out) {
  *out += limit ? std::to_string(*limit) : "null";
}

// One member's limit: null, or a plain non-negative integer that fits 64 bits.
Status ParseLimit(std::string_view name, const text::JsonValue& value,
                  std::optional<uint64_t>* out) {
  if (value.type == text::JsonType::kNull) {
    out->reset();
    return Status::Ok();
  }
  uint64_t n = 0;
  if (value.type != text::JsonType::kNumber || !text::ParseUint64(value.text, &n)) {
    return Status(Code::kInvalidArgument,
                  "\"" + std::string(name) +
                      "\" must be null or a whole number from 0 to 18446744073709551615 "
                      "written without sign, fraction or exponent");
  }
  *out = n;
  return Status::Ok();
}

// The request's body through the payload protection of `auth`, at most kMaxQuotaBodyBytes.
// kNone, or the body's error (*message its detail).
s3api::ErrorCode ReadBody(s3api::BodyReader& raw, const s3api::auth::AuthResult& auth,
                          std::string* out, std::string* message) {
  class Ref : public s3api::BodyReader {
   public:
    explicit Ref(s3api::BodyReader& inner) : inner_(inner) {}
    s3api::ReadResult Read(char* buf, size_t n) override { return inner_.Read(buf, n); }

   private:
    s3api::BodyReader& inner_;
  };
  std::unique_ptr<s3api::auth::PayloadReader> body =
      s3api::auth::WrapBody(auth, std::make_unique<Ref>(raw));
  char buf[1024];
  for (;;) {
    s3api::ReadResult r = body->Read(buf, sizeof(buf));
    if (r.error != s3api::ErrorCode::kNone) {
      *message = std::string(body->error_message());
      return r.error;
    }
    if (r.n == 0) return s3api::ErrorCode::kNone;
    out->append(buf, r.n);
    if (out->size() > kMaxQuotaBodyBytes) {
      *message = "the body is larger than " + std::to_string(kMaxQuotaBodyBytes) + " bytes";
      return s3api::ErrorCode::kInvalidArgument;
    }
  }
}

}  // namespace

storage::Result<storage::BucketQuota> ParseQuotaJson(std::string_view json) {
  text::JsonValue doc;
  text::JsonError error;
  if (!text::ParseJson(json, kMaxQuotaBodyBytes, &doc, &error)) {
    return Status(Code::kInvalidArgument, "the body is not JSON: " + error.reason + " at byte " +
                                              std::to_string(error.offset));
  }
  if (doc.type != text::JsonType::kObject) {
    return Status(Code::kInvalidArgument,
                  "the body must be a JSON object: {\"bytes\": N | null, \"objects\": M | null}");
  }
  if (std::optional<std::string_view> twice = doc.FindDuplicate()) {
    return Status(Code::kInvalidArgument, "\"" + std::string(*twice) + "\" is given twice");
  }
  storage::BucketQuota quota;
  for (const text::JsonMember& member : doc.members) {
    Status s;
    if (member.name == "bytes") {
      s = ParseLimit(member.name, member.value, &quota.bytes);
    } else if (member.name == "objects") {
      s = ParseLimit(member.name, member.value, &quota.objects);
    } else {
      std::string name;
      text::AppendJsonString(member.name, &name);
      s = Status(Code::kInvalidArgument,
                 "unknown member " + name + ": only \"bytes\" and \"objects\" are allowed");
    }
    if (!s.ok()) return s;
  }
  return quota;
}

std::string QuotaJson(const storage::BucketRecord& bucket, const storage::BucketStats& usage) {
  std::string out = "{\"bucket\":";
  text::AppendJsonString(bucket.name, &out);
  out += ",\"quota\":{\"bytes\":";
  AppendLimit(bucket.quota.bytes, &out);
  out += ",\"objects\":";
  AppendLimit(bucket.quota.objects, &out);
  out += "},\"usage\":{\"bytes\":" + std::to_string(usage.bytes) +
         ",\"objects\":" + std::to_string(usage.objects) + "}}";
  return out;
}

s3api::HttpResponse HandleQuotaRequest(const s3api::HttpRequest& request, s3api::BodyReader& body,
                                       const AdminDoor& door) {
  storage::Store& store = door.store;
  const std::string& method = request.method;
  if (method != "GET" && method != "PUT" && method != "DELETE") {
    s3api::HttpResponse response = AdminError(s3api::ErrorCode::kMethodNotAllowed);
    response.Set("Allow", "GET, PUT, DELETE");
    return response;
  }
  const std::vector<text::NameValue> params = AdminQuery(request);
  const std::string* bucket = text::FindValue(params, "bucket");
  const std::string_view action = method == "GET"   ? "cubby:GetBucketQuota"
                                  : method == "PUT" ? "cubby:PutBucketQuota"
                                                    : "cubby:DeleteBucketQuota";
  std::string message;
  s3api::auth::AuthResult auth;
  if (s3api::ErrorCode denied =
          Admit(request, door, action, AdminResource(bucket), &message, &auth);
      denied != s3api::ErrorCode::kNone) {
    return AdminError(denied, message);
  }

  if (bucket == nullptr && method == "GET") {
    storage::Result<std::vector<storage::BucketRecord>> buckets = store.ListBuckets();
    if (!buckets.ok()) return AdminStorageError(buckets.status());
    std::string out = "{\"buckets\":[";
    for (const storage::BucketRecord& record : *buckets) {
      storage::Result<storage::BucketStats> usage = store.GetBucketStats(record.name);
      // Deleted since the listing: not in the answer.
      if (!usage.ok() && usage.status().code() == Code::kNoSuchBucket) continue;
      if (!usage.ok()) return AdminStorageError(usage.status());
      if (out.back() != '[') out += ",";
      out += QuotaJson(record, *usage);
    }
    out += "]}";
    return AdminJson(200, std::move(out));
  }
  if (bucket == nullptr || bucket->empty()) {
    return AdminError(s3api::ErrorCode::kInvalidArgument,
                      "the bucket query parameter (a bucket name) is required");
  }

  if (method == "PUT" || method == "DELETE") {
    storage::BucketQuota quota;  // DELETE: none
    if (method == "PUT") {
      std::string doc;
      if (s3api::ErrorCode e = ReadBody(body, auth, &doc, &message); e != s3api::ErrorCode::kNone) {
        return AdminError(e, message);
      }
      storage::Result<storage::BucketQuota> parsed = ParseQuotaJson(doc);
      if (!parsed.ok()) return AdminStorageError(parsed.status());
      quota = *parsed;
    }
    Status s = store.UpdateBucket(*bucket, [&quota](storage::BucketRecord* record) {
      record->quota = quota;
      return Status::Ok();
    });
    if (!s.ok()) return AdminStorageError(s);
    if (method == "DELETE") {
      s3api::HttpResponse response;
      response.status = 204;
      response.Set("Cache-Control", "no-store");
      return response;
    }
  }
  storage::Result<storage::BucketRecord> record = store.GetBucket(*bucket);
  if (!record.ok()) return AdminStorageError(record.status());
  storage::Result<storage::BucketStats> usage = store.GetBucketStats(*bucket);
  if (!usage.ok()) return AdminStorageError(usage.status());
  return AdminJson(200, QuotaJson(*record, *usage));
}

}  // namespace cubby::server
