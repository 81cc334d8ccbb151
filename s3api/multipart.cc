// Multipart uploads: Create, UploadPart, UploadPartCopy, Complete, Abort, ListParts,
// ListMultipartUploads.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpuoverview.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_CompleteMultipartUpload.html
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "crypt/customer_key.h"
#include "s3api/auth/checksum.h"
#include "s3api/auth/crypto.h"
#include "s3api/format.h"
#include "s3api/handlers.h"
#include "s3api/new_object.h"
#include "s3api/quota.h"
#include "s3api/sse.h"
#include "s3api/xml.h"
#include "text/ascii.h"
#include "text/encoding.h"
#include "text/uri.h"

namespace cubby::s3api {

namespace {

constexpr uint64_t kMinPartBytes = 5ull << 20;  // every part but the last

std::optional<auth::ChecksumAlgorithm> UploadAlgorithm(const storage::UploadRecord& upload) {
  if (upload.checksum_algorithm.empty()) return std::nullopt;
  return auth::ParseChecksumAlgorithm(upload.checksum_algorithm);
}

// <ChecksumCRC32>...</ChecksumCRC32> etc. for each stored checksum.
void WriteChecksums(XmlWriter& w, const std::map<std::string, std::string>& checksums) {
  for (const auto& [name, value] : checksums) {
    if (auth::ParseChecksumAlgorithm(name)) w.Element("Checksum" + name, value);
  }
}

std::string Location(const Context& ctx) {
  const std::string* host = ctx.request.Find("host");
  std::string out = "http://" + (host ? *host : std::string("localhost")) + "/";
  if (!ctx.route.virtual_host) out += ctx.route.bucket + "/";
  return out + text::UriEncode(ctx.route.key, text::Slash::kKeep);
}

HttpResponse CompleteResult(const Context& ctx, const storage::ObjectMeta& meta) {
  XmlWriter w;
  w.Open("CompleteMultipartUploadResult", kS3Namespace);
  w.Element("Location", Location(ctx));
  w.Element("Bucket", ctx.route.bucket);
  w.Element("Key", ctx.route.key);
  w.Element("ETag", QuoteEtag(meta.etag));
  WriteChecksums(w, meta.checksums);
  for (const auto& [name, value] : meta.checksums) {
    w.Element("ChecksumType", ChecksumType(value));
    break;
  }
  HttpResponse r = XmlResponse(std::move(w).Finish());
  SetVersionIdHeader(ctx, meta.version_id, &r);
  return r;
}

// The answer to a Complete whose upload is gone: the same result again when this upload
// produced the current object (a client retrying after a lost response), else NoSuchUpload.
HttpResponse RetriedComplete(const Context& ctx, const storage::Status& gone) {
  storage::Result<storage::ObjectMeta> done =
      ctx.store->CompletedUpload(ctx.route.bucket, ctx.route.key, ctx.route.upload_id);
  if (done.ok()) return CompleteResult(ctx, *done);
  return StorageError(ctx, gone);
}

struct RequestedPart {
  uint32_t number = 0;
  std::string etag;                              // without quotes
  std::map<std::string, std::string> checksums;  // "CRC32" -> value, as sent
};

// <CompleteMultipartUpload><Part><PartNumber/><ETag/><ChecksumCRC32/>?</Part>+</...>.
bool ParseComplete(std::string_view doc, std::vector<RequestedPart>* parts) {
  XmlNode root;
  if (!ParseXml(doc, &root) || root.name != "CompleteMultipartUpload") return false;
  for (const XmlNode& child : root.children) {
    if (child.name != "Part") continue;
    const XmlNode* number = child.Child("PartNumber");
    const XmlNode* etag = child.Child("ETag");
    uint64_t n = 0;
    if (number == nullptr || etag == nullptr || !text::ParseUint64(number->text, &n) ||
        n > kMaxPartNumber) {
      return false;
    }
    RequestedPart part;
    part.number = static_cast<uint32_t>(n);
    std::vector<std::string> etags = ParseEtagList(etag->text);
    part.etag = etags.empty() ? std::string() : etags[0];
    for (const XmlNode& field : child.children) {
      if (!field.name.starts_with("Checksum")) continue;
      std::string name = field.name.substr(8);
      if (auth::ParseChecksumAlgorithm(name)) part.checksums[name] = field.text;
    }
    parts->push_back(std::move(part));
  }
  return !parts->empty() && parts->size() <= kMaxPartNumber;
}

// Every part of the upload, by number.
storage::Result<std::map<uint32_t, storage::PartRecord>> AllParts(const Context& ctx) {
  std::map<uint32_t, storage::PartRecord> out;
  uint32_t marker = 0;
  for (;;) {
    bool truncated = false;
    storage::Result<std::vector<storage::PartRecord>> page = ctx.store->ListParts(
        ctx.route.bucket, ctx.route.key, ctx.route.upload_id, marker, kMaxListEntries, &truncated);
    if (!page.ok()) return page.status();
    for (storage::PartRecord& p : *page) {
      marker = p.part_number;
      out.emplace(p.part_number, std::move(p));
    }
    if (!truncated || page->empty()) break;
  }
  return out;
}

// The object checksum of a completed upload, from its parts' checksums. kNone or the error.
ErrorCode ObjectChecksum(const storage::UploadRecord& upload,
                         const std::vector<const storage::PartRecord*>& parts,
                         std::map<std::string, std::string>* out) {
  std::optional<auth::ChecksumAlgorithm> algorithm = UploadAlgorithm(upload);
  if (!algorithm) return ErrorCode::kNone;
  const std::string name(auth::ChecksumName(*algorithm));
  std::vector<std::string> values;
  std::vector<auth::PartChecksum> sized;
  for (const storage::PartRecord* p : parts) {
    auto it = p->checksums.find(name);
    if (it == p->checksums.end()) return ErrorCode::kInvalidPart;
    values.push_back(it->second);
    sized.push_back({it->second, p->size});
  }
  std::optional<std::string> value = upload.checksum_type == "FULL_OBJECT"
                                         ? auth::FullObjectChecksum(*algorithm, sized)
                                         : auth::CompositeChecksum(*algorithm, values);
  if (!value) return ErrorCode::kInvalidPart;
  (*out)[name] = *value;
  return ErrorCode::kNone;
}

// CompleteMultipartUpload's whole-object checksum (x-amz-checksum-<alg>, and
// x-amz-checksum-type), checked against what the parts give (`computed`, the upload's
// algorithm -> value; a COMPOSITE value ends in "-<parts>", which the header may leave off).
// Failure::None when the request sends none or it matches; InvalidRequest when it names
// another algorithm or type than the upload's, more than one, or a malformed value; BadDigest
// when the value differs.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html
Failure CheckObjectChecksum(const Context& ctx, const storage::UploadRecord& upload,
                            const std::map<std::string, std::string>& computed) {
  if (const std::string* type = ctx.request.Find("x-amz-checksum-type")) {
    if (*type != upload.checksum_type) {
      return ErrorResponse(
          ctx, ErrorCode::kInvalidRequest,
          "The upload was created using the " +
              (upload.checksum_type.empty() ? std::string("null") : upload.checksum_type) +
              " checksum mode. The complete request must use the same "
              "checksum mode.");
    }
  }
  std::optional<auth::ChecksumAlgorithm> sent;
  const std::string* value = nullptr;
  for (auth::ChecksumAlgorithm a : auth::kAllChecksumAlgorithms) {
    const std::string* v = ctx.request.Find(auth::ChecksumHeaderName(a));
    if (v == nullptr) continue;
    if (sent) {
      return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                           "Expecting a single x-amz-checksum- header. Multiple checksum Types "
                           "are not allowed.");
    }
    sent = a;
    value = v;
  }
  if (!sent) return Failure::None();
  const std::string name(auth::ChecksumName(*sent));
  auto it = computed.find(name);
  if (it == computed.end()) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "The upload was created using " +
                             (upload.checksum_algorithm.empty()
                                  ? std::string("no")
                                  : "the " + text::AsciiLowercase(upload.checksum_algorithm)) +
                             " checksum algorithm, but the request names " +
                             text::AsciiLowercase(name) + ".");
  }
  // A COMPOSITE value "<base64>-<parts>" may be sent without its "-<parts>"; the base64 must
  // be valid for the algorithm, and the whole sent value must match.
  const std::string_view have = it->second;
  std::string_view want = *value;
  const std::string_view base = want.substr(0, want.find('-'));
  if (!auth::IsValidChecksumValue(*sent, base)) {
    return ErrorResponse(
        ctx, ErrorCode::kInvalidRequest,
        "Value for " + std::string(auth::ChecksumHeaderName(*sent)) + " header is invalid.");
  }
  const bool matches = want == have || (want == base && have.substr(0, have.find('-')) == base);
  if (!matches) {
    return ErrorResponse(ctx, ErrorCode::kBadDigest,
                         "The " + name + " you specified did not match the calculated checksum.");
  }
  return Failure::None();
}

