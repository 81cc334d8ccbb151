#include "s3api/router.h"

#include <algorithm>
#include <iterator>

namespace cubby::s3api {

std::string_view OperationName(Operation op) {
  switch (op) {
    case Operation::kListBuckets: return "ListBuckets";
    case Operation::kCreateBucket: return "CreateBucket";
    case Operation::kHeadBucket: return "HeadBucket";
    case Operation::kDeleteBucket: return "DeleteBucket";
    case Operation::kGetBucketLocation: return "GetBucketLocation";
    case Operation::kGetBucketVersioning: return "GetBucketVersioning";
    case Operation::kGetBucketAcl: return "GetBucketAcl";
    case Operation::kPutBucketAcl: return "PutBucketAcl";
    case Operation::kGetObjectAcl: return "GetObjectAcl";
    case Operation::kListObjects: return "ListObjects";
    case Operation::kListObjectsV2: return "ListObjectsV2";
    case Operation::kPutObject: return "PutObject";
    case Operation::kGetObject: return "GetObject";
    case Operation::kHeadObject: return "HeadObject";
    case Operation::kDeleteObject: return "DeleteObject";
    case Operation::kCreateMultipartUpload: return "CreateMultipartUpload";
    case Operation::kUploadPart: return "UploadPart";
    case Operation::kUploadPartCopy: return "UploadPartCopy";
    case Operation::kCompleteMultipartUpload: return "CompleteMultipartUpload";
    case Operation::kAbortMultipartUpload: return "AbortMultipartUpload";
    case Operation::kListParts: return "ListParts";
    case Operation::kListMultipartUploads: return "ListMultipartUploads";
    case Operation::kCopyObject: return "CopyObject";
    case Operation::kDeleteObjects: return "DeleteObjects";
    case Operation::kNotImplemented: return "NotImplemented";
  }
  return "Unknown";
}

bool Route::Has(std::string_view name) const { return Param(name) != nullptr; }

const std::string* Route::Param(std::string_view name) const {
  for (const auto& [k, v] : params) {
    if (k == name) return &v;
  }
  return nullptr;
}

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Query parameters that name a sub-resource (an API other than the plain object/bucket one).
// Any of these that the operation table below does not handle routes to kNotImplemented.
// Other parameters (x-id, response-*, X-Amz-* of presigned URLs, ...) are ignored, as AWS does.
constexpr std::string_view kSubResources[] = {
    "accelerate", "acl", "analytics", "attributes", "cors", "delete", "encryption",
    "intelligent-tiering", "inventory", "legal-hold", "lifecycle", "location", "logging",
    "metadataTable", "metrics", "notification", "object-lock", "ownershipControls", "policy",
    "policyStatus", "publicAccessBlock", "replication", "requestPayment", "restore", "retention",
    "select", "select-type", "session", "tagging", "torrent", "uploads", "uploadId",
    "versioning", "versions", "versionId", "website", "partNumber", "list-type", "renameObject"};

bool IsSubResource(std::string_view name) {
  return std::find(std::begin(kSubResources), std::end(kSubResources), name) !=
         std::end(kSubResources);
}

// True when every sub-resource parameter present is in `allowed`.
bool OnlySubResources(const Route& r, std::initializer_list<std::string_view> allowed) {
  for (const auto& [k, v] : r.params) {
    if (!IsSubResource(k)) continue;
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) return false;
  }
  return true;
}

Operation ServiceOp(std::string_view method, const Route& r) {
  if (method == "GET" && OnlySubResources(r, {})) return Operation::kListBuckets;
  return Operation::kNotImplemented;
}

Operation BucketOp(std::string_view method, const Route& r) {
  auto only = [&](std::initializer_list<std::string_view> allowed) {
    return OnlySubResources(r, allowed);
  };
  if (method == "GET") {
    if (r.Has("location") && only({"location"})) return Operation::kGetBucketLocation;
    if (r.Has("versioning") && only({"versioning"})) return Operation::kGetBucketVersioning;
    if (r.Has("acl") && only({"acl"})) return Operation::kGetBucketAcl;
    if (r.Has("uploads") && only({"uploads"})) return Operation::kListMultipartUploads;
    if (r.Has("list-type")) {
      const std::string* v = r.Param("list-type");
      if (*v == "2" && only({"list-type"})) return Operation::kListObjectsV2;
      return Operation::kNotImplemented;
    }
    if (only({})) return Operation::kListObjects;
  } else if (method == "HEAD") {
    if (only({})) return Operation::kHeadBucket;
  } else if (method == "PUT") {
    if (r.Has("acl") && only({"acl"})) return Operation::kPutBucketAcl;
    if (only({})) return Operation::kCreateBucket;
  } else if (method == "DELETE") {
    if (only({})) return Operation::kDeleteBucket;
  } else if (method == "POST") {
    if (r.Has("delete") && only({"delete"})) return Operation::kDeleteObjects;
  }
  return Operation::kNotImplemented;
}

