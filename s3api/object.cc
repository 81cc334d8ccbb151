// Object operations: PutObject, GetObject / HeadObject, DeleteObject.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "s3api/auth/checksum.h"
#include "s3api/bucket_config_xml.h"
#include "s3api/format.h"
#include "s3api/handlers.h"
#include "s3api/preconditions.h"
#include "s3api/quota.h"
#include "s3api/sse.h"
#include "text/ascii.h"
#include "text/encoding.h"
#include "text/rfc2047.h"

namespace cubby::s3api {

namespace {

constexpr size_t kMaxUserMetaBytes = 2 << 10;     // 2 KiB of x-amz-meta-* names + values
constexpr std::string_view kMetaPrefix = "x-amz-meta-";

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

// Streams [offset, offset + remaining) of a pinned object version.
class ObjectSource : public BodySource {
 public:
  ObjectSource(std::unique_ptr<storage::ObjectReader> reader, uint64_t remaining)
      : reader_(std::move(reader)), remaining_(remaining), sealed_(reader_->meta().sealed()) {}

  ReadResult Read(char* buf, size_t n) override {
    if (remaining_ == 0) return {};
    size_t want = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
    storage::Result<size_t> got = reader_->Read(buf, want);
    // A short object is a storage fault: the response promised content_length bytes.
    if (!got.ok() || *got == 0) return {0, ErrorCode::kInternalError};
    remaining_ -= *got;
    return {*got, ErrorCode::kNone};
  }

  // Storage's file spans, clamped to the range this response sends.
  FileSpanResult NextFileSpan(size_t max) override {
    if (remaining_ == 0) return {};
    size_t want = static_cast<size_t>(std::min<uint64_t>(max, remaining_));
    storage::Result<std::optional<storage::ObjectReader::FileSpan>> got =
        reader_->NextFileSpan(want);
    if (!got.ok()) return {std::nullopt, ErrorCode::kInternalError};
    if (!got->has_value()) return {};
    const storage::ObjectReader::FileSpan& span = **got;
    // A span outside 1..want would desynchronise the body from content_length.
    if (span.length == 0 || span.length > want) return {std::nullopt, ErrorCode::kInternalError};
    remaining_ -= span.length;
    return {FileSpan{span.fd, span.offset, span.length}, ErrorCode::kNone};
  }

  // A sealed object's reader decrypts (NewPlainReader) and has no file spans.
  bool ProducedBytes() const override { return sealed_; }

 private:
  std::unique_ptr<storage::ObjectReader> reader_;
  uint64_t remaining_;
  bool sealed_;
};

struct ByteRange {
  uint64_t first = 0;
  uint64_t length = 0;
};
enum class RangeResult { kNone, kRange, kUnsatisfiable };

// A single "bytes=" range (RFC 7233). Syntax errors and multiple ranges are ignored (the whole
// object is returned), as S3 does.
RangeResult ParseRange(std::string_view header, uint64_t size, ByteRange* range) {
  if (!header.starts_with("bytes=")) return RangeResult::kNone;
  std::string_view spec = header.substr(6);
  if (spec.find(',') != std::string_view::npos) return RangeResult::kNone;
  size_t dash = spec.find('-');
  if (dash == std::string_view::npos) return RangeResult::kNone;
  std::string_view a = spec.substr(0, dash), b = spec.substr(dash + 1);
  uint64_t first = 0, last = 0;
  if (a.empty()) {  // suffix: the last n bytes
    if (!text::ParseUint64(b, &last)) return RangeResult::kNone;
    if (last == 0 || size == 0) return RangeResult::kUnsatisfiable;
    uint64_t n = std::min(last, size);
    *range = {size - n, n};
    return RangeResult::kRange;
  }
  if (!text::ParseUint64(a, &first)) return RangeResult::kNone;
  if (b.empty()) {
    last = UINT64_MAX;
  } else if (!text::ParseUint64(b, &last) || last < first) {
    return RangeResult::kNone;
  }
  if (first >= size) return RangeResult::kUnsatisfiable;
  last = std::min(last, size - 1);
  *range = {first, last - first + 1};
  return RangeResult::kRange;
}

void SetObjectHeaders(const storage::ObjectMeta& meta, HttpResponse* r) {
  r->Set("ETag", QuoteEtag(meta.etag));
  r->Set("Last-Modified", HttpDate(meta.last_modified_ms));
}

// The stored content headers (or their response-* overrides) and the user metadata.
void SetContentHeaders(const ResponseOverrides& overrides, const storage::ObjectMeta& meta,
                       HttpResponse* r) {
  auto header = [&](std::string name, const std::optional<std::string>& o,
                    const std::string& stored) {
    const std::string& value = o ? *o : stored;
    if (!value.empty()) r->Set(std::move(name), value);
  };
  header("Content-Type", overrides.content_type, meta.content_type);
  header("Content-Encoding", overrides.content_encoding, meta.content_encoding);
  header("Content-Disposition", overrides.content_disposition, meta.content_disposition);
  header("Content-Language", overrides.content_language, meta.content_language);
  header("Cache-Control", overrides.cache_control, meta.cache_control);
  header("Expires", overrides.expires, meta.expires);
  // Non-ASCII values go back RFC 2047-encoded, as S3 returns them (UsingMetadata.html).
  for (const auto& [name, value] : meta.user_meta) {
    r->Set(std::string(kMetaPrefix) + name, text::EncodeHeaderText(value));
  }
}

// ---- GetObject's steps.

// The object GetObject answers from. HEAD needs only the metadata (a hot path: clients probe
// with it); GET pins the version it streams.
struct OpenedObject {
  std::unique_ptr<storage::ObjectReader> reader;  // GET
  storage::ObjectMeta head_meta;                  // HEAD