// Checks the requested list against the stored parts (InvalidPartOrder, InvalidPart,
// EntityTooSmall) and fills `chosen` in order. A part number may be listed more than once in a
// row (a client re-sent the part while its first upload still ran, and lists both ETags): the
// store keeps the upload of that part that finished last, and the object takes that one once,
// as Ceph RGW does, if one of the listed entries names it. A list that goes down is refused.
ErrorCode CheckParts(const std::vector<RequestedPart>& requested,
                     const std::map<uint32_t, storage::PartRecord>& stored,
                     std::vector<const storage::PartRecord*>* chosen) {
  for (size_t i = 1; i < requested.size(); ++i) {
    if (requested[i].number < requested[i - 1].number) return ErrorCode::kInvalidPartOrder;
  }
  auto matches = [](const RequestedPart& want, const storage::PartRecord& have) {
    if (have.etag != want.etag) return false;
    for (const auto& [name, value] : want.checksums) {
      auto it = have.checksums.find(name);
      if (it == have.checksums.end() || it->second != value) return false;
    }
    return true;
  };
  for (size_t first = 0; first < requested.size();) {
    size_t end = first + 1;
    while (end < requested.size() && requested[end].number == requested[first].number) ++end;
    auto it = stored.find(requested[first].number);
    if (it == stored.end()) return ErrorCode::kInvalidPart;
    bool found = false;
    for (size_t i = first; i < end && !found; ++i) found = matches(requested[i], it->second);
    if (!found) return ErrorCode::kInvalidPart;
    chosen->push_back(&it->second);
    first = end;
  }
  for (size_t i = 0; i + 1 < chosen->size(); ++i) {
    if ((*chosen)[i]->size < kMinPartBytes) return ErrorCode::kEntityTooSmall;
  }
  return ErrorCode::kNone;
}

