// ListObjects (V1) and ListObjectsV2.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjects.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html
#include <charconv>
#include <string>

#include "s3api/format.h"
#include "s3api/handlers.h"
#include "s3api/xml.h"
#include "text/encoding.h"
#include "text/uri.h"

namespace cubby::s3api {

namespace {

constexpr size_t kMaxKeys = 1000;

struct ListParams {
  std::string prefix;
  std::string delimiter;
  size_t max_keys = kMaxKeys;
  bool url_encode = false;
};

std::string Param(const Route& route, std::string_view name) {
  const std::string* v = route.Param(name);
  return v ? *v : std::string();
}

// Parameters both versions share. kNone or kInvalidArgument with *message set.
ErrorCode ParseCommon(const Route& route, ListParams* p, std::string* message) {
  p->prefix = Param(route, "prefix");
  p->delimiter = Param(route, "delimiter");
  if (const std::string* v = route.Param("max-keys")) {
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (v->empty() || ec == std::errc::invalid_argument || end != v->data() + v->size()) {
      *message = "Provided max-keys not an integer or within integer range";
      return ErrorCode::kInvalidArgument;
    }
    // Out of range (too large for uint64) is still "many": cap like any large value.
    p->max_keys = ec == std::errc::result_out_of_range ? kMaxKeys
                                                       : static_cast<size_t>(std::min<uint64_t>(n, kMaxKeys));
  }
  if (const std::string* v = route.Param("encoding-type")) {
    if (*v != "url") {
      *message = "Invalid Encoding Method specified in Request";
      return ErrorCode::kInvalidArgument;
    }
    p->url_encode = true;
  }
  return ErrorCode::kNone;
}

std::string Enc(const ListParams& p, std::string_view s) {
  return p.url_encode ? text::UriEncode(s, text::Slash::kKeep) : std::string(s);
}

void WriteContents(XmlWriter& w, const ListParams& p, const storage::ListEntry& e,
                   bool owner) {
  w.Open("Contents");
  w.Element("Key", Enc(p, e.key));
  w.Element("LastModified", Iso8601(e.last_modified_ms));
  w.Element("ETag", QuoteEtag(e.etag));
  w.Element("Size", std::to_string(e.size));
  if (owner) {
    w.Open("Owner");
    w.Element("ID", kOwnerId);
    w.Element("DisplayName", kOwnerDisplayName);
    w.Close();
  }
  w.Element("StorageClass", "STANDARD");
  w.Close();
}

void WriteCommonPrefixes(XmlWriter& w, const ListParams& p, const storage::ListPage& page) {
  for (const std::string& prefix : page.common_prefixes) {
    w.Open("CommonPrefixes");
    w.Element("Prefix", Enc(p, prefix));
    w.Close();
  }
}

}  // namespace

HttpResponse ListObjects(const Context& ctx) {
  ListParams p;
  std::string message;
  if (ErrorCode e = ParseCommon(ctx.route, &p, &message); e != ErrorCode::kNone) {
    return ErrorResponse(ctx, e, message);
  }
  std::string marker = Param(ctx.route, "marker");
  storage::ListQuery q{ctx.route.bucket, p.prefix, p.delimiter, marker, p.max_keys};
  storage::Result<storage::ListPage> page = ctx.store->ListObjects(q);
  if (!page.ok()) return StorageError(ctx, page.status());

  XmlWriter w;
  w.Open("ListBucketResult", kS3Namespace);
  w.Element("Name", ctx.route.bucket);
  w.Element("Prefix", Enc(p, p.prefix));
  w.Element("Marker", Enc(p, marker));
  // NextMarker only with a delimiter; without one clients continue from the last key.
  if (page->truncated && !p.delimiter.empty()) w.Element("NextMarker", Enc(p, page->last));
  w.Element("MaxKeys", std::to_string(p.max_keys));
  if (!p.delimiter.empty()) w.Element("Delimiter", Enc(p, p.delimiter));
  if (p.url_encode) w.Element("EncodingType", "url");
  w.Element("IsTruncated", page->truncated ? "true" : "false");
  for (const storage::ListEntry& e : page->objects) WriteContents(w, p, e, /*owner=*/true);
  WriteCommonPrefixes(w, p, *page);
  return XmlResponse(std::move(w).Finish());
}

HttpResponse ListObjectsV2(const Context& ctx) {
  ListParams p;
  std::string message;
  if (ErrorCode e = ParseCommon(ctx.route, &p, &message); e != ErrorCode::kNone) {
    return ErrorResponse(ctx, e, message);
  }
  const std::string* token = ctx.route.Param("continuation-token");
  std::string start_after = Param(ctx.route, "start-after");
  std::string from = start_after;
  if (token != nullptr) {
    // The token is opaque to clients: base64 of the last key or common prefix returned.
    if (token->empty() || !text::Base64Decode(*token, &from)) {
      return ErrorResponse(ctx, ErrorCode::kInvalidArgument,
                           "The continuation token provided is incorrect");
    }
  }
  const std::string* fetch_owner = ctx.route.Param("fetch-owner");
  bool owner = fetch_owner != nullptr && *fetch_owner == "true";

  storage::ListQuery q{ctx.route.bucket, p.prefix, p.delimiter, from, p.max_keys};
  storage::Result<storage::ListPage> page = ctx.store->ListObjects(q);
  if (!page.ok()) return StorageError(ctx, page.status());

  XmlWriter w;
  w.Open("ListBucketResult", kS3Namespace);
  w.Element("Name", ctx.route.bucket);
  w.Element("Prefix", Enc(p, p.prefix));
  if (!p.delimiter.empty()) w.Element("Delimiter", Enc(p, p.delimiter));
  w.Element("MaxKeys", std::to_string(p.max_keys));
  w.Element("KeyCount", std::to_string(page->objects.size() + page->common_prefixes.size()));
  if (p.url_encode) w.Element("EncodingType", "url");
  w.Element("IsTruncated", page->truncated ? "true" : "false");
  if (token != nullptr) w.Element("ContinuationToken", *token);
  if (page->truncated) {
    w.Element("NextContinuationToken", text::Base64Encode(page->last));
  }
  if (ctx.route.Has("start-after")) w.Element("StartAfter", Enc(p, start_after));
  for (const storage::ListEntry& e : page->objects) WriteContents(w, p, e, owner);
  WriteCommonPrefixes(w, p, *page);
  return XmlResponse(std::move(w).Finish());
}

}  // namespace cubby::s3api
