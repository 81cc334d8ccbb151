#include "s3api/router.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include "s3api/operations.h"
#include "text/ascii.h"
#include "text/encoding.h"
#include "text/uri.h"
#include "text/utf8.h"

namespace cubby::s3api {

bool ResponseOverrides::any() const {
  return content_type || content_language || expires || cache_control || content_disposition ||
         content_encoding;
}

namespace {

bool Has(const Query& query, std::string_view name) {
  return text::FindValue(query, name) != nullptr;
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
bool OnlySubResources(const Query& query, std::initializer_list<std::string_view> allowed) {
  for (const text::NameValue& param : query) {
    if (!IsSubResource(param.name)) continue;
    if (std::find(allowed.begin(), allowed.end(), param.name) == allowed.end()) return false;
  }
  return true;
}

Operation ServiceOp(std::string_view method, const Query& r) {
  if (method == "GET" && OnlySubResources(r, {})) return Operation::kListBuckets;
  return Operation::kNotImplemented;
}

// The bucket sub-resources cubby keeps no configuration for: `method` on `?name` alone (an
// analytics, metrics, inventory or intelligent-tiering GET names one configuration with `id`,
// else lists them). nullopt: not one of them.
std::optional<Operation> UnconfiguredSubresourceOp(std::string_view method, const Query& r) {
  struct Row {
    std::string_view method;  // "GET+id": a GET with an id parameter
    std::string_view name;
    Operation op;
  };
  static constexpr Row kRows[] = {
      {"GET", "website", Operation::kGetBucketWebsite},
      {"PUT", "website", Operation::kPutBucketWebsite},
      {"DELETE", "website", Operation::kDeleteBucketWebsite},
      {"GET", "logging", Operation::kGetBucketLogging},
      {"PUT", "logging", Operation::kPutBucketLogging},
      {"GET", "notification", Operation::kGetBucketNotificationConfiguration},
      {"PUT", "notification", Operation::kPutBucketNotificationConfiguration},
      {"GET", "requestPayment", Operation::kGetBucketRequestPayment},
      {"PUT", "requestPayment", Operation::kPutBucketRequestPayment},
      {"GET", "accelerate", Operation::kGetBucketAccelerateConfiguration},
      {"PUT", "accelerate", Operation::kPutBucketAccelerateConfiguration},
      {"GET", "replication", Operation::kGetBucketReplication},
      {"PUT", "replication", Operation::kPutBucketReplication},
      {"DELETE", "replication", Operation::kDeleteBucketReplication},
      {"GET", "analytics", Operation::kListBucketAnalyticsConfigurations},
      {"GET+id", "analytics", Operation::kGetBucketAnalyticsConfiguration},
      {"PUT", "analytics", Operation::kPutBucketAnalyticsConfiguration},
      {"DELETE", "analytics", Operation::kDeleteBucketAnalyticsConfiguration},
      {"GET", "metrics", Operation::kListBucketMetricsConfigurations},
      {"GET+id", "metrics", Operation::kGetBucketMetricsConfiguration},
      {"PUT", "metrics", Operation::kPutBucketMetricsConfiguration},
      {"DELETE", "metrics", Operation::kDeleteBucketMetricsConfiguration},
      {"GET", "inventory", Operation::kListBucketInventoryConfigurations},
      {"GET+id", "inventory", Operation::kGetBucketInventoryConfiguration},
      {"PUT", "inventory", Operation::kPutBucketInventoryConfiguration},
      {"DELETE", "inventory", Operation::kDeleteBucketInventoryConfiguration},
      {"GET", "intelligent-tiering", Operation::kListBucketIntelligentTieringConfigurations},
      {"GET+id", "intelligent-tiering", Operation::kGetBucketIntelligentTieringConfiguration},
      {"PUT", "intelligent-tiering", Operation::kPutBucketIntelligentTieringConfiguration},
      {"DELETE", "intelligent-tiering", Operation::kDeleteBucketIntelligentTieringConfiguration},
  };
  const std::string_view asked = method == "GET" && Has(r, "id") ? "GET+id" : method;
  for (const Row& row : kRows) {
    if (row.method == asked && Has(r, row.name) && OnlySubResources(r, {row.name})) return row.op;
  }
  return std::nullopt;
}

Operation BucketOp(std::string_view method, const Query& r) {
  auto only = [&](std::initializer_list<std::string_view> allowed) {
    return OnlySubResources(r, allowed);
  };
  if (std::optional<Operation> op = UnconfiguredSubresourceOp(method, r)) return *op;
  if (method == "GET") {
    if (Has(r, "location") && only({"location"})) return Operation::kGetBucketLocation;
    if (Has(r, "versioning") && only({"versioning"})) return Operation::kGetBucketVersioning;
    if (Has(r, "acl") && only({"acl"})) return Operation::kGetBucketAcl;
    if (Has(r, "policy") && only({"policy"})) return Operation::kGetBucketPolicy;
    if (Has(r, "policyStatus") && only({"policyStatus"})) return Operation::kGetBucketPolicyStatus;
    if (Has(r, "ownershipControls") && only({"ownershipControls"})) {
      return Operation::kGetBucketOwnershipControls;
    }
    if (Has(r, "publicAccessBlock") && only({"publicAccessBlock"})) {
      return Operation::kGetPublicAccessBlock;
    }
    if (Has(r, "uploads") && only({"uploads"})) return Operation::kListMultipartUploads;
    if (Has(r, "versions") && only({"versions"})) return Operation::kListObjectVersions;
    if (Has(r, "lifecycle") && only({"lifecycle"})) {
      return Operation::kGetBucketLifecycleConfiguration;
    }
    if (Has(r, "object-lock") && only({"object-lock"})) {
      return Operation::kGetObjectLockConfiguration;
    }
    if (Has(r, "tagging") && only({"tagging"})) return Operation::kGetBucketTagging;
    if (Has(r, "cors") && only({"cors"})) return Operation::kGetBucketCors;
    if (Has(r, "encryption") && only({"encryption"})) return Operation::kGetBucketEncryption;
    if (Has(r, "list-type")) {
      const std::string* v = text::FindValue(r, "list-type");
      if (*v == "2" && only({"list-type"})) return Operation::kListObjectsV2;
      return Operation::kNotImplemented;
    }
    if (only({})) return Operation::kListObjects;
  } else if (method == "HEAD") {
    if (only({})) return Operation::kHeadBucket;
  } else if (method == "PUT") {
    if (Has(r, "acl") && only({"acl"})) return Operation::kPutBucketAcl;
    if (Has(r, "versioning") && only({"versioning"})) return Operation::kPutBucketVersioning;
    if (Has(r, "object-lock") && only({"object-lock"})) {
      return Operation::kPutObjectLockConfiguration;
    }
    if (Has(r, "policy") && only({"policy"})) return Operation::kPutBucketPolicy;
    if (Has(r, "ownershipControls") && only({"ownershipControls"})) {
      return Operation::kPutBucketOwnershipControls;
    }
    if (Has(r, "publicAccessBlock") && only({"publicAccessBlock"})) {
      return Operation::kPutPublicAccessBlock;
    }
    if (Has(r, "lifecycle") && only({"lifecycle"})) {
      return Operation::kPutBucketLifecycleConfiguration;
    }
    if (Has(r, "tagging") && only({"tagging"})) return Operation::kPutBucketTagging;
    if (Has(r, "cors") && only({"cors"})) return Operation::kPutBucketCors;
    if (Has(r, "encryption") && only({"encryption"})) return Operation::kPutBucketEncryption;
    if (only({})) return Operation::kCreateBucket;
  } else if (method == "DELETE") {
    if (Has(r, "policy") && only({"policy"})) return Operation::kDeleteBucketPolicy;
    if (Has(r, "ownershipControls") && only({"ownershipControls"})) {
      return Operation::kDeleteBucketOwnershipControls;
    }
    if (Has(r, "publicAccessBlock") && only({"publicAccessBlock"})) {
      return Operation::kDeletePublicAccessBlock;
    }
    if (Has(r, "lifecycle") && only({"lifecycle"})) return Operation::kDeleteBucketLifecycle;
    if (Has(r, "tagging") && only({"tagging"})) return Operation::kDeleteBucketTagging;
    if (Has(r, "cors") && only({"cors"})) return Operation::kDeleteBucketCors;
    if (Has(r, "encryption") && only({"encryption"})) return Operation::kDeleteBucketEncryption;
    if (only({})) return Operation::kDeleteBucket;
  } else if (method == "POST") {
    if (Has(r, "delete") && only({"delete"})) return Operation::kDeleteObjects;
    if (only({})) return Operation::kPostObject;
  }
  return Operation::kNotImplemented;
}

Operation ObjectOp(std::string_view method, const Query& r, bool copy_source) {
  auto only = [&](std::initializer_list<std::string_view> allowed) {
    return OnlySubResources(r, allowed);
  };
  if (method == "GET") {
    if (Has(r, "acl") && only({"acl", "versionId"})) return Operation::kGetObjectAcl;
    if (Has(r, "uploadId") && only({"uploadId"})) return Operation::kListParts;
    if (Has(r, "retention") && only({"retention", "versionId"})) {
      return Operation::kGetObjectRetention;
    }
    if (Has(r, "legal-hold") && only({"legal-hold", "versionId"})) {
      return Operation::kGetObjectLegalHold;
    }
    if (Has(r, "tagging") && only({"tagging", "versionId"})) return Operation::kGetObjectTagging;
    if (Has(r, "attributes") && only({"attributes", "versionId"})) {
      return Operation::kGetObjectAttributes;
    }
    if (only({"partNumber", "versionId"})) return Operation::kGetObject;
  } else if (method == "HEAD") {
    if (only({"partNumber", "versionId"})) return Operation::kHeadObject;
  } else if (method == "PUT") {
    if (Has(r, "acl") && only({"acl", "versionId"})) return Operation::kPutObjectAcl;
    if (Has(r, "retention") && only({"retention", "versionId"})) {
      return Operation::kPutObjectRetention;
    }
    if (Has(r, "legal-hold") && only({"legal-hold", "versionId"})) {
      return Operation::kPutObjectLegalHold;
    }
    if (Has(r, "tagging") && only({"tagging", "versionId"})) return Operation::kPutObjectTagging;
    if (Has(r, "uploadId") && Has(r, "partNumber") && only({"uploadId", "partNumber"})) {
      return copy_source ? Operation::kUploadPartCopy : Operation::kUploadPart;
    }
    if (only({})) return copy_source ? Operation::kCopyObject : Operation::kPutObject;
  } else if (method == "DELETE") {
    if (Has(r, "uploadId") && only({"uploadId"})) return Operation::kAbortMultipartUpload;
    if (Has(r, "tagging") && only({"tagging", "versionId"})) {
      return Operation::kDeleteObjectTagging;
    }
    if (only({"versionId"})) return Operation::kDeleteObject;
  } else if (method == "POST") {
    if (Has(r, "uploads") && only({"uploads"})) return Operation::kCreateMultipartUpload;
    if (Has(r, "uploadId") && only({"uploadId"})) return Operation::kCompleteMultipartUpload;
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

// Bucket and key from the decoded path, or from the Host header under `domain`.
void SetBucketAndKey(std::string_view host, std::string_view domain, const std::string& path,
                     Route* r) {
  const std::string host_name = text::AsciiLowercase(StripPort(host));
  const std::string lower_domain = text::AsciiLowercase(domain);
  const bool virtual_host = !lower_domain.empty() && host_name.size() > lower_domain.size() + 1 &&
                            host_name.ends_with(lower_domain) &&
                            host_name[host_name.size() - lower_domain.size() - 1] == '.';
  if (virtual_host) {
    r->virtual_host = true;
    r->bucket = host_name.substr(0, host_name.size() - lower_domain.size() - 1);
    r->key = path.substr(1);
  } else {
    std::string_view rest = std::string_view(path).substr(1);
    size_t slash = rest.find('/');
    r->bucket = std::string(rest.substr(0, slash));
    if (slash != std::string_view::npos) r->key = std::string(rest.substr(slash + 1));
  }
}

// ---- Parameters. Each parser takes the first value of its name, as AWS does.

// Records the first malformed parameter; later ones are not reported.
void Refuse(Route* r, std::string message) {
  if (r->param_error.code != ErrorCode::kNone) return;
  r->param_error = {ErrorCode::kInvalidArgument, std::move(message)};
}

std::string ValueOr(const Query& query, std::string_view name) {
  const std::string* v = text::FindValue(query, name);
  return v != nullptr ? *v : std::string();
}

void ParsePartNumber(const Query& query, Route* r) {
  const std::string* v = text::FindValue(query, "partNumber");
  if (v == nullptr) return;
  r->part_number_sent = true;
  uint64_t n = 0;
  if (!text::ParseUint64(*v, &n) || n < 1 || n > kMaxPartNumber) {
    Refuse(r, "Part number must be an integer between 1 and 10000, inclusive");
    return;
  }
  r->part_number = static_cast<uint32_t>(n);
}

// max-keys, max-uploads, max-parts: decimal digits; any value above the cap (even one too large
// for 64 bits) is the cap.
void ParseMaxEntries(const Query& query, std::string_view name, Route* r) {
  const std::string* v = text::FindValue(query, name);
  if (v == nullptr) return;
  uint64_t n = 0;
  if (!text::IsDecimalDigits(*v)) {
    Refuse(r, "Provided " + std::string(name) + " not an integer or within integer range");
  } else if (text::ParseUint64(*v, &n)) {
    r->list.max_entries = static_cast<size_t>(std::min<uint64_t>(n, kMaxListEntries));
  }
}

void ParseEncodingType(const Query& query, Route* r) {
  const std::string* v = text::FindValue(query, "encoding-type");
  if (v == nullptr) return;
  if (*v != "url") {
    Refuse(r, "Invalid Encoding Method specified in Request");
    return;
  }
  r->list.url_encode = true;
}

// ListObjects, ListObjectsV2 and ListMultipartUploads: prefix, delimiter, the size, the encoding.
void ParseListCommon(const Query& query, std::string_view max_name, Route* r) {
  r->list.prefix = ValueOr(query, "prefix");
  r->list.delimiter = ValueOr(query, "delimiter");
  ParseMaxEntries(query, max_name, r);
  ParseEncodingType(query, r);
}

void ParseOverrides(const Query& query, ResponseOverrides* o) {
  auto take = [&](std::string_view name, std::optional<std::string>* field) {
    if (const std::string* v = text::FindValue(query, name)) *field = *v;
  };
  take("response-content-type", &o->content_type);
  take("response-content-language", &o->content_language);
  take("response-expires", &o->expires);
  take("response-cache-control", &o->cache_control);
  take("response-content-disposition", &o->content_disposition);
  take("response-content-encoding", &o->content_encoding);
}

}  // namespace

// ---- The parsers of the operation table (operations.h).

void ParseListObjects(const Query& query, Route* r) {
  ParseListCommon(query, "max-keys", r);
  r->list.marker = ValueOr(query, "marker");
}

void ParseListObjectsV2(const Query& query, Route* r) {
  ParseListCommon(query, "max-keys", r);
  if (const std::string* v = text::FindValue(query, "start-after")) {
    r->list.start_after = *v;
    r->list.start_key = *v;
  }
  // The token is echoed as sent, an empty one too (ListObjectsV2's ContinuationToken: "If
  // ContinuationToken was sent with the request, it is included in the response"); an empty one
  // lists from the start (or from start-after).
  if (const std::string* token = text::FindValue(query, "continuation-token")) {
    r->list.continuation_token = *token;
    // The token is opaque to clients: base64 of the last key or common prefix returned.
    if (!token->empty() && !text::Base64Decode(*token, &r->list.start_key)) {
      Refuse(r, "The continuation token provided is incorrect");
    }
  }
  r->list.fetch_owner = ValueOr(query, "fetch-owner") == "true";
}

void ParseListMultipartUploads(const Query& query, Route* r) {
  ParseListCommon(query, "max-uploads", r);
  r->list.key_marker = ValueOr(query, "key-marker");
  // Without a key-marker, AWS ignores upload-id-marker.
  if (!r->list.key_marker.empty()) r->list.upload_id_marker = ValueOr(query, "upload-id-marker");
}

void ParseListParts(const Query& query, Route* r) {
  r->upload_id = ValueOr(query, "uploadId");
  ParseMaxEntries(query, "max-parts", r);
  if (const std::string* v = text::FindValue(query, "part-number-marker")) {
    uint64_t marker = 0;
    if (!text::ParseUint64(*v, &marker) || marker > kMaxPartNumber) {
      Refuse(r, "Provided part-number-marker not an integer or within integer range");
    } else {
      r->list.part_number_marker = static_cast<uint32_t>(marker);
    }
  }
}

// versionId: any non-empty value (storage tells a malformed id from one it does not know).
void ParseVersionId(const Query& query, Route* r) {
  const std::string* v = text::FindValue(query, "versionId");
  if (v == nullptr) return;
  if (v->empty()) {
    Refuse(r, "Version id cannot be the empty string");
    return;
  }
  r->version_id = *v;
}

void ParseListObjectVersions(const Query& query, Route* r) {
  ParseListCommon(query, "max-keys", r);
  r->list.key_marker = ValueOr(query, "key-marker");
  if (const std::string* v = text::FindValue(query, "version-id-marker")) {
    if (r->list.key_marker.empty()) {
      Refuse(r, "A version-id marker cannot be specified without a key marker.");
      return;
    }
    if (v->empty()) {
      Refuse(r, "A version-id marker cannot be empty.");
      return;
    }
    r->list.version_id_marker = *v;
  }
}

void ParseUploadPart(const Query& query, Route* r) {
  ParsePartNumber(query, r);
  r->upload_id = ValueOr(query, "uploadId");
}

void ParseUploadId(const Query& query, Route* r) { r->upload_id = ValueOr(query, "uploadId"); }

void ParseGetObject(const Query& query, Route* r) {
  ParseVersionId(query, r);
  ParsePartNumber(query, r);
  ParseOverrides(query, &r->overrides);
}

Route RouteRequest(std::string_view method, std::string_view target, std::string_view host,
                   std::string_view domain, bool copy_source) {
  Route r;
  const size_t q = target.find('?');
  const std::string_view raw_path = target.substr(0, q);
  const std::string_view raw_query = q == std::string_view::npos ? "" : target.substr(q + 1);
  r.path = std::string(raw_path);
  Query query;
  std::string path;
  if (raw_path.empty() || raw_path.front() != '/' ||
      !text::SplitUrlEncodedStrict(raw_query, text::Plus::kSpace, &query) ||
      !text::PercentDecodeStrict(raw_path, text::Plus::kLiteral, &path)) {
    r.error = ErrorCode::kInvalidURI;
    return r;
  }
  SetBucketAndKey(host, domain, path, &r);
  if (r.key.size() > kMaxKeyBytes) {
    r.error = ErrorCode::kKeyTooLongError;
    return r;
  }
  if (method != "GET" && method != "HEAD" && method != "PUT" && method != "POST" &&
      method != "DELETE" && method != "OPTIONS") {
    r.error = ErrorCode::kMethodNotAllowed;
    return r;
  }
  if (method == "OPTIONS") {
    // A CORS preflight, whatever the path and query name (the service answers one without a
    // bucket as for a missing bucket).
    r.op = Operation::kOptionsObject;
  } else if (r.bucket.empty()) {
    r.op = ServiceOp(method, query);
  } else if (r.key.empty()) {
    r.op = BucketOp(method, query);
  } else {
    r.op = ObjectOp(method, query, copy_source);
  }
  // S3 keys are UTF-8; AWS refuses any other bytes as an unparsable URI. DeleteObject is spared
  // so that an object an older cubby stored under such a key can still be removed (otherwise
  // its bucket could never be deleted); it is the one route that cannot create or read one.
  if (!text::IsValidUtf8(r.key) && r.op != Operation::kDeleteObject) {
    r.error = ErrorCode::kInvalidURI;
    return r;
  }
  if (const auto parse = Info(r.op).parse_params) parse(query, &r);
  return r;
}

}  // namespace cubby::s3api