// AWS's multipart ETag: md5 of the concatenated binary part md5s, "-<parts>".
std::string MultipartEtag(const std::vector<const storage::PartRecord*>& parts) {
  auth::Hasher md5(auth::HashAlgorithm::kMd5);
  for (const storage::PartRecord* p : parts) {
    std::string raw;
    if (text::HexDecode(p->etag, &raw)) md5.Update(raw);
  }
  return text::HexEncode(md5.Finish()) + "-" + std::to_string(parts.size());
}

}  // namespace

namespace {

// The encryption an upload's parts are sealed with: the upload's mode and KMS key; an SSE-C
// upload needs the same customer key on every part (UploadPart, UploadPartCopy), as S3 does.
Failure PartEncryption(const Context& ctx, const storage::UploadRecord& upload, SseRequest* out) {
  *out = SseRequest();
  const storage::EncryptionRecord& rec = upload.meta.encryption;
  if (Failure f = CustomerKeyFrom(ctx, RequestHeaders(ctx.request), kCustomerPrefix, &out->customer)) {
    return f;
  }
  if (rec.mode == storage::SseMode::kSseC) {
    if (!out->customer) {
      return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                           "The multipart upload initiate requested encryption. Subsequent part "
                           "requests must include the appropriate encryption parameters.");
    }
    if (!crypt::CustomerKeyMatches(out->customer->key, rec.customer_key_check)) {
      return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                           "The provided encryption parameters did not match the ones used "
                           "originally.");
    }
  } else if (out->customer) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "The multipart upload initiate did not request encryption with customer "
                         "provided keys.");
  }
  out->mode = rec.mode;
  out->kms_key_id = rec.kms_key_arn;
  out->kms_context = rec.kms_context;
  out->bucket_key_enabled = rec.bucket_key_enabled;
  return Failure::None();
}

