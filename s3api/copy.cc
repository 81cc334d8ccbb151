// CopyObject and the copy-source handling UploadPartCopy shares.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_CopyObject.html
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "s3api/auth/checksum.h"
#include "s3api/auth/crypto.h"
#include "s3api/format.h"
#include "s3api/handlers.h"
#include "s3api/new_object.h"
#include "s3api/preconditions.h"
#include "s3api/quota.h"
#include "s3api/sse.h"
#include "s3api/xml.h"
#include "text/encoding.h"
#include "text/uri.h"

namespace cubby::s3api {

namespace {

// "/bucket/key", "bucket/key", URL-encoded, with an optional "?versionId=...". False on any
// other shape.
bool ParseCopySource(std::string_view header, CopySource* out) {
  size_t q = header.find('?');
  if (q != std::string_view::npos) {
    constexpr std::string_view kVersionId = "versionId=";
    if (!header.substr(q + 1).starts_with(kVersionId)) return false;
    out->version_id = std::string(header.substr(q + 1 + kVersionId.size()));
  }
  std::string decoded;
  if (!text::PercentDecodeStrict(header.substr(0, q), text::Plus::kLiteral, &decoded)) {
    return false;
  }
  std::string_view path = decoded;
  if (path.starts_with('/')) path.remove_prefix(1);
  size_t slash = path.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == path.size()) return false;
  out->bucket = std::string(path.substr(0, slash));
  out->key = std::string(path.substr(slash + 1));
  return out->key.size() <= kMaxKeyBytes;
}

void CopyContentMeta(const storage::ObjectMeta& from, storage::ObjectMeta* to) {
  to->content_type = from.content_type;
  to->content_encoding = from.content_encoding;
  to->content_disposition = from.content_disposition;
  to->content_language = from.content_language;
  to->cache_control = from.cache_control;
  to->expires = from.expires;
  to->user_meta = from.user_meta;
}

// Whole-object checksums stay valid for a byte-identical copy; COMPOSITE ones describe the
// source's parts, which the copy (a single part) no longer has.
void KeepFullObjectChecksums(const storage::ObjectMeta& from, storage::ObjectMeta* to) {
  for (const auto& [name, value] : from.checksums) {
    if (value.find('-') == std::string::npos) to->checksums[name] = value;
  }
}

}  // namespace

Failure OpenCopySource(const Context& ctx, CopySource* source,
                       std::unique_ptr<storage::ObjectReader>* reader) {
  const std::string* header = ctx.request.Find("x-amz-copy-source");
  if (header == nullptr || !ParseCopySource(*header, source)) {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument,
                         "Copy Source must mention the source bucket and key: "
                         "sourcebucket/sourcekey");
  }
  if (source->version_id && source->version_id->empty()) {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument, "Version id cannot be the empty string");
  }
  const std::string_view version = source->version_id ? std::string_view(*source->version_id) : std::string_view();
  if (ErrorCode e = Authorize(ctx,
                              source->version_id ? iam::Action::kGetObjectVersion
                                                 : iam::Action::kGetObject,
                              {.bucket = source->bucket, .key = source->key, .version_id = version});
      e != ErrorCode::kNone) {
    return ErrorResponse(ctx, e);
  }
  if (ErrorCode e = CheckExpectedBucketOwner(ctx, kSourceExpectedBucketOwner, source->bucket);
      e != ErrorCode::kNone) {
    return ErrorResponse(ctx, e);
  }
  storage::DeleteMarkerInfo marker;
  storage::Result<std::unique_ptr<storage::ObjectReader>> opened =
      ctx.store->OpenObjectVersion(source->bucket, source->key, version, &marker);
  if (!opened.ok()) {
    if (marker.delete_marker && source->version_id) {
      return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                           "The source of a copy request may not specifically refer to a delete "
                           "marker by version id.");
    }
    if (opened.status().code() == storage::Code::kInvalidArgument) {
      return ErrorResponse(ctx, ErrorCode::kInvalidArgument, "Invalid version id specified");
    }
    return StorageError(ctx, opened.status());
  }
  // Every failed x-amz-copy-source-if-* is 412, the not-modified ones too (CopyObject).
  if (EvaluatePreconditions(ctx.request, kCopySourcePreconditions, (*opened)->meta()) !=
      PreconditionResult::kHolds) {
    return ErrorResponse(ctx, ErrorCode::kPreconditionFailed);
  }
  // An encrypted source is read as plaintext (an SSE-C one with the key its
  // x-amz-copy-source-server-side-encryption-customer-* headers give).
  OpenedKeys keys;
  if (Failure failure = CheckReadKey(ctx, (*opened)->meta(), source->bucket, source->key,
                                     kCopySourceCustomerPrefix, true, &keys)) {
    return failure;
  }
  *reader = std::move(opened).value();
  if ((*reader)->meta().sealed()) *reader = NewPlainReader(std::move(*reader), std::move(keys));
  return Failure::None();
}