  const storage::ObjectMeta& meta() const { return reader ? reader->meta() : head_meta; }
};

// Opens the version the request addresses (versionId, else the latest). When that is a delete
// marker the status is kNoSuchKey and *marker tells so.
storage::Status Open(const Context& ctx, OpenedObject* out, storage::DeleteMarkerInfo* marker) {
  const std::string_view bucket = ctx.route.bucket, key = ctx.route.key;
  const std::string_view version = ctx.route.version_id ? std::string_view(*ctx.route.version_id) : std::string_view();
  if (ctx.head()) {
    // The hot path: an unversioned bucket's HEAD is one point read.
    storage::Result<storage::ObjectMeta> m =
        version.empty() ? ctx.store->HeadObject(bucket, key)
                        : ctx.store->HeadObjectVersion(bucket, key, version, marker);
    if (!m.ok() && version.empty() && m.status().code() == storage::Code::kNoSuchKey &&
        ctx.store->BucketVersioning(bucket) != storage::VersioningState::kUnversioned) {
      m = ctx.store->HeadObjectVersion(bucket, key, version, marker);
    }
    if (!m.ok()) return m.status();
    out->head_meta = std::move(m).value();
    return storage::Status::Ok();
  }
  storage::Result<std::unique_ptr<storage::ObjectReader>> r =
      ctx.store->OpenObjectVersion(bucket, key, version, marker);
  if (!r.ok()) return r.status();
  out->reader = std::move(r).value();
  return storage::Status::Ok();
}

// The answer when the version a GET / HEAD addresses is a delete marker
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/DeleteMarker.html): 404 NoSuchKey for
// the latest version, 405 MethodNotAllowed for one named by versionId; both say it is a marker.
HttpResponse DeleteMarkerResponse(const Context& ctx, const storage::DeleteMarkerInfo& marker) {
  HttpResponse r = ErrorResponse(
      ctx, ctx.route.version_id ? ErrorCode::kMethodNotAllowed : ErrorCode::kNoSuchKey);
  r.Set("x-amz-delete-marker", "true");
  SetVersionIdHeader(ctx, marker.version_id, &r);
  return r;
}

// The answer to a failed precondition: 304 (with the validators) or the error.
HttpResponse ConditionFailed(const Context& ctx, ErrorCode e, const storage::ObjectMeta& meta) {
  if (e != ErrorCode::kNotModified) return ErrorResponse(ctx, e);
  HttpResponse r;
  r.status = 304;
  SetObjectHeaders(meta, &r);
  return r;
}

// The bytes GetObject sends: the whole object, one part (partNumber) or a Range.
struct Selection {
  ByteRange range;
  bool partial = false;  // 206 with Content-Range
};

// Fills *sel. kNone, or the error: kInvalidPartNumber (a part the object does not have) or
// kInvalidRange (a Range that misses the object).
ErrorCode SelectBytes(const Context& ctx, const storage::ObjectMeta& meta, Selection* sel) {
  sel->range = {0, meta.size};
  if (ctx.route.part_number) {
    const uint32_t part = *ctx.route.part_number;
    // A single-part object is its own part 1 (a ranged GET of the whole object).
    const size_t parts = meta.part_sizes.empty() ? 1 : meta.part_sizes.size();
    if (part > parts) return ErrorCode::kInvalidPartNumber;
    if (!meta.part_sizes.empty()) {
      uint64_t first = 0;
      for (size_t i = 0; i + 1 < part; ++i) first += meta.part_sizes[i];
      sel->range = {first, meta.part_sizes[part - 1]};
    }
    sel->partial = sel->range.length > 0;
  } else if (const std::string* h = ctx.request.Find("range")) {
    const RangeResult result = ParseRange(*h, meta.size, &sel->range);
    if (result == RangeResult::kUnsatisfiable) return ErrorCode::kInvalidRange;
    if (result == RangeResult::kNone) sel->range = {0, meta.size};
    sel->partial = result == RangeResult::kRange;
  }
  return ErrorCode::kNone;
}

HttpResponse SelectionError(const Context& ctx, ErrorCode e, const storage::ObjectMeta& meta) {
  HttpResponse r = ErrorResponse(ctx, e);
  if (e == ErrorCode::kInvalidRange) r.Set("Content-Range", "bytes */" + std::to_string(meta.size));
  return r;
}

// Status and headers of a GET / HEAD that succeeds; content_length is the selection's length.
HttpResponse ObjectResponse(const Context& ctx, const storage::ObjectMeta& meta,
                            const Selection& sel) {
  HttpResponse r;
  SetContentHeaders(ctx.route.overrides, meta, &r);
  SetObjectHeaders(meta, &r);
  r.Set("Accept-Ranges", "bytes");
  SetVersionIdHeader(ctx, meta.version_id, &r);
  for (auto& [name, value] : ObjectLockResponseHeaders(meta.lock)) r.Set(name, value);
  SetTaggingCountHeader(meta, &r);
  if (sel.partial) {
    r.status = 206;
    r.Set("Content-Range", "bytes " + std::to_string(sel.range.first) + "-" +
                               std::to_string(sel.range.first + sel.range.length - 1) + "/" +
                               std::to_string(meta.size));
  }
  if (ctx.route.part_number && !meta.part_sizes.empty()) {
    r.Set("x-amz-mp-parts-count", std::to_string(meta.part_sizes.size()));
  }
  // AWS names the class of every object but STANDARD ones.
  if (!meta.storage_class.empty()) r.Set("x-amz-storage-class", meta.storage_class);
  // Checksums only on request, and not for a byte range (AWS). A part of a multipart object
  // (partNumber) has its own checksum, when the object keeps its parts' checksums.
  const std::string* checksum_mode = ctx.request.Find("x-amz-checksum-mode");
  if (checksum_mode != nullptr && *checksum_mode == "ENABLED") {
    if (ctx.route.part_number && !meta.part_sizes.empty()) {
      const size_t index = *ctx.route.part_number - 1;  // SelectBytes checked the range
      if (!meta.part_checksums.empty() && !meta.checksums.empty() &&
          index < meta.part_checksums.size()) {
        const auto& [name, value] = *meta.checksums.begin();
        std::optional<auth::ChecksumAlgorithm> algorithm = auth::ParseChecksumAlgorithm(name);
        if (algorithm) {
          r.Set(std::string(auth::ChecksumHeaderName(*algorithm)), meta.part_checksums[index]);
          r.Set("x-amz-checksum-type", std::string(ChecksumType(value)));
        }
      }
    } else if (!sel.partial) {
      SetChecksumHeaders(meta.checksums, &r);
    }
  }
  // For HEAD the server sends this as the Content-Length of the would-be GET, with no body.
  r.content_length = sel.range.length;
  return r;
}

}  // namespace

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

