// Object and bucket tagging: the pure functions of tagging.h and the handlers
// Get/Put/DeleteObjectTagging, Get/Put/DeleteBucketTagging, and the tags a write gives its new
// object (NewObjectTags).
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObjectTagging.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObjectTagging.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketTagging.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteBucketTagging.html
#include "s3api/tagging.h"

#include <set>

#include "s3api/handlers.h"
#include "s3api/xml.h"
#include "text/ascii.h"
#include "text/uri.h"
#include "text/utf8.h"

namespace cubby::s3api {

namespace {

XmlBodyError InvalidTag(std::string message) {
  return {ErrorCode::kInvalidTag, std::move(message)};
}
XmlBodyError MalformedXml() { return {ErrorCode::kMalformedXML, ""}; }

// The number of Unicode characters of `s`; false when it is not UTF-8.
bool CountChars(std::string_view s, size_t* n) {
  *n = 0;
  while (!s.empty()) {
    char32_t cp;
    const size_t len = text::DecodeUtf8(s, &cp);
    if (len == 0) return false;
    s.remove_prefix(len);
    ++*n;
  }
  return true;
}

}  // namespace

XmlBodyError ValidateTags(const TagSet& tags, TagTarget target) {
  switch (target) {
    case TagTarget::kObject:
      if (tags.size() > kMaxObjectTags) {
        return {ErrorCode::kInvalidTag, "Object tags cannot be greater than 10"};
      }
      break;
    case TagTarget::kBucket:
      if (tags.size() > kMaxBucketTags) {
        return {ErrorCode::kBadRequest, "Bucket tag count cannot be greater than 50"};
      }
      break;
  }
  std::set<std::string_view> keys;
  for (const auto& [key, value] : tags) {
    size_t n = 0;
    if (key.empty() || !CountChars(key, &n) || n > kMaxTagKeyChars) {
      return InvalidTag("The TagKey you have provided is invalid");
    }
    if (!CountChars(value, &n) || n > kMaxTagValueChars) {
      return InvalidTag("The TagValue you have provided is invalid");
    }
    if (text::AsciiLowercase(key.substr(0, 4)) == "aws:") {
      return InvalidTag("System tags cannot be added/updated by requester");
    }
    if (!keys.insert(key).second) {
      return InvalidTag("Cannot provide multiple Tags with the same key");
    }
  }
  return {};
}

XmlBodyError ParseTagging(std::string_view body, TagTarget target, TagSet* out) {
  XmlNode root;
  if (!ParseXml(body, &root) || root.name != "Tagging" || !ChildrenAmong(root, {"TagSet"})) {
    return MalformedXml();
  }
  const XmlNode* set = root.Child("TagSet");
  if (set == nullptr) return MalformedXml();
  TagSet tags;
  for (const XmlNode& tag : set->children) {
    if (tag.name != "Tag" || !ChildrenAmong(tag, {"Key", "Value"})) return MalformedXml();
    const XmlNode* key = tag.Child("Key");
    const XmlNode* value = tag.Child("Value");
    if (key == nullptr || value == nullptr) return MalformedXml();
    tags.emplace_back(key->text, value->text);
  }
  if (XmlBodyError e = ValidateTags(tags, target); !e.ok()) return e;
  *out = std::move(tags);
  return {};
}

std::string TaggingXml(const TagSet& tags) {
  XmlWriter w;
  w.Open("Tagging", kS3Namespace);
  w.Open("TagSet");
  for (const auto& [key, value] : tags) {
    w.Open("Tag");
    w.Element("Key", key);
    w.Element("Value", value);
    w.Close();
  }
  w.Close();
  w.Close();
  return std::move(w).Finish();
}

XmlBodyError ParseTaggingHeader(std::string_view value, TagSet* out) {
  const XmlBodyError malformed{
      ErrorCode::kInvalidArgument,
      "The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query "
      "parameters without tag name duplicates."};
  std::vector<text::NameValue> pairs;
  if (!text::SplitUrlEncodedStrict(value, text::Plus::kSpace, &pairs)) return malformed;
  TagSet tags;
  std::set<std::string> keys;
  for (text::NameValue& pair : pairs) {
    if (!keys.insert(pair.name).second) return malformed;
    tags.emplace_back(std::move(pair.name), std::move(pair.value));
  }
  if (XmlBodyError e = ValidateTags(tags, TagTarget::kObject); !e.ok()) return e;
  *out = std::move(tags);
  return {};
}

// ---- Handlers.

Failure NewObjectTags(const Context& ctx, const storage::ObjectMeta* source,
                      storage::ObjectMeta* meta) {
  const std::string* header = ctx.request.Find(kAmzTagging);
  if (source != nullptr) {
    const std::string* directive = ctx.request.Find(kAmzTaggingDirective);
    if (directive != nullptr && *directive != "COPY" && *directive != "REPLACE") {
      return ErrorResponse(ctx, ErrorCode::kInvalidArgument, "Unknown tagging directive.");
    }
    if (directive == nullptr || *directive == "COPY") {
      meta->tags = source->tags;
      return Failure::None();
    }
  }
  meta->tags.clear();
  if (header == nullptr) return Failure::None();
  TagSet tags;
  if (XmlBodyError e = ParseTaggingHeader(*header, &tags); !e.ok()) {
    return ErrorResponse(ctx, e.code, e.message);
  }
  // Tagging a new object needs s3:PutObjectTagging besides the write's own permission
  // (https://docs.aws.amazon.com/AmazonS3/latest/userguide/tagging-and-policies.html).
  if (!tags.empty()) {
    if (ErrorCode denied = Authorize(ctx, iam::Action::kPutObjectTagging,
                                     {.bucket = ctx.route.bucket, .key = ctx.route.key});
        denied != ErrorCode::kNone) {
      return ErrorResponse(ctx, denied);
    }
  }
  meta->tags = std::move(tags);
  return Failure::None();
}

void SetTaggingCountHeader(const storage::ObjectMeta& meta, HttpResponse* r) {
  if (!meta.tags.empty()) r->Set(std::string(kAmzTaggingCount), std::to_string(meta.tags.size()));
}

HttpResponse GetObjectTagging(const Context& ctx) {
  storage::DeleteMarkerInfo marker;
  storage::Result<storage::ObjectMeta> meta = ctx.store->HeadObjectVersion(
      ctx.route.bucket, ctx.route.key, ctx.route.version_id.value_or(""), &marker);
  if (!meta.ok()) return VersionReadError(ctx, meta.status());
  HttpResponse r = XmlResponse(TaggingXml(meta->tags));
  SetVersionIdHeader(ctx, meta->version_id, &r);
  return r;
}

// The body needs Content-MD5 or a checksum: the API marks PutObjectTagging
// httpChecksumRequired. Replaces the version's tags in place (its data, etag and Last-Modified
// stay).
// Authorized here, once the body is read, so that s3:RequestObjectTag and
// s3:RequestObjectTagKeys see its tags; a body that cannot be read or parsed is answered only to
// a caller allowed without them.
HttpResponse PutObjectTagging(const Context& ctx) {
  std::string body;
  std::string message;
  const ErrorCode read = ReadVerifiedSmallBody(ctx, &body, &message);
  TagSet tags;
  XmlBodyError parsed{};
  if (read == ErrorCode::kNone) parsed = ParseTagging(body, TagTarget::kObject, &tags);
  BodyFacts facts;
  if (read == ErrorCode::kNone && parsed.ok()) facts.tags = &tags;
  if (ErrorCode denied = AuthorizeRequest(ctx, facts); denied != ErrorCode::kNone) {
    return ErrorResponse(ctx, denied);
  }
  if (read != ErrorCode::kNone) return ErrorResponse(ctx, read, message);
  if (!parsed.ok()) return ErrorResponse(ctx, parsed.code, parsed.message);
  storage::Result<std::string> changed = ctx.store->PutObjectTags(
      ctx.route.bucket, ctx.route.key, ctx.route.version_id.value_or(""), tags);
  if (!changed.ok()) return VersionReadError(ctx, changed.status());
  HttpResponse r;
  SetVersionIdHeader(ctx, *changed, &r);
  return r;
}

HttpResponse DeleteObjectTagging(const Context& ctx) {
  storage::Result<std::string> changed = ctx.store->PutObjectTags(
      ctx.route.bucket, ctx.route.key, ctx.route.version_id.value_or(""), {});
  if (!changed.ok()) return VersionReadError(ctx, changed.status());
  HttpResponse r;
  r.status = 204;
  SetVersionIdHeader(ctx, *changed, &r);
  return r;
}

// A bucket without tags has no TagSet: 404 NoSuchTagSet.
HttpResponse GetBucketTagging(const Context& ctx) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  if (bucket->tags.empty()) return ErrorResponse(ctx, ErrorCode::kNoSuchTagSet);
  return XmlResponse(TaggingXml(bucket->tags));
}

// Replaces the bucket's tags (an empty TagSet removes them). The body needs Content-MD5 or a
// checksum (httpChecksumRequired). 200 with no body, as Ceph RGW and MinIO answer: S3 documents
// 204, which every AWS SDK takes as any 2xx, but minio-js (8) takes only 200 and reports an
// S3Error without a code for 204.
HttpResponse PutBucketTagging(const Context& ctx) {
  TagSet tags;
  if (Failure f = ReadXmlBody(ctx, kDigestRequired, &tags, ParseTagging, TagTarget::kBucket)) {
    return f.TakeResponse();
  }
  return AnswerBucketChange(ctx, [&](storage::BucketRecord* bucket) -> Failure {
    bucket->tags = tags;
    return Failure::None();
  });
}

HttpResponse DeleteBucketTagging(const Context& ctx) {
  return AnswerBucketChange(ctx, [](storage::BucketRecord* bucket) -> Failure {
    bucket->tags.clear();
    return Failure::None();
  }, 204);
}

}  // namespace cubby::s3api
