// GetObjectAttributes: an object version's ETag, checksum, parts, storage class and size in one
// call, without its body.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObjectAttributes.html
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "s3api/auth/checksum.h"
#include "s3api/format.h"
#include "s3api/handlers.h"
#include "s3api/preconditions.h"
#include "s3api/sse.h"
#include "s3api/xml.h"
#include "text/ascii.h"
#include "text/encoding.h"

namespace cubby::s3api {

namespace {

// The attributes x-amz-object-attributes may name (its values are case-sensitive, as AWS's).
struct Wanted {
  bool etag = false;
  bool checksum = false;
  bool object_parts = false;
  bool storage_class = false;
  bool object_size = false;
};

// Parses the comma-separated x-amz-object-attributes (SDKs send one header with every name;
// HttpRequest has joined repeated ones with ","). False when a name is unknown.
bool ParseWanted(std::string_view header, Wanted* out) {
  bool any = false;
  for (std::string_view rest = header; !rest.empty();) {
    const size_t comma = rest.find(',');
    const std::string_view item = text::TrimOws(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (item.empty()) continue;
    any = true;
    if (item == "ETag") {
      out->etag = true;
    } else if (item == "Checksum") {
      out->checksum = true;
    } else if (item == "ObjectParts") {
      out->object_parts = true;
    } else if (item == "StorageClass") {
      out->storage_class = true;
    } else if (item == "ObjectSize") {
      out->object_size = true;
    } else {
      return false;
    }
  }
  return any;
}

// x-amz-max-parts (default and cap 1000) and x-amz-part-number-marker (default 0): decimal.
bool ParseCount(const HttpRequest& request, std::string_view name, uint64_t fallback,
                uint64_t* out) {
  const std::string* v = request.Find(name);
  if (v == nullptr) {
    *out = fallback;
    return true;
  }
  return text::ParseUint64(*v, out);
}

// What the request asks for: the attributes and, for ObjectParts, the page of parts.
struct AttributesRequest {
  Wanted wanted;
  uint64_t max_parts = 0;
  uint64_t marker = 0;
};

// The request's headers; InvalidArgument, with AWS's messages, for a missing, empty or unknown
// attribute list and for a count that is not a decimal.
Failure ParseAttributesRequest(const Context& ctx, AttributesRequest* out) {
  const std::string* header = ctx.request.Find("x-amz-object-attributes");
  if (header == nullptr || text::TrimOws(*header).empty()) {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument,
                         "The x-amz-object-attributes header specifying the attributes to be "
                         "retrieved is either missing or empty");
  }
  if (!ParseWanted(*header, &out->wanted)) {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument, "Invalid attribute name specified.");
  }
  if (!ParseCount(ctx.request, "x-amz-max-parts", kMaxListEntries, &out->max_parts)) {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument,
                         "Provided max-parts not an integer or within integer range");
  }
  if (!ParseCount(ctx.request, "x-amz-part-number-marker", 0, &out->marker)) {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument,
                         "Provided part-number-marker not an integer or within integer range");
  }
  out->max_parts = std::min<uint64_t>(out->max_parts, kMaxListEntries);
  return Failure::None();
}

// The read preconditions, as GetObject evaluates them (the API page lists the same four): 412,
// or 304 with the validators.
Failure CheckAttributesConditions(const Context& ctx, const storage::ObjectMeta& meta) {
  switch (EvaluatePreconditions(ctx.request, kObjectPreconditions, meta)) {
    case PreconditionResult::kHolds:
      return Failure::None();
    case PreconditionResult::kFailed:
      return ErrorResponse(ctx, ErrorCode::kPreconditionFailed);
    case PreconditionResult::kNotModified:
      break;
  }
  HttpResponse r;
  r.status = 304;
  r.Set("ETag", QuoteEtag(meta.etag));
  r.Set("Last-Modified", HttpDate(meta.last_modified_ms));
  return r;
}

void WriteChecksum(const storage::ObjectMeta& meta, XmlWriter* w) {
  w->Open("Checksum");
  std::string_view type;
  for (const auto& [name, value] : meta.checksums) {
    if (!auth::ParseChecksumAlgorithm(name)) continue;
    w->Element("Checksum" + name, value);
    type = ChecksumType(value);
  }
  if (!type.empty()) w->Element("ChecksumType", type);
  w->Close();
}

