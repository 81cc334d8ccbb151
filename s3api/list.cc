// ListObjects (V1), ListObjectsV2 and ListObjectVersions.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjects.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectVersions.html
#include <map>
#include <string>
#include <vector>

#include "s3api/format.h"
#include "s3api/handlers.h"
#include "s3api/xml.h"
#include "text/encoding.h"
#include "text/uri.h"

namespace cubby::s3api {

namespace {

std::string Enc(const ListParams& p, std::string_view s) {
  return p.url_encode ? text::UriEncode(s, text::Slash::kKeep) : std::string(s);
}

// `owner`: the objects' owner, or null when the listing leaves it out.
void WriteContents(XmlWriter& w, const ListParams& p, const storage::ListEntry& e,
                   const OwnerName* owner) {
  w.Open("Contents");
  w.Element("Key", Enc(p, e.key));
  w.Element("LastModified", Iso8601(e.last_modified_ms));
  w.Element("ETag", QuoteEtag(e.etag));
  w.Element("Size", std::to_string(e.size));
  if (owner != nullptr) WriteOwner(w, "Owner", *owner);
  w.Element("StorageClass", e.storage_class.empty() ? "STANDARD" : e.storage_class);
  w.Close();
}

void WriteCommonPrefixes(XmlWriter& w, const ListParams& p,
                         const std::vector<std::string>& common_prefixes) {
  for (const std::string& prefix : common_prefixes) {
    w.Open("CommonPrefixes");
    w.Element("Prefix", Enc(p, prefix));
    w.Close();
  }
}

// Owners of the versions of one page, each user read once: an empty id is the bucket's owner.
class OwnerNames {
 public:
  explicit OwnerNames(const Context& ctx) : ctx_(ctx) {}
  const OwnerName& Of(const std::string& user_id) {
    auto it = names_.find(user_id);
    if (it == names_.end()) {
      it = names_.emplace(user_id, user_id.empty() ? BucketOwnerName(ctx_)
                                                   : UserOwnerName(ctx_, user_id)).first;
    }
    return it->second;
  }