// The upload's encryption record from CreateMultipartUpload's request: the mode, the KMS key
// (resolved now, so a bad key fails the create) and the SSE-C key's check value.
Failure UploadEncryption(const Context& ctx, const SseRequest& sse, storage::EncryptionRecord* rec) {
  *rec = storage::EncryptionRecord();
  rec->mode = sse.mode;
  switch (sse.mode) {
    case storage::SseMode::kNone:
    case storage::SseMode::kSseS3:
      return Failure::None();
    case storage::SseMode::kSseC: {
      crypt::Result<std::string> check = crypt::NewCustomerKeyCheck(sse.customer->key);
      if (!check.ok()) {
        ctx.summary->error_detail = "encryption: " + check.status().ToString();
        return ErrorResponse(ctx, ErrorCode::kInternalError);
      }
      rec->customer_key_check = std::move(check).value();
      return Failure::None();
    }
    case storage::SseMode::kSseKms: {
      // A data key now checks the KMS key as a PutObject would; the parts get their own.
      WriteKey probe;
      if (Failure f = NewWriteKey(ctx, sse, ctx.route.bucket, ctx.route.key, "", &probe)) return f;
      rec->kms_key_arn = probe.record.kms_key_arn;
      rec->kms_context = sse.kms_context;
      rec->bucket_key_enabled = sse.bucket_key_enabled;
      return Failure::None();
    }
  }
  return Failure::None();
}

// The checksum an upload's parts carry: x-amz-checksum-algorithm and x-amz-checksum-type.
struct UploadChecksum {
  std::string algorithm;  // "CRC32", ...; empty: none
  std::string type;       // COMPOSITE or FULL_OBJECT; empty without an algorithm
};
Failure UploadChecksumFrom(const Context& ctx, UploadChecksum* out) {
  std::optional<auth::ChecksumAlgorithm> algorithm;
  if (Failure failure = ChecksumAlgorithmFromHeaders(ctx, &algorithm)) return failure;
  const std::string* type_header = ctx.request.Find("x-amz-checksum-type");
  if (!algorithm) {
    if (type_header != nullptr) {
      return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                           "The x-amz-checksum-type header can only be used with the "
                           "x-amz-checksum-algorithm header.");
    }
    return Failure::None();
  }
  out->algorithm = std::string(auth::ChecksumName(*algorithm));
  // CRC64NVME supports only FULL_OBJECT; the others default to COMPOSITE.
  out->type = *algorithm == auth::ChecksumAlgorithm::kCrc64Nvme ? "FULL_OBJECT" : "COMPOSITE";
  if (type_header == nullptr) return Failure::None();
  if (*type_header != "COMPOSITE" && *type_header != "FULL_OBJECT") {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "Value for x-amz-checksum-type header is invalid.");
  }
  const bool full = *type_header == "FULL_OBJECT";
  if (full ? !auth::IsCrc(*algorithm) : *algorithm == auth::ChecksumAlgorithm::kCrc64Nvme) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "The " + *type_header + " checksum type cannot be used with the " +
                             text::AsciiLowercase(out->algorithm) + " checksum algorithm.");
  }
  out->type = *type_header;
  return Failure::None();
}

}  // namespace

