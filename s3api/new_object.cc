// The write path of a new object (new_object.h): the steps that describe it, and its write.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html
#include "s3api/new_object.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "s3api/auth/checksum.h"
#include "s3api/format.h"
#include "s3api/preconditions.h"
#include "s3api/quota.h"
#include "text/ascii.h"
#include "text/rfc2047.h"

namespace cubby::s3api {

namespace {

constexpr size_t kMaxUserMetaBytes = 2 << 10;  // 2 KiB of x-amz-meta-* names + values

// "aws-chunked" describes the request framing, not the object: AWS does not store it. Only that
// coding is removed; the rest is kept as sent ("deflate, gzip" stays exactly that).
std::string StripAwsChunked(std::string_view encodings) {
  std::vector<std::string_view> kept;
  bool removed = false;
  for (std::string_view rest = encodings; !rest.empty();) {
    const size_t comma = rest.find(',');
    const std::string_view item = text::TrimOws(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
    if (item == "aws-chunked") {
      removed = true;
    } else if (!item.empty()) {
      kept.push_back(item);
    }
  }
  if (!removed) return std::string(encodings);
  std::string out;
  for (std::string_view item : kept) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

Failure Step(const Context& ctx, NewObjectStep step, NewObject* object) {
  switch (step) {
    case NewObjectStep::kContent:
      if (ErrorCode e = MetaFromHeaders(ctx.request, &object->meta); e != ErrorCode::kNone) {
        return ErrorResponse(ctx, e);
      }
      return Failure::None();
    case NewObjectStep::kAccess:
      return NewObjectAccess(ctx, &object->meta);
    case NewObjectStep::kLock:
      return NewObjectLock(ctx, &object->meta);
    case NewObjectStep::kTags:
      return NewObjectTags(ctx, object->copy_source, &object->meta);
    case NewObjectStep::kEncryption:
      return SseRequestForWrite(ctx, RequestHeaders(ctx.request), &object->sse);
    case NewObjectStep::kCondition:
      return PutCondition(ctx, &object->cond);
    case NewObjectStep::kDataKey:
      return NewWriteKey(ctx, object->sse, ctx.route.bucket, ctx.route.key, "", &object->data_key);
  }
  return ErrorResponse(ctx, ErrorCode::kInternalError);
}

}  // namespace

Failure DescribeNewObject(const Context& ctx, std::initializer_list<NewObjectStep> steps,
                          NewObject* object) {
  for (NewObjectStep step : steps) {
    if (Failure failure = Step(ctx, step, object)) return failure;
  }
  return Failure::None();
}

Failure WriteNewObject(const Context& ctx, NewObject* object, const NewObjectBytes& bytes,
                       storage::ObjectMeta* committed) {
  storage::Result<std::unique_ptr<storage::ObjectWriter>> writer =
      ctx.store->NewObjectWriter(ctx.route.bucket);
  if (!writer.ok()) return StorageError(ctx, writer.status());
  // Nothing is committed until every byte is stored and checked, so any error leaves no object
  // (the writer's destructor releases the data). An encrypted object is sealed on its way.
  Sealing sealing(&object->data_key,
                  [&](std::string_view piece) { return (*writer)->Append(piece); });
  ReceivedBody received;
  if (Failure failure = bytes.receive(sealing.sink(), &received)) return failure;
  if (storage::Status s = sealing.Finish(); !s.ok()) return StorageError(ctx, s);
  if (bytes.check) {
    if (Failure failure = bytes.check(received)) return failure;
  }
  storage::ObjectMeta& meta = object->meta;
  meta.size = received.size;
  meta.encryption = std::move(object->data_key.record);
  meta.etag = SealedEtag(meta.encryption, received.md5);
  meta.last_modified_ms = ctx.now_ms();
  if (!received.checksum_name.empty()) {
    meta.checksums = {{received.checksum_name, received.checksum_b64}};
  }
  // Again with the size received, against the usage now (quota.h).
  if (Failure failure = CheckQuota(ctx, received.size, ctx.route.key)) return failure;
  storage::Result<storage::ObjectMeta> stored =
      (*writer)->Commit(ctx.route.key, std::move(meta), object->cond);
  if (!stored.ok()) return WriteError(ctx, stored.status(), object->cond);
  *committed = std::move(stored).value();
  return Failure::None();
}

void SetNewObjectHeaders(const Context& ctx, const storage::ObjectMeta& committed,
                         HttpResponse* r) {
  r->Set("ETag", QuoteEtag(committed.etag));
  SetChecksumHeaders(committed.checksums, r);
  SetVersionIdHeader(ctx, committed.version_id, r);
}

// x-amz-storage-class: AWS's classes are accepted (cubby stores every object alike); any
// other value is InvalidStorageClass, as AWS answers.
// https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html#AmazonS3-PutObject-request-header-StorageClass
ErrorCode StorageClassFromHeaders(const HttpRequest& request, std::string* storage_class) {
  storage_class->clear();
  const std::string* v = request.Find("x-amz-storage-class");
  if (v == nullptr) return ErrorCode::kNone;
  static constexpr std::string_view kClasses[] = {
      "STANDARD",       "REDUCED_REDUNDANCY", "STANDARD_IA", "ONEZONE_IA", "INTELLIGENT_TIERING",
      "GLACIER",        "DEEP_ARCHIVE",       "OUTPOSTS",    "GLACIER_IR", "SNOW",
      "EXPRESS_ONEZONE"};
  if (std::find(std::begin(kClasses), std::end(kClasses), *v) == std::end(kClasses)) {
    return ErrorCode::kInvalidStorageClass;
  }
  // Kept as given and reported back; STANDARD is what an object without one reports.
  if (*v != "STANDARD") *storage_class = *v;
  return ErrorCode::kNone;
}

// Fills the stored content headers and user metadata from the request.
ErrorCode MetaFromHeaders(const HttpRequest& request, storage::ObjectMeta* meta) {
  auto copy = [&](std::string_view name, std::string* field) {
    if (const std::string* v = request.Find(name)) *field = *v;
  };
  meta->content_type = "binary/octet-stream";
  copy("content-type", &meta->content_type);
  if (const std::string* v = request.Find("content-encoding")) {
    meta->content_encoding = StripAwsChunked(*v);
  }
  if (ErrorCode e = StorageClassFromHeaders(request, &meta->storage_class); e != ErrorCode::kNone) {
    return e;
  }
  copy("content-disposition", &meta->content_disposition);
  copy("content-language", &meta->content_language);
  copy("cache-control", &meta->cache_control);
  copy("expires", &meta->expires);
  size_t user_bytes = 0;
  for (const Header& h : request.headers) {
    if (!h.name.starts_with(kMetaPrefix)) continue;
    std::string name = h.name.substr(kMetaPrefix.size());
    // Stored as the UTF-8 text the value carries: RFC 2047 words decoded, as S3 stores them.
    std::string value = text::DecodeHeaderText(h.value);
    user_bytes += name.size() + value.size();
    meta->user_meta.emplace_back(std::move(name), std::move(value));
  }
  if (user_bytes > kMaxUserMetaBytes) return ErrorCode::kMetadataTooLarge;
  return ErrorCode::kNone;
}

Failure ChecksumAlgorithmFromHeaders(const Context& ctx,
                                     std::optional<auth::ChecksumAlgorithm>* algorithm) {
  algorithm->reset();
  if (const std::string* h = ctx.request.Find("x-amz-checksum-algorithm")) {
    *algorithm = auth::ParseChecksumAlgorithm(*h);
    if (!*algorithm) {
      return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                           "Checksum algorithm provided is unsupported. Please try again with any "
                           "of the valid types: [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]");
    }
  }
  return Failure::None();
}

// Conditional writes: https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html
// Fills *cond, or returns the error to answer.
Failure PutCondition(const Context& ctx, storage::WriteCondition* cond) {
  if (const std::string* h = ctx.request.Find("if-none-match")) {
    if (*h != "*") {
      return ErrorResponse(ctx, ErrorCode::kNotImplemented,
                           "If-None-Match on PUT supports only '*'.");
    }
    cond->if_none_match_any = true;
  }
  if (const std::string* h = ctx.request.Find("if-match")) {
    std::vector<std::string> etags = ParseEtagList(*h);
    if (etags.size() != 1) return ErrorResponse(ctx, ErrorCode::kNotImplemented);
    if (etags[0] != "*") {
      cond->if_match = etags[0];
      return Failure::None();
    }
    // "If-Match: *" only asks that the key exists; storage has no such condition, so check it
    // now (a racing delete is indistinguishable from a delete right after the PUT).
    storage::Result<storage::ObjectMeta> current =
        ctx.store->HeadObject(ctx.route.bucket, ctx.route.key);
    if (!current.ok()) return StorageError(ctx, current.status());  // NoSuchKey when absent
  }
  return Failure::None();
}

HttpResponse WriteError(const Context& ctx, const storage::Status& status,
                        const storage::WriteCondition& cond) {
  // Storage reports If-Match on a missing key as a failed condition; AWS answers NoSuchKey.
  if (status.code() == storage::Code::kPreconditionFailed && cond.if_match) {
    storage::Result<storage::ObjectMeta> current =
        ctx.store->HeadObject(ctx.route.bucket, ctx.route.key);
    if (!current.ok() && current.status().code() == storage::Code::kNoSuchKey) {
      return ErrorResponse(ctx, ErrorCode::kNoSuchKey);
    }
  }
  return StorageError(ctx, status);
}

}  // namespace cubby::s3api