void SetCopySourceVersionHeader(const Context& ctx, const CopySource& source,
                                const storage::ObjectMeta& read, HttpResponse* r) {
  SetVersionIdHeader(ctx, read.version_id, r, "x-amz-copy-source-version-id", source.bucket);
}

Failure CopyBytes(const Context& ctx, storage::ObjectReader& reader, uint64_t length,
                  const BodySink& sink, std::string* md5, auth::Checksummer* checksum) {
  auth::Hasher hasher(auth::HashAlgorithm::kMd5);
  std::vector<char> buf(kCopyBufferBytes);
  while (length > 0) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), length));
    storage::Result<size_t> got = reader.Read(buf.data(), want);
    if (!got.ok()) return StorageError(ctx, got.status());
    if (*got == 0) {
      return StorageError(ctx, storage::Status(storage::Code::kCorruption,
                                               "copy source ended before its size"));
    }
    std::string_view piece(buf.data(), *got);
    hasher.Update(piece);
    if (checksum != nullptr) checksum->Update(piece);
    storage::Status s = sink(piece);
    if (!s.ok()) return StorageError(ctx, s);
    length -= *got;
  }
  *md5 = hasher.Finish();
  return Failure::None();
}

namespace {

// CopyObjectResult, with the versions read and written.
HttpResponse CopyResult(const Context& ctx, const CopySource& source,
                        const storage::ObjectMeta& from, const storage::ObjectMeta& meta) {
  XmlWriter w;
  w.Open("CopyObjectResult", kS3Namespace);
  w.Element("ETag", QuoteEtag(meta.etag));
  w.Element("LastModified", Iso8601(meta.last_modified_ms));
  // The checksum a copy computed on request (x-amz-checksum-algorithm).
  if (ctx.request.Find("x-amz-checksum-algorithm") != nullptr) {
    for (const auto& [name, value] : meta.checksums) w.Element("Checksum" + name, value);
  }
  w.Close();
  HttpResponse r = XmlResponse(std::move(w).Finish());
  SetCopySourceVersionHeader(ctx, source, from, &r);
  SetVersionIdHeader(ctx, meta.version_id, &r);
  return r;
}

// x-amz-metadata-directive: COPY (the default) or REPLACE; another is InvalidArgument.
Failure MetadataDirective(const Context& ctx, bool* replace) {
  const std::string* directive = ctx.request.Find("x-amz-metadata-directive");
  *replace = directive != nullptr && *directive == "REPLACE";
  if (directive != nullptr && !*replace && *directive != "COPY") {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument, "Unknown metadata directive.");
  }
  return Failure::None();
}

// The copy's content headers and metadata: the request's (REPLACE), else the source's.
Failure CopyContent(const Context& ctx, bool replace, const storage::ObjectMeta& from,
                    storage::ObjectMeta* meta) {
  if (replace) {
    if (ErrorCode e = MetaFromHeaders(ctx.request, meta); e != ErrorCode::kNone) {
      return ErrorResponse(ctx, e);
    }
    return Failure::None();
  }
  CopyContentMeta(from, meta);
  // The class is never copied: the copy's is its header's, else STANDARD (AWS).
  if (ErrorCode e = StorageClassFromHeaders(ctx.request, &meta->storage_class);
      e != ErrorCode::kNone) {
    return ErrorResponse(ctx, e);
  }
  return Failure::None();
}

bool AsksEncryption(const Context& ctx, const SseRequest& sse) {
  return ctx.request.Find("x-amz-server-side-encryption") != nullptr || sse.customer.has_value();
}

// Same bytes, new metadata: no data copy. The ETag and the encryption stay (storage keeps them).
HttpResponse UpdateInPlace(const Context& ctx, const CopySource& source,
                           const storage::ObjectMeta& from, NewObject* object) {
  object->meta.last_modified_ms = ctx.now_ms();
  object->meta.checksums = from.checksums;
  storage::Result<storage::ObjectMeta> updated = ctx.store->UpdateObjectMeta(
      ctx.route.bucket, ctx.route.key, std::move(object->meta), object->cond);
  if (!updated.ok()) return WriteError(ctx, updated.status(), object->cond);
  HttpResponse r = CopyResult(ctx, source, from, *updated);
  SetSseHeaders(updated->encryption, std::nullopt, &r);
  return r;
}