HttpResponse CreateMultipartUpload(const Context& ctx) {
  // The upload's content headers and metadata, owner and ACL, object lock (headers, else the
  // bucket's default retention from now), tags and encryption become the completed object's
  // (CompleteMultipartUpload starts from the upload's meta); each part is sealed with a key of
  // its own as it arrives.
  using enum NewObjectStep;
  NewObject object;
  if (Failure failure =
          DescribeNewObject(ctx, {kContent, kAccess, kLock, kTags, kEncryption}, &object)) {
    return failure.TakeResponse();
  }
  if (Failure failure = UploadEncryption(ctx, object.sse, &object.meta.encryption)) {
    return failure.TakeResponse();
  }
  UploadChecksum checksum;
  if (Failure failure = UploadChecksumFrom(ctx, &checksum)) return failure.TakeResponse();
  storage::Result<storage::UploadRecord> upload = ctx.store->CreateUpload(
      ctx.route.bucket, ctx.route.key, object.meta, checksum.algorithm, checksum.type,
      ctx.auth.anonymous ? std::string_view() : ctx.auth.key->user_id);
  if (!upload.ok()) return StorageError(ctx, upload.status());
  XmlWriter w;
  w.Open("InitiateMultipartUploadResult", kS3Namespace);
  w.Element("Bucket", ctx.route.bucket);
  w.Element("Key", ctx.route.key);
  w.Element("UploadId", upload->upload_id);
  HttpResponse r = XmlResponse(std::move(w).Finish());
  if (!checksum.algorithm.empty()) {
    r.Set("x-amz-checksum-algorithm", checksum.algorithm);
    r.Set("x-amz-checksum-type", checksum.type);
  }
  SetAbortHeaders(ctx, *upload, &r);
  SetSseHeaders(upload->meta.encryption, object.sse.customer, &r);
  return r;
}

HttpResponse UploadPart(const Context& ctx) {
  const uint32_t part_number = *ctx.route.part_number;
  storage::Result<storage::UploadRecord> upload =
      ctx.store->GetUpload(ctx.route.bucket, ctx.route.key, ctx.route.upload_id);
  if (!upload.ok()) return StorageError(ctx, upload.status());
  SseRequest sse;
  if (Failure failure = PartEncryption(ctx, *upload, &sse)) return failure.TakeResponse();
  // A part counts its own size against the bytes quota (other parts in progress are not
  // usage), before its body is read.
  if (Failure failure = CheckQuota(ctx, KnownBodySize(ctx), std::nullopt)) {
    return failure.TakeResponse();
  }
  WriteKey key;
  if (Failure failure =
          NewWriteKey(ctx, sse, ctx.route.bucket, ctx.route.key, ctx.route.upload_id, &key)) {
    return failure.TakeResponse();
  }
  storage::Result<std::unique_ptr<storage::PartWriter>> writer =
      ctx.store->NewPartWriter(ctx.route.bucket, ctx.route.key, ctx.route.upload_id);
  if (!writer.ok()) return StorageError(ctx, writer.status());

  // As PutObject: nothing is committed before the body is whole and verified.
  Sealing sealing(&key, [&](std::string_view chunk) { return (*writer)->Append(chunk); });
  ReceivedBody body;
  Failure failure =
      ReceiveBody(ctx, kMaxObjectBytes, UploadAlgorithm(*upload), sealing.sink(), &body);
  if (failure) return failure.TakeResponse();
  if (storage::Status s = sealing.Finish(); !s.ok()) return StorageError(ctx, s);
  storage::PartRecord part;
  part.size = body.size;
  part.wrapped_key = key.record.wrapped_key;
  part.etag = SealedEtag(key.record, body.md5);
  part.last_modified_ms = ctx.now_ms();
  if (!body.checksum_name.empty()) part.checksums[body.checksum_name] = body.checksum_b64;
  storage::Result<storage::PartRecord> committed = (*writer)->Commit(part_number, std::move(part));
  if (!committed.ok()) return StorageError(ctx, committed.status());
  HttpResponse r;
  r.Set("ETag", QuoteEtag(committed->etag));
  SetChecksumHeaders(committed->checksums, &r);
  SetSseHeaders(upload->meta.encryption, sse.customer, &r);
  return r;
}

