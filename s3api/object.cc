// Object operations: PutObject, GetObject / HeadObject, DeleteObject.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html
#include <algorithm>
#include <optional>
#include <string>

#include "s3api/auth/checksum.h"
#include "s3api/bucket_config_xml.h"
#include "s3api/format.h"
#include "s3api/handlers.h"
#include "s3api/new_object.h"
#include "s3api/preconditions.h"
#include "s3api/quota.h"
#include "s3api/sse.h"
#include "text/ascii.h"
#include "text/encoding.h"
#include "text/rfc2047.h"

namespace cubby::s3api {

namespace {

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

// The refusals GetObject answers before it reads anything.
Failure RefuseGetRequest(const Context& ctx) {
  // Response header overrides need a signed request ("Anonymous requests can't use these
  // parameters").
  if (ctx.route.overrides.any() && ctx.auth.anonymous) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "Request specific response headers cannot be used for anonymous GET "
                         "requests.");
  }
  // An empty versionId is refused before anything is read (a malformed partNumber only after
  // the preconditions, CheckConditions).
  if (ctx.route.param_error.code != ErrorCode::kNone && !ctx.route.part_number_sent) {
    return ErrorResponse(ctx, ctx.route.param_error.code, ctx.route.param_error.message);
  }
  // A GET / HEAD names no encryption: the object's record says (AWS answers 400).
  if (ctx.request.Find("x-amz-server-side-encryption") != nullptr) {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument,
                         "x-amz-server-side-encryption header is not supported for this "
                         "operation.");
  }
  return Failure::None();
}

// The answer to a failed precondition: 304 (with the validators) or the error.
HttpResponse ConditionFailed(const Context& ctx, ErrorCode e, const storage::ObjectMeta& meta) {
  if (e != ErrorCode::kNotModified) return ErrorResponse(ctx, e);
  HttpResponse r;
  r.status = 304;
  SetObjectHeaders(meta, &r);
  return r;
}

// The checks of the request against the version opened, in S3's order: a Range beside
// partNumber, the preconditions (304 or 412), then a malformed partNumber.
Failure CheckConditions(const Context& ctx, const storage::ObjectMeta& meta) {
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
  return Failure::None();
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

// A GET's body: the selection of `reader`'s version, decrypted when it is sealed.
Failure AttachBody(const Context& ctx, std::unique_ptr<storage::ObjectReader> reader,
                   OpenedKeys keys, const Selection& selection, HttpResponse* r) {
  const bool sealed = reader->meta().sealed();
  if (sealed) reader = NewPlainReader(std::move(reader), std::move(keys));
  if (selection.range.first > 0) {
    storage::Status s = reader->Seek(selection.range.first);
    if (!s.ok()) return StorageError(ctx, s);
  }
  if (sealed && selection.range.length <= kOpenBeforeSendBytes) {
    // Opened before the status line: data that fails to authenticate is a clean 500.
    if (storage::Status s = ReadOpened(*reader, selection.range.length, &r->body); !s.ok()) {
      return StorageError(ctx, s);
    }
    return Failure::None();
  }
  r->source = std::make_unique<ObjectSource>(std::move(reader), selection.range.length);
  return Failure::None();
}

}  // namespace

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

HttpResponse PutObject(const Context& ctx) {
  using enum NewObjectStep;
  NewObject object;
  if (Failure failure = DescribeNewObject(
          ctx, {kContent, kAccess, kLock, kTags, kEncryption, kCondition}, &object)) {
    return failure.TakeResponse();
  }
  // A body whose declared size passes the bucket's quota is refused before it is read.
  if (Failure failure = CheckQuota(ctx, KnownBodySize(ctx), ctx.route.key)) {
    return failure.TakeResponse();
  }
  if (Failure failure = DescribeNewObject(ctx, {kDataKey}, &object)) return failure.TakeResponse();
  const NewObjectBytes body = {.receive = [&](const BodySink& sink, ReceivedBody* out) {
    return ReceiveBody(ctx, kMaxObjectBytes, std::nullopt, sink, out);
  }};
  storage::ObjectMeta committed;
  if (Failure failure = WriteNewObject(ctx, &object, body, &committed)) {
    return failure.TakeResponse();
  }
  HttpResponse r;
  SetNewObjectHeaders(ctx, committed, &r);
  SetExpirationHeader(ctx, ctx.route.key, committed, &r);
  SetSseHeaders(committed.encryption, object.sse.customer, &r);
  return r;
}

HttpResponse GetObject(const Context& ctx) {
  if (Failure failure = RefuseGetRequest(ctx)) return failure.TakeResponse();
  OpenedObject object;
  storage::DeleteMarkerInfo marker;
  if (storage::Status s = Open(ctx, &object, &marker); !s.ok()) {
    if (marker.delete_marker) return DeleteMarkerResponse(ctx, marker);
    return VersionReadError(ctx, s);
  }
  const storage::ObjectMeta& meta = object.meta();
  if (Failure failure = CheckConditions(ctx, meta)) return failure.TakeResponse();
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
  if (Failure failure = AttachBody(ctx, std::move(object.reader), std::move(keys), selection, &r)) {
    return failure.TakeResponse();
  }
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
