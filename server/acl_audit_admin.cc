#include "server/acl_audit_admin.h"

#include <vector>

#include "s3api/errors.h"
#include "server/admin.h"
#include "text/json.h"
#include "text/uri.h"

namespace cubby::server {
namespace {

void AppendVersions(const std::vector<iam::AuditedVersion>& versions, std::string* out) {
  *out += "[";
  for (const iam::AuditedVersion& v : versions) {
    if (out->back() != '[') *out += ",";
    *out += "{\"key\":";
    text::AppendJsonString(v.key, out);
    *out += ",\"version_id\":";
    text::AppendJsonString(v.version_id, out);
    *out += "}";
  }
  *out += "]";
}

}  // namespace

std::string AclAuditJson(const iam::BucketAclAudit& audit) {
  std::string out = "{\"bucket\":";
  text::AppendJsonString(audit.bucket, &out);
  out += ",\"public_bucket\":";
  out += audit.public_bucket ? "true" : "false";
  out += ",\"versions\":" + std::to_string(audit.versions);
  out += ",\"copied\":";
  AppendVersions(audit.copied, &out);
  out += ",\"implicit_count\":" + std::to_string(audit.implicit_count);
  out += ",\"implicit\":";
  AppendVersions(audit.implicit, &out);
  out += ",\"reset\":" + std::to_string(audit.reset) + "}";
  return out;
}

s3api::HttpResponse HandleAclAuditRequest(const s3api::HttpRequest& request,
                                          const AdminDoor& door) {
  storage::Store& store = door.store;
  const std::string& method = request.method;
  if (method != "GET" && method != "POST") {
    s3api::HttpResponse response = AdminError(s3api::ErrorCode::kMethodNotAllowed);
    response.Set("Allow", "GET, POST");
    return response;
  }
  const std::vector<text::NameValue> params = AdminQuery(request);
  const std::string* named = text::FindValue(params, "bucket");
  std::string message;
  if (s3api::ErrorCode denied =
          Admit(request, door, method == "GET" ? "cubby:GetAclAudit" : "cubby:ResetObjectAcls",
                AdminResource(named), &message);
      denied != s3api::ErrorCode::kNone) {
    return AdminError(denied, message);
  }
  const bool reset = text::FindValue(params, "reset") != nullptr;
  if (method == "POST" && !reset) {
    return AdminError(s3api::ErrorCode::kInvalidArgument,
                      "POST /_cubby/acl-audit resets ACLs and needs the reset parameter");
  }
  if (method == "GET" && reset) {
    return AdminError(s3api::ErrorCode::kInvalidArgument, "reset needs a POST");
  }
  std::vector<storage::BucketRecord> buckets;
  if (named != nullptr) {
    storage::Result<storage::BucketRecord> record = store.GetBucket(*named);
    if (!record.ok()) return AdminStorageError(record.status());
    buckets.push_back(std::move(record).value());
  } else {
    storage::Result<std::vector<storage::BucketRecord>> all = store.ListBuckets();
    if (!all.ok()) return AdminStorageError(all.status());
    buckets = std::move(all).value();
  }
  std::string out = "{\"buckets\":[";
  for (const storage::BucketRecord& bucket : buckets) {
    storage::Result<iam::BucketAclAudit> audit = iam::AuditBucketAcls(store, bucket, reset);
    // Deleted since the listing: not in the answer.
    if (!audit.ok() && audit.status().code() == storage::Code::kNoSuchBucket) continue;
    if (!audit.ok()) return AdminStorageError(audit.status());
    if (out.back() != '[') out += ",";
    out += AclAuditJson(*audit);
  }
  out += "]}";
  return AdminJson(200, std::move(out));
}

}  // namespace cubby::server