HttpResponse UploadPartCopy(const Context& ctx) {
  const uint32_t part_number = *ctx.route.part_number;
  storage::Result<storage::UploadRecord> upload =
      ctx.store->GetUpload(ctx.route.bucket, ctx.route.key, ctx.route.upload_id);
  if (!upload.ok()) return StorageError(ctx, upload.status());
  SseRequest sse;
  if (Failure failure = PartEncryption(ctx, *upload, &sse)) return failure.TakeResponse();
  CopySource source;
  std::unique_ptr<storage::ObjectReader> reader;
  if (Failure failure = OpenCopySource(ctx, &source, &reader)) return failure.TakeResponse();
  const uint64_t size = reader->meta().size;

  uint64_t first = 0, length = size;
  if (const std::string* range = ctx.request.Find("x-amz-copy-source-range")) {
    std::string_view spec = *range;
    size_t dash = spec.find('-');
    uint64_t last = 0;
    if (!spec.starts_with("bytes=") || dash == std::string_view::npos ||
        !text::ParseUint64(spec.substr(6, dash - 6), &first) ||
        !text::ParseUint64(spec.substr(dash + 1), &last) ||
        last < first) {
      return ErrorResponse(ctx, ErrorCode::kInvalidArgument,
                           "The x-amz-copy-source-range value must be of the form bytes=first-last "
                           "where first and last are the zero-based offsets of the first and last "
                           "bytes to copy");
    }
    if (last >= size) {
      return ErrorResponse(ctx, ErrorCode::kInvalidRange,
                           "Range specified is not valid for source object of size: " +
                               std::to_string(size));
    }
    length = last - first + 1;
  }
  if (length > kMaxObjectBytes) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "The specified copy source is larger than the maximum allowable size "
                         "for a copy source: 5368709120");
  }
  if (first > 0) {
    storage::Status s = reader->Seek(first);
    if (!s.ok()) return StorageError(ctx, s);
  }
  // The copy's size is known only now (the pipeline checked for 0 bytes).
  if (storage::Status s = ctx.store->CheckSpaceFor(length); !s.ok()) return StorageError(ctx, s);
  if (Failure failure = CheckQuota(ctx, length, std::nullopt)) return failure.TakeResponse();
  storage::Result<std::unique_ptr<storage::PartWriter>> writer =
      ctx.store->NewPartWriter(ctx.route.bucket, ctx.route.key, ctx.route.upload_id);
  if (!writer.ok()) return StorageError(ctx, writer.status());
  std::optional<auth::ChecksumAlgorithm> algorithm = UploadAlgorithm(*upload);
  std::optional<auth::Checksummer> checksum;
  if (algorithm) checksum.emplace(*algorithm);
  WriteKey key;
  if (Failure failure =
          NewWriteKey(ctx, sse, ctx.route.bucket, ctx.route.key, ctx.route.upload_id, &key)) {
    return failure.TakeResponse();
  }
  Sealing sealing(&key, [&](std::string_view piece) { return (*writer)->Append(piece); });
  std::string md5;
  Failure failure =
      CopyBytes(ctx, *reader, length, sealing.sink(), &md5, checksum ? &*checksum : nullptr);
  if (failure) return failure.TakeResponse();
  if (storage::Status s = sealing.Finish(); !s.ok()) return StorageError(ctx, s);
  storage::PartRecord part;
  part.size = length;
  part.wrapped_key = key.record.wrapped_key;
  part.etag = SealedEtag(key.record, md5);
  part.last_modified_ms = ctx.now_ms();
  if (checksum) part.checksums[std::string(auth::ChecksumName(*algorithm))] = checksum->Finish();
  storage::Result<storage::PartRecord> committed = (*writer)->Commit(part_number, std::move(part));
  if (!committed.ok()) return StorageError(ctx, committed.status());

  XmlWriter w;
  w.Open("CopyPartResult", kS3Namespace);
  w.Element("ETag", QuoteEtag(committed->etag));
  w.Element("LastModified", Iso8601(committed->last_modified_ms));
  WriteChecksums(w, committed->checksums);
  HttpResponse r = XmlResponse(std::move(w).Finish());
  SetCopySourceVersionHeader(ctx, source, reader->meta(), &r);
  SetSseHeaders(upload->meta.encryption, sse.customer, &r);
  return r;
}