 private:
  const Context& ctx_;
  std::map<std::string, OwnerName> names_;
};

std::string VersionIdOf(const std::string& stored) {
  return stored.empty() ? std::string(storage::kNullVersionId) : stored;
}

}  // namespace

HttpResponse ListObjects(const Context& ctx) {
  const ListParams& p = ctx.route.list;
  storage::ListQuery q{ctx.route.bucket, p.prefix, p.delimiter, p.marker, p.max_entries};
  storage::Result<storage::ListPage> page = ctx.store->ListObjects(q);
  if (!page.ok()) return StorageError(ctx, page.status());

  XmlWriter w;
  w.Open("ListBucketResult", kS3Namespace);
  w.Element("Name", ctx.route.bucket);
  // v1's top-level Prefix stays XML text even with encoding-type=url: boto3 decodes every other
  // encoded element of a v1 answer but not this one (Ceph RGW does the same; v2 encodes it).
  w.Element("Prefix", p.prefix);
  w.Element("Marker", Enc(p, p.marker));
  // NextMarker only with a delimiter; without one clients continue from the last key.
  if (page->truncated && !p.delimiter.empty()) w.Element("NextMarker", Enc(p, page->last));
  w.Element("MaxKeys", std::to_string(p.max_entries));
  if (!p.delimiter.empty()) w.Element("Delimiter", Enc(p, p.delimiter));
  if (p.url_encode) w.Element("EncodingType", "url");
  w.Element("IsTruncated", page->truncated ? "true" : "false");
  const OwnerName owner = BucketOwnerName(ctx);
  for (const storage::ListEntry& e : page->objects) WriteContents(w, p, e, &owner);
  WriteCommonPrefixes(w, p, page->common_prefixes);
  return XmlResponse(std::move(w).Finish());
}

HttpResponse ListObjectsV2(const Context& ctx) {
  const ListParams& p = ctx.route.list;
  storage::ListQuery q{ctx.route.bucket, p.prefix, p.delimiter, p.start_key, p.max_entries};
  storage::Result<storage::ListPage> page = ctx.store->ListObjects(q);
  if (!page.ok()) return StorageError(ctx, page.status());

  XmlWriter w;
  w.Open("ListBucketResult", kS3Namespace);
  w.Element("Name", ctx.route.bucket);
  w.Element("Prefix", Enc(p, p.prefix));
  if (!p.delimiter.empty()) w.Element("Delimiter", Enc(p, p.delimiter));
  w.Element("MaxKeys", std::to_string(p.max_entries));
  w.Element("KeyCount", std::to_string(page->objects.size() + page->common_prefixes.size()));
  if (p.url_encode) w.Element("EncodingType", "url");
  w.Element("IsTruncated", page->truncated ? "true" : "false");
  if (p.continuation_token) w.Element("ContinuationToken", *p.continuation_token);
  // The token is opaque to clients: base64 of the last key or common prefix returned.
  if (page->truncated) w.Element("NextContinuationToken", text::Base64Encode(page->last));
  if (p.start_after) w.Element("StartAfter", Enc(p, *p.start_after));
  const OwnerName owner = p.fetch_owner ? BucketOwnerName(ctx) : OwnerName{};
  for (const storage::ListEntry& e : page->objects) {
    WriteContents(w, p, e, p.fetch_owner ? &owner : nullptr);
  }
  WriteCommonPrefixes(w, p, page->common_prefixes);
  return XmlResponse(std::move(w).Finish());
}

// Versions and delete markers in storage's order (by key, each key's newest first), with the
// element names AWS uses for each.
HttpResponse ListObjectVersions(const Context& ctx) {
  const ListParams& p = ctx.route.list;
  storage::VersionsQuery q{.bucket = ctx.route.bucket,
                           .prefix = p.prefix,
                           .delimiter = p.delimiter,
                           .key_marker = p.key_marker,
                           .version_id_marker = p.version_id_marker,
                           .max_keys = p.max_entries};
  storage::Result<storage::VersionsPage> page = ctx.store->ListObjectVersions(q);
  if (!page.ok()) {
    if (page.status().code() == storage::Code::kInvalidArgument) {
      return ErrorResponse(ctx, ErrorCode::kInvalidArgument, "Invalid version id specified");
    }
    return StorageError(ctx, page.status());
  }

  XmlWriter w;
  w.Open("ListVersionsResult", kS3Namespace);
  w.Element("Name", ctx.route.bucket);
  w.Element("Prefix", Enc(p, p.prefix));
  w.Element("KeyMarker", Enc(p, p.key_marker));
  w.Element("VersionIdMarker", p.version_id_marker);
  if (page->truncated) {
    w.Element("NextKeyMarker", Enc(p, page->next_key_marker));
    if (!page->next_version_id_marker.empty()) {
      w.Element("NextVersionIdMarker", page->next_version_id_marker);
    }
  }
  w.Element("MaxKeys", std::to_string(p.max_entries));
  if (!p.delimiter.empty()) w.Element("Delimiter", Enc(p, p.delimiter));
  if (p.url_encode) w.Element("EncodingType", "url");
  w.Element("IsTruncated", page->truncated ? "true" : "false");
  OwnerNames owners(ctx);
  for (const storage::ObjectVersion& v : page->versions) {
    w.Open(v.delete_marker ? "DeleteMarker" : "Version");
    w.Element("Key", Enc(p, v.key));
    w.Element("VersionId", VersionIdOf(v.version_id));
    w.Element("IsLatest", v.is_latest ? "true" : "false");
    w.Element("LastModified", Iso8601(v.last_modified_ms));
    if (!v.delete_marker) {
      w.Element("ETag", QuoteEtag(v.etag));
      w.Element("Size", std::to_string(v.size));
      w.Element("StorageClass", v.storage_class.empty() ? "STANDARD" : v.storage_class);
    }
    WriteOwner(w, "Owner", owners.Of(v.owner_id));
    w.Close();
  }
  WriteCommonPrefixes(w, p, page->common_prefixes);
  return XmlResponse(std::move(w).Finish());
}

}  // namespace cubby::s3api