void SetVersionIdHeader(const Context& ctx, std::string_view version_id, HttpResponse* r,
                        std::string_view header, std::string_view bucket) {
  if (!version_id.empty()) {
    r->Set(std::string(header), std::string(version_id));
  } else if (ctx.store->BucketVersioning(bucket.empty() ? ctx.route.bucket : bucket) !=
             storage::VersioningState::kUnversioned) {
    r->Set(std::string(header), std::string(storage::kNullVersionId));
  }
}

HttpResponse VersionReadError(const Context& ctx, const storage::Status& status) {
  if (status.code() == storage::Code::kInvalidArgument && ctx.route.version_id) {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument, "Invalid version id specified");
  }
  if (status.code() == storage::Code::kNoSuchKey) {
    // Storage says kNoSuchKey for a delete marker too; only a DELETE works on one
    // (DeleteMarker.html), so every other request that addressed one answers as GET does.
    // This read happens on the error path only.
    storage::DeleteMarkerInfo marker;
    storage::Result<storage::ObjectMeta> again = ctx.store->HeadObjectVersion(
        ctx.route.bucket, ctx.route.key, ctx.route.version_id.value_or(""), &marker);
    if (!again.ok() && marker.delete_marker) return DeleteMarkerResponse(ctx, marker);
  }
  return StorageError(ctx, status);
}