HttpResponse CompleteMultipartUpload(const Context& ctx) {
  storage::Result<storage::UploadRecord> upload =
      ctx.store->GetUpload(ctx.route.bucket, ctx.route.key, ctx.route.upload_id);
  if (!upload.ok()) {
    if (upload.status().code() == storage::Code::kNoSuchUpload) {
      return RetriedComplete(ctx, upload.status());
    }
    return StorageError(ctx, upload.status());
  }
  std::string doc;
  if (ErrorCode e = ReadSmallBody(ctx, &doc); e != ErrorCode::kNone) return ErrorResponse(ctx, e);
  std::vector<RequestedPart> requested;
  if (!ParseComplete(doc, &requested)) return ErrorResponse(ctx, ErrorCode::kMalformedXML);
  storage::WriteCondition cond;
  if (Failure failure = PutCondition(ctx, &cond)) return failure.TakeResponse();

  storage::Result<std::map<uint32_t, storage::PartRecord>> stored = AllParts(ctx);
  if (!stored.ok()) return StorageError(ctx, stored.status());
  std::vector<const storage::PartRecord*> parts;
  if (ErrorCode e = CheckParts(requested, *stored, &parts); e != ErrorCode::kNone) {
    return ErrorResponse(ctx, e);
  }
  storage::ObjectMeta meta = upload->meta;
  meta.checksums.clear();
  if (ErrorCode e = ObjectChecksum(*upload, parts, &meta.checksums); e != ErrorCode::kNone) {
    return ErrorResponse(ctx, e);
  }
  if (Failure failure = CheckObjectChecksum(ctx, *upload, meta.checksums)) {
    return failure.TakeResponse();
  }
  meta.etag = MultipartEtag(parts);
  meta.last_modified_ms = ctx.now_ms();
  std::vector<uint32_t> numbers;
  uint64_t size = 0;
  for (const storage::PartRecord* p : parts) {
    numbers.push_back(p->part_number);
    size += p->size;
  }
  // The object the upload becomes counts in full; a refusal leaves the upload as it is.
  if (Failure failure = CheckQuota(ctx, size, ctx.route.key)) return failure.TakeResponse();
  storage::Result<storage::ObjectMeta> done = ctx.store->CompleteUpload(
      ctx.route.bucket, ctx.route.key, ctx.route.upload_id, numbers, std::move(meta), cond);
  if (!done.ok()) {
    // A concurrent Complete of the same upload won: answer as a retry would be answered.
    if (done.status().code() == storage::Code::kNoSuchUpload) {
      return RetriedComplete(ctx, done.status());
    }
    return WriteError(ctx, done.status(), cond);
  }
  HttpResponse r = CompleteResult(ctx, *done);
  SetSseHeaders(done->encryption, std::nullopt, &r);
  return r;
}

HttpResponse AbortMultipartUpload(const Context& ctx) {
  storage::Status s = ctx.store->AbortUpload(ctx.route.bucket, ctx.route.key, ctx.route.upload_id);
  if (!s.ok()) return StorageError(ctx, s);
  return NoContent();
}