Operation ObjectOp(std::string_view method, const Route& r, bool copy_source) {
  auto only = [&](std::initializer_list<std::string_view> allowed) {
    return OnlySubResources(r, allowed);
  };
  if (method == "GET") {
    if (r.Has("acl") && only({"acl"})) return Operation::kGetObjectAcl;
    if (r.Has("uploadId") && only({"uploadId"})) return Operation::kListParts;
    if (only({"partNumber"})) return Operation::kGetObject;
  } else if (method == "HEAD") {
    if (only({"partNumber"})) return Operation::kHeadObject;
  } else if (method == "PUT") {
    if (r.Has("uploadId") && r.Has("partNumber") && only({"uploadId", "partNumber"})) {
      return copy_source ? Operation::kUploadPartCopy : Operation::kUploadPart;
    }
    if (only({})) return copy_source ? Operation::kCopyObject : Operation::kPutObject;
  } else if (method == "DELETE") {
    if (r.Has("uploadId") && only({"uploadId"})) return Operation::kAbortMultipartUpload;
    if (only({})) return Operation::kDeleteObject;
  } else if (method == "POST") {
    if (r.Has("uploads") && only({"uploads"})) return Operation::kCreateMultipartUpload;
    if (r.Has("uploadId") && only({"uploadId"})) return Operation::kCompleteMultipartUpload;
  }
  return Operation::kNotImplemented;
}

std::string_view StripPort(std::string_view host) {
  if (!host.empty() && host.front() == '[') {  // IPv6 literal
    size_t close = host.find(']');
    return close == std::string_view::npos ? host : host.substr(0, close + 1);
  }
  size_t colon = host.rfind(':');
  return colon == std::string_view::npos ? host : host.substr(0, colon);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

bool PercentDecode(std::string_view in, bool plus_is_space, std::string* out) {
  out->clear();
  out->reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      int hi = HexValue(in[i + 1]);
      int lo = HexValue(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      *out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      *out += ' ';
    } else {
      *out += c;
    }
  }
  return true;
}

Route RouteRequest(std::string_view method, std::string_view target, std::string_view host,
                   std::string_view domain, bool copy_source) {
  Route r;
  size_t q = target.find('?');
  std::string_view raw_path = target.substr(0, q);
  std::string_view raw_query = q == std::string_view::npos ? "" : target.substr(q + 1);
  r.path = std::string(raw_path);
  if (raw_path.empty() || raw_path.front() != '/') {
    r.error = ErrorCode::kInvalidURI;
    return r;
  }

  // Query: "a=1&b&c=%20" → ordered, decoded pairs.
  while (!raw_query.empty()) {
    size_t amp = raw_query.find('&');
    std::string_view part = raw_query.substr(0, amp);
    raw_query = amp == std::string_view::npos ? "" : raw_query.substr(amp + 1);
    if (part.empty()) continue;
    size_t eq = part.find('=');
    std::string name, value;
    if (!PercentDecode(part.substr(0, eq), true, &name) ||
        (eq != std::string_view::npos && !PercentDecode(part.substr(eq + 1), true, &value))) {
      r.error = ErrorCode::kInvalidURI;
      return r;
    }
    r.params.emplace_back(std::move(name), std::move(value));
  }

  std::string path;
  if (!PercentDecode(raw_path, false, &path)) {
    r.error = ErrorCode::kInvalidURI;
    return r;
  }

  std::string host_name = Lower(StripPort(host));
  std::string lower_domain = Lower(domain);
  bool virtual_host = !lower_domain.empty() && host_name.size() > lower_domain.size() + 1 &&
                      host_name.ends_with(lower_domain) &&
                      host_name[host_name.size() - lower_domain.size() - 1] == '.';
  if (virtual_host) {
    r.virtual_host = true;
    r.bucket = host_name.substr(0, host_name.size() - lower_domain.size() - 1);
    r.key = path.substr(1);
  } else {
    std::string_view rest = std::string_view(path).substr(1);
    size_t slash = rest.find('/');
    r.bucket = std::string(rest.substr(0, slash));
    if (slash != std::string_view::npos) r.key = std::string(rest.substr(slash + 1));
  }
  if (r.key.size() > kMaxKeyBytes) {
    r.error = ErrorCode::kKeyTooLongError;
    return r;
  }

  if (method != "GET" && method != "HEAD" && method != "PUT" && method != "POST" &&
      method != "DELETE") {
    r.error = ErrorCode::kMethodNotAllowed;
    return r;
  }
  if (r.bucket.empty()) {
    r.op = ServiceOp(method, r);
  } else if (r.key.empty()) {
    r.op = BucketOp(method, r);
  } else {
    r.op = ObjectOp(method, r, copy_source);
  }
  return r;
}

}  // namespace cubby::s3api