// The source's bytes, with the checksum `algorithm` names computed as they are copied.
NewObjectBytes SourceBytes(const Context& ctx, storage::ObjectReader& reader,
                           std::optional<auth::ChecksumAlgorithm> algorithm) {
  return {.receive = [&ctx, &reader, algorithm](const BodySink& sink, ReceivedBody* out) {
    std::optional<auth::Checksummer> checksum;
    if (algorithm) checksum.emplace(*algorithm);
    const uint64_t size = reader.meta().size;
    if (Failure failure =
            CopyBytes(ctx, reader, size, sink, &out->md5, checksum ? &*checksum : nullptr)) {
      return failure;
    }
    out->size = size;
    if (checksum) {
      out->checksum_name = std::string(auth::ChecksumName(*algorithm));
      out->checksum_b64 = checksum->Finish();
    }
    return Failure::None();
  }};
}

}  // namespace

HttpResponse CopyObject(const Context& ctx) {
  using enum NewObjectStep;
  bool replace = false;
  if (Failure failure = MetadataDirective(ctx, &replace)) return failure.TakeResponse();
  CopySource source;
  std::unique_ptr<storage::ObjectReader> reader;
  if (Failure failure = OpenCopySource(ctx, &source, &reader)) return failure.TakeResponse();
  const storage::ObjectMeta& from = reader->meta();
  if (from.size > kMaxObjectBytes) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "The specified copy source is larger than the maximum allowable size "
                         "for a copy source: 5368709120");
  }
  NewObject object;
  if (Failure failure = CopyContent(ctx, replace, from, &object.meta)) {
    return failure.TakeResponse();
  }
  // x-amz-checksum-algorithm: the copy gets that checksum, computed as the bytes are copied.
  std::optional<auth::ChecksumAlgorithm> algorithm;
  if (Failure failure = ChecksumAlgorithmFromHeaders(ctx, &algorithm)) {
    return failure.TakeResponse();
  }
  if (!algorithm) KeepFullObjectChecksums(from, &object.meta);
  // The copy is a new object: the writer's, with the ACL its headers ask for (none copied), its
  // headers' lock or the bucket's default (not the source's), its request's encryption or the
  // bucket's default (never the source's).
  object.copy_source = &from;
  if (Failure failure =
          DescribeNewObject(ctx, {kAccess, kLock, kTags, kEncryption, kCondition}, &object)) {
    return failure.TakeResponse();
  }
  // Onto itself: only new metadata (REPLACE), new encryption, or an older version made current
  // again. In a versioned bucket the copy is a new version, written as any other copy.
  const bool same_bytes = source.bucket == ctx.route.bucket && source.key == ctx.route.key &&
                          !source.version_id && !algorithm && !AsksEncryption(ctx, object.sse);
  if (same_bytes && !replace && ctx.request.Find("x-amz-storage-class") == nullptr) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "This copy request is illegal because it is trying to copy an object "
                         "to itself without changing the object's metadata, storage class, "
                         "website redirect location or encryption attributes.");
  }
  if (same_bytes &&
      ctx.store->BucketVersioning(ctx.route.bucket) == storage::VersioningState::kUnversioned) {
    return UpdateInPlace(ctx, source, from, &object);
  }
  if (Failure failure = DescribeNewObject(ctx, {kDataKey}, &object)) return failure.TakeResponse();
  // The copy's size is known only now (the pipeline checked for 0 bytes).
  if (storage::Status s = ctx.store->CheckSpaceFor(from.size); !s.ok()) {
    return StorageError(ctx, s);
  }
  if (Failure failure = CheckQuota(ctx, from.size, ctx.route.key)) return failure.TakeResponse();
  storage::ObjectMeta committed;
  if (Failure failure =
          WriteNewObject(ctx, &object, SourceBytes(ctx, *reader, algorithm), &committed)) {
    return failure.TakeResponse();
  }
  HttpResponse r = CopyResult(ctx, source, from, committed);
  SetSseHeaders(committed.encryption, object.sse.customer, &r);
  return r;
}

}  // namespace cubby::s3api