HttpResponse ListParts(const Context& ctx) {
  const size_t max_parts = ctx.route.list.max_entries;
  const uint32_t marker = ctx.route.list.part_number_marker;
  storage::Result<storage::UploadRecord> upload =
      ctx.store->GetUpload(ctx.route.bucket, ctx.route.key, ctx.route.upload_id);
  if (!upload.ok()) return StorageError(ctx, upload.status());
  bool truncated = false;
  storage::Result<std::vector<storage::PartRecord>> parts = ctx.store->ListParts(
      ctx.route.bucket, ctx.route.key, ctx.route.upload_id, marker, max_parts, &truncated);
  if (!parts.ok()) return StorageError(ctx, parts.status());

  XmlWriter w;
  w.Open("ListPartsResult", kS3Namespace);
  w.Element("Bucket", ctx.route.bucket);
  w.Element("Key", ctx.route.key);
  w.Element("UploadId", ctx.route.upload_id);
  WriteOwner(w, "Initiator", UserOwnerName(ctx, upload->initiator_id));
  WriteOwner(w, "Owner", UserOwnerName(ctx, upload->meta.owner_id));
  w.Element("StorageClass",
            upload->meta.storage_class.empty() ? "STANDARD" : upload->meta.storage_class);
  w.Element("PartNumberMarker", std::to_string(marker));
  w.Element("NextPartNumberMarker",
            std::to_string(parts->empty() ? marker : parts->back().part_number));
  w.Element("MaxParts", std::to_string(max_parts));
  w.Element("IsTruncated", truncated ? "true" : "false");
  if (!upload->checksum_algorithm.empty()) {
    w.Element("ChecksumAlgorithm", upload->checksum_algorithm);
    w.Element("ChecksumType", upload->checksum_type);
  }
  for (const storage::PartRecord& p : *parts) {
    w.Open("Part");
    w.Element("PartNumber", std::to_string(p.part_number));
    w.Element("LastModified", Iso8601(p.last_modified_ms));
    w.Element("ETag", QuoteEtag(p.etag));
    w.Element("Size", std::to_string(p.size));
    WriteChecksums(w, p.checksums);
    w.Close();
  }
  return XmlResponse(std::move(w).Finish());
}

HttpResponse ListMultipartUploads(const Context& ctx) {
  const ListParams& p = ctx.route.list;
  storage::ListUploadsQuery q;
  q.bucket = ctx.route.bucket;
  q.prefix = p.prefix;
  q.delimiter = p.delimiter;
  q.key_marker = p.key_marker;
  q.upload_id_marker = p.upload_id_marker;
  q.max_uploads = p.max_entries;
  const bool url = p.url_encode;
  auto enc = [&](std::string_view s) {
    return url ? text::UriEncode(s, text::Slash::kKeep) : std::string(s);
  };
  storage::Result<storage::ListUploadsPage> page = ctx.store->ListUploads(q);
  if (!page.ok()) return StorageError(ctx, page.status());

  XmlWriter w;
  w.Open("ListMultipartUploadsResult", kS3Namespace);
  w.Element("Bucket", ctx.route.bucket);
  w.Element("KeyMarker", enc(q.key_marker));
  w.Element("UploadIdMarker", q.upload_id_marker);
  if (page->truncated) {
    w.Element("NextKeyMarker", enc(page->next_key_marker));
    w.Element("NextUploadIdMarker", page->next_upload_id_marker);
  }
  if (!q.delimiter.empty()) w.Element("Delimiter", enc(q.delimiter));
  w.Element("Prefix", enc(q.prefix));
  w.Element("MaxUploads", std::to_string(q.max_uploads));
  if (url) w.Element("EncodingType", "url");
  w.Element("IsTruncated", page->truncated ? "true" : "false");
  // Uploads of one page mostly share their initiator and owner: each user is read once.
  std::map<std::string, OwnerName, std::less<>> names;
  auto name_of = [&](const std::string& user_id) -> const OwnerName& {
    auto it = names.find(user_id);
    if (it == names.end()) it = names.emplace(user_id, UserOwnerName(ctx, user_id)).first;
    return it->second;
  };
  for (const storage::UploadRecord& u : page->uploads) {
    w.Open("Upload");
    w.Element("Key", enc(u.key));
    w.Element("UploadId", u.upload_id);
    WriteOwner(w, "Initiator", name_of(u.initiator_id));
    WriteOwner(w, "Owner", name_of(u.meta.owner_id));
    w.Element("StorageClass", u.meta.storage_class.empty() ? "STANDARD" : u.meta.storage_class);
    w.Element("Initiated", Iso8601(u.initiated_ms));
    if (!u.checksum_algorithm.empty()) {
      w.Element("ChecksumAlgorithm", u.checksum_algorithm);
      w.Element("ChecksumType", u.checksum_type);
    }
    w.Close();
  }
  for (const std::string& prefix : page->common_prefixes) {
    w.Open("CommonPrefixes");
    w.Element("Prefix", enc(prefix));
    w.Close();
  }
  return XmlResponse(std::move(w).Finish());
}

}  // namespace cubby::s3api