bool BypassGovernance(const Context& ctx, std::string_view key) {
  const std::string* h = ctx.request.Find("x-amz-bypass-governance-retention");
  if (h == nullptr || !text::EqualsIgnoreCase(*h, "true")) return false;
  return Authorize(ctx, iam::Action::kBypassGovernanceRetention,
                   {.bucket = ctx.route.bucket, .key = key}) == ErrorCode::kNone;
}

void SetChecksumHeaders(const std::map<std::string, std::string>& checksums, HttpResponse* r) {
  for (const auto& [name, value] : checksums) {
    std::optional<auth::ChecksumAlgorithm> algorithm = auth::ParseChecksumAlgorithm(name);
    if (!algorithm) continue;
    r->Set(std::string(auth::ChecksumHeaderName(*algorithm)), value);
    r->Set("x-amz-checksum-type", std::string(ChecksumType(value)));
  }
}

std::string_view ChecksumType(std::string_view value) {
  return value.find('-') != std::string_view::npos ? "COMPOSITE" : "FULL_OBJECT";
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

HttpResponse PutObject(const Context& ctx) {
  storage::ObjectMeta meta;
  if (ErrorCode e = MetaFromHeaders(ctx.request, &meta); e != ErrorCode::kNone) {
    return ErrorResponse(ctx, e);
  }
  if (Failure failure = NewObjectAccess(ctx, &meta)) return failure.TakeResponse();
  if (Failure failure = NewObjectLock(ctx, &meta)) return failure.TakeResponse();
  if (Failure failure = NewObjectTags(ctx, nullptr, &meta)) return failure.TakeResponse();
  SseRequest sse;
  if (Failure failure = SseRequestForWrite(ctx, RequestHeaders(ctx.request), &sse)) {
    return failure.TakeResponse();
  }
  storage::WriteCondition cond;
  if (Failure failure = PutCondition(ctx, &cond)) return failure.TakeResponse();
  // A body whose declared size passes the bucket's quota is refused before it is read.
  if (Failure failure = CheckQuota(ctx, KnownBodySize(ctx), ctx.route.key)) {
    return failure.TakeResponse();
  }
  WriteKey key;
  if (Failure failure = NewWriteKey(ctx, sse, ctx.route.bucket, ctx.route.key, "", &key)) {
    return failure.TakeResponse();
  }

  storage::Result<std::unique_ptr<storage::ObjectWriter>> writer =
      ctx.store->NewObjectWriter(ctx.route.bucket);
  if (!writer.ok()) return StorageError(ctx, writer.status());

  // Nothing is committed until the whole body is read and verified, so any error leaves no
  // object (the writer's destructor releases the data). An encrypted body is sealed on its way.
  Sealing sealing(&key, [&](std::string_view chunk) { return (*writer)->Append(chunk); });
  ReceivedBody body;
  Failure failure = ReceiveBody(ctx, kMaxObjectBytes, std::nullopt, sealing.sink(), &body);
  if (failure) return failure.TakeResponse();
  if (storage::Status s = sealing.Finish(); !s.ok()) return StorageError(ctx, s);
  meta.size = body.size;
  meta.encryption = std::move(key.record);
  meta.etag = SealedEtag(meta.encryption, body.md5);
  meta.last_modified_ms = ctx.now_ms();
  if (!body.checksum_name.empty()) meta.checksums[body.checksum_name] = body.checksum_b64;
  // Again with the size received, against the usage now: concurrent writers pass the quota by
  // at most the writes in flight. A refusal drops the stored body (the writer's destructor).
  if (Failure failure = CheckQuota(ctx, body.size, ctx.route.key)) return failure.TakeResponse();
  storage::Result<storage::ObjectMeta> committed =
      (*writer)->Commit(ctx.route.key, std::move(meta), cond);
  if (!committed.ok()) return WriteError(ctx, committed.status(), cond);
  HttpResponse r;
  r.Set("ETag", QuoteEtag(committed->etag));
  SetChecksumHeaders(committed->checksums, &r);
  SetVersionIdHeader(ctx, committed->version_id, &r);
  SetExpirationHeader(ctx, ctx.route.key, *committed, &r);
  SetSseHeaders(committed->encryption, sse.customer, &r);
  return r;
}

HttpResponse GetObject(const Context& ctx) {
  // Response header overrides need a signed request ("Anonymous requests can't use these
  // parameters").
  if (ctx.route.overrides.any() && ctx.auth.anonymous) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "Request specific response headers cannot be used for anonymous GET "
                         "requests.");
  }
  // An empty versionId is refused before anything is read (a malformed partNumber only after
  // the preconditions, below).
  if (ctx.route.param_error.code != ErrorCode::kNone && !ctx.route.part_number_sent) {
    return ErrorResponse(ctx, ctx.route.param_error.code, ctx.route.param_error.message);
  }
  // A GET / HEAD names no encryption: the object's record says (AWS answers 400).
  if (ctx.request.Find("x-amz-server-side-encryption") != nullptr) {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument,
                         "x-amz-server-side-encryption header is not supported for this "
                         "operation.");
  }
  OpenedObject object;
  storage::DeleteMarkerInfo marker;
  if (storage::Status s = Open(ctx, &object, &marker); !s.ok()) {
    if (marker.delete_marker) return DeleteMarkerResponse(ctx, marker);
    return VersionReadError(ctx, s);
  }
  const storage::ObjectMeta& meta = object.meta();
  if (ctx.route.part_number_sent && ctx.request.Find("range") != nullptr) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "Cannot specify both Range header and partNumber query parameter");
  }
  switch (EvaluatePreconditions(ctx.request, kObjectPreconditions, meta)) {
    case PreconditionResult::kHolds:
      break;
    case PreconditionResult::kFailed:
      return ConditionFailed(ctx, ErrorCode::kPreconditionFailed, meta);
    case PreconditionResult::kNotModified:
      return ConditionFailed(ctx, ErrorCode::kNotModified, meta);
  }
  // A malformed partNumber is refused only now, after the preconditions (see Route).
  if (const ParamError& bad = ctx.route.param_error; bad.code != ErrorCode::kNone) {
    return ErrorResponse(ctx, bad.code, bad.message);
  }
  Selection selection;
  if (ErrorCode e = SelectBytes(ctx, meta, &selection); e != ErrorCode::kNone) {
    return SelectionError(ctx, e, meta);
  }
  OpenedKeys keys;
  if (Failure failure = CheckReadKey(ctx, meta, ctx.route.bucket, ctx.route.key, kCustomerPrefix,
                                     !ctx.head(), &keys)) {
    return failure.TakeResponse();
  }
  HttpResponse r = ObjectResponse(ctx, meta, selection);
  SetSseHeaders(meta.encryption, keys.customer, &r);
  // A lifecycle rule expires the current version; a version named by id is not told.
  if (!ctx.route.version_id) SetExpirationHeader(ctx, ctx.route.key, meta, &r);
  if (ctx.head()) return r;
  std::unique_ptr<storage::ObjectReader> reader = std::move(object.reader);
  if (meta.sealed()) reader = NewPlainReader(std::move(reader), std::move(keys));
  if (selection.range.first > 0) {
    storage::Status s = reader->Seek(selection.range.first);
    if (!s.ok()) return StorageError(ctx, s);
  }
  if (meta.sealed() && selection.range.length <= kOpenBeforeSendBytes) {
    // Opened before the status line: data that fails to authenticate is a clean 500.
    if (storage::Status s = ReadOpened(*reader, selection.range.length, &r.body); !s.ok()) {
      return StorageError(ctx, s);
    }
    return r;
  }
  r.source = std::make_unique<ObjectSource>(std::move(reader), selection.range.length);
  return r;
}