// One page of a multipart object's parts, from the part after `marker`.
void WriteParts(const storage::ObjectMeta& meta, const AttributesRequest& request,
                XmlWriter* w) {
  const uint64_t total = meta.part_sizes.size();
  std::string algorithm;  // the object's one checksum's name, for the parts' elements
  if (!meta.part_checksums.empty() && !meta.checksums.empty()) {
    algorithm = meta.checksums.begin()->first;
  }
  w->Open("ObjectParts");
  w->Element("PartsCount", std::to_string(total));
  w->Element("PartNumberMarker", std::to_string(request.marker));
  const uint64_t first = request.marker;  // parts are numbered 1..total in the object
  const uint64_t end = first >= total ? first : std::min(total, first + request.max_parts);
  w->Element("NextPartNumberMarker", std::to_string(end > first ? end : request.marker));
  w->Element("MaxParts", std::to_string(request.max_parts));
  w->Element("IsTruncated", end < total ? "true" : "false");
  for (uint64_t i = first; i < end; ++i) {
    w->Open("Part");
    w->Element("PartNumber", std::to_string(i + 1));
    w->Element("Size", std::to_string(meta.part_sizes[i]));
    if (!algorithm.empty()) w->Element("Checksum" + algorithm, meta.part_checksums[i]);
    w->Close();
  }
  w->Close();
}

}  // namespace

HttpResponse GetObjectAttributes(const Context& ctx) {
  // AWS asks for s3:GetObjectAttributes (with versionId s3:GetObjectVersionAttributes) besides
  // s3:GetObject (s3:GetObjectVersion), which the service asked already.
  if (ErrorCode denied = Authorize(ctx,
                                   ctx.route.version_id ? iam::Action::kGetObjectVersionAttributes
                                                        : iam::Action::kGetObjectAttributes,
                                   {.bucket = ctx.route.bucket, .key = ctx.route.key});
      denied != ErrorCode::kNone) {
    return ErrorResponse(ctx, denied);
  }
  AttributesRequest request;
  if (Failure failure = ParseAttributesRequest(ctx, &request)) return failure.TakeResponse();

  storage::DeleteMarkerInfo marker_info;
  storage::Result<storage::ObjectMeta> found = ctx.store->HeadObjectVersion(
      ctx.route.bucket, ctx.route.key, ctx.route.version_id.value_or(""), &marker_info);
  if (!found.ok()) return VersionReadError(ctx, found.status());
  const storage::ObjectMeta& meta = *found;
  if (Failure failure = CheckAttributesConditions(ctx, meta)) return failure.TakeResponse();
  // An SSE-C object's attributes need its key, as its body does (GetObject's checks and
  // answers; the API page: "you must use the following headers").
  OpenedKeys keys;
  if (Failure failure = CheckReadKey(ctx, meta, ctx.route.bucket, ctx.route.key, kCustomerPrefix,
                                     /*need_keys=*/false, &keys)) {
    return failure.TakeResponse();
  }

  XmlWriter w;
  w.Open("GetObjectAttributesResponse", kS3Namespace);
  if (request.wanted.etag) w.Element("ETag", meta.etag);  // without quotes, as AWS answers
  if (request.wanted.checksum && !meta.checksums.empty()) WriteChecksum(meta, &w);
  // Only multipart objects have parts to tell of.
  if (request.wanted.object_parts && !meta.part_sizes.empty()) WriteParts(meta, request, &w);
  if (request.wanted.storage_class) {
    w.Element("StorageClass", meta.storage_class.empty() ? "STANDARD" : meta.storage_class);
  }
  if (request.wanted.object_size) w.Element("ObjectSize", std::to_string(meta.size));
  HttpResponse r = XmlResponse(std::move(w).Finish());
  r.Set("Last-Modified", HttpDate(meta.last_modified_ms));
  SetVersionIdHeader(ctx, meta.version_id, &r);
  return r;
}

}  // namespace cubby::s3api
