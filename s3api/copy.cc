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

}  // namespace

HttpResponse CopyObject(const Context& ctx) {
  const std::string* directive = ctx.request.Find("x-amz-metadata-directive");
  bool replace = directive != nullptr && *directive == "REPLACE";
  if (directive != nullptr && !replace && *directive != "COPY") {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument, "Unknown metadata directive.");
  }
  CopySource source;
  std::unique_ptr<storage::ObjectReader> reader;
  if (Failure failure = OpenCopySource(ctx, &source, &reader)) return failure.TakeResponse();
  const storage::ObjectMeta& from = reader->meta();
  if (from.size > kMaxObjectBytes) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "The specified copy source is larger than the maximum allowable size "
                         "for a copy source: 5368709120");
  }

  storage::ObjectMeta meta;
  if (replace) {
    if (ErrorCode e = MetaFromHeaders(ctx.request, &meta); e != ErrorCode::kNone) {
      return ErrorResponse(ctx, e);
    }
  } else {
    CopyContentMeta(from, &meta);
    // The class is never copied: the copy's is its header's, else STANDARD (AWS).
    if (ErrorCode e = StorageClassFromHeaders(ctx.request, &meta.storage_class);
        e != ErrorCode::kNone) {
      return ErrorResponse(ctx, e);
    }
  }
  // x-amz-checksum-algorithm: the copy gets that checksum, computed as the bytes are copied.
  std::optional<auth::ChecksumAlgorithm> algorithm;
  if (const std::string* h = ctx.request.Find("x-amz-checksum-algorithm")) {
    algorithm = auth::ParseChecksumAlgorithm(*h);
    if (!algorithm) {
      return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                           "Checksum algorithm provided is unsupported. Please try again with any "
                           "of the valid types: [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]");
    }
  }
  if (!algorithm) KeepFullObjectChecksums(from, &meta);
  // The copy is a new object: the writer's, with the ACL its headers ask for (none copied).
  if (Failure failure = NewObjectAccess(ctx, &meta)) return failure.TakeResponse();
  // Nor is the source's lock: the copy's is its headers' or the bucket's default.
  if (Failure failure = NewObjectLock(ctx, &meta)) return failure.TakeResponse();
  if (Failure failure = NewObjectTags(ctx, &from, &meta)) return failure.TakeResponse();
  // The copy's encryption is its request's (or the bucket's default), never the source's.
  SseRequest sse;
  if (Failure failure = SseRequestForWrite(ctx, RequestHeaders(ctx.request), &sse)) {
    return failure.TakeResponse();
  }
  const bool asks_encryption =
      ctx.request.Find("x-amz-server-side-encryption") != nullptr || sse.customer.has_value();
  storage::WriteCondition cond;
  if (Failure failure = PutCondition(ctx, &cond)) return failure.TakeResponse();
  meta.last_modified_ms = ctx.now_ms();

  // Onto itself: only new metadata (REPLACE), new encryption, or an older version made current
  // again. In a versioned bucket the copy is a new version, written as any other copy.
  const bool onto_itself = source.bucket == ctx.route.bucket && source.key == ctx.route.key;
  if (onto_itself && !replace && !source.version_id && !asks_encryption &&
      ctx.request.Find("x-amz-storage-class") == nullptr && !algorithm) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "This copy request is illegal because it is trying to copy an object "
                         "to itself without changing the object's metadata, storage class, "
                         "website redirect location or encryption attributes.");
  }
  if (onto_itself && !source.version_id && !algorithm && !asks_encryption &&
      ctx.store->BucketVersioning(ctx.route.bucket) == storage::VersioningState::kUnversioned) {
    // Same bytes, new metadata: no data copy. The etag and the encryption stay (storage keeps
    // them).
    meta.checksums = from.checksums;
    storage::Result<storage::ObjectMeta> updated =
        ctx.store->UpdateObjectMeta(ctx.route.bucket, ctx.route.key, std::move(meta), cond);
    if (!updated.ok()) return WriteError(ctx, updated.status(), cond);
    HttpResponse r = CopyResult(ctx, source, from, *updated);
    SetSseHeaders(updated->encryption, std::nullopt, &r);
    return r;
  }
  WriteKey key;
  if (Failure failure = NewWriteKey(ctx, sse, ctx.route.bucket, ctx.route.key, "", &key)) {
    return failure.TakeResponse();
  }

  // The copy's size is known only now (the pipeline checked for 0 bytes).
  if (storage::Status s = ctx.store->CheckSpaceFor(from.size); !s.ok()) {
    return StorageError(ctx, s);
  }
  if (Failure failure = CheckQuota(ctx, from.size, ctx.route.key)) return failure.TakeResponse();
  storage::Result<std::unique_ptr<storage::ObjectWriter>> writer =
      ctx.store->NewObjectWriter(ctx.route.bucket);
  if (!writer.ok()) return StorageError(ctx, writer.status());
  std::string md5;
  std::optional<auth::Checksummer> checksum;
  if (algorithm) checksum.emplace(*algorithm);
  Sealing sealing(&key, [&](std::string_view piece) { return (*writer)->Append(piece); });
  Failure failure =
      CopyBytes(ctx, *reader, from.size, sealing.sink(), &md5, checksum ? &*checksum : nullptr);
  if (failure) return failure.TakeResponse();
  if (storage::Status s = sealing.Finish(); !s.ok()) return StorageError(ctx, s);
  meta.size = from.size;
  meta.encryption = std::move(key.record);
  meta.etag = SealedEtag(meta.encryption, md5);
  if (checksum) {
    meta.checksums = {{std::string(auth::ChecksumName(*algorithm)), checksum->Finish()}};
  }
  // Again against the usage now, as PutObject does (s3api/quota.h).
  if (Failure failure = CheckQuota(ctx, from.size, ctx.route.key)) return failure.TakeResponse();
  storage::Result<storage::ObjectMeta> committed =
      (*writer)->Commit(ctx.route.key, std::move(meta), cond);
  if (!committed.ok()) return WriteError(ctx, committed.status(), cond);
  HttpResponse r = CopyResult(ctx, source, from, *committed);
  SetSseHeaders(committed->encryption, sse.customer, &r);
  return r;
}

}  // namespace cubby::s3api