// 204 whether or not the key or version existed, as AWS answers
// (https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObject.html). In a versioned
// bucket a delete without versionId makes a delete marker; with versionId it removes that
// version (or marker) for good. x-amz-delete-marker and x-amz-version-id say what happened.
HttpResponse DeleteObject(const Context& ctx) {
  storage::Result<storage::DeleteResult> deleted =
      ctx.route.version_id
          ? ctx.store->DeleteObjectVersion(ctx.route.bucket, ctx.route.key, *ctx.route.version_id,
                                           BypassGovernance(ctx, ctx.route.key))
          : ctx.store->DeleteObjectVersioned(ctx.route.bucket, ctx.route.key);
  if (!deleted.ok()) {
    // A version that is not there is gone already: 204, as for a missing key.
    if (deleted.status().code() != storage::Code::kNoSuchVersion) {
      return VersionReadError(ctx, deleted.status());
    }
    deleted = storage::DeleteResult{};
  }
  HttpResponse r;
  r.status = 204;
  if (deleted->delete_marker) r.Set("x-amz-delete-marker", "true");
  if (ctx.route.version_id) {
    r.Set("x-amz-version-id", *ctx.route.version_id);
  } else if (deleted->delete_marker) {
    SetVersionIdHeader(ctx, deleted->version_id, &r);
  }
  return r;
}

}  // namespace cubby::s3api
