// DeleteObjects (POST /bucket?delete).
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObjects.html
#include <optional>
#include <string>
#include <vector>

#include "s3api/auth/checksum.h"
#include "s3api/auth/crypto.h"
#include "s3api/handlers.h"
#include "s3api/xml.h"
#include "text/encoding.h"

namespace cubby::s3api {

namespace {

constexpr size_t kMaxDeleteKeys = 1000;

struct DeleteTarget {
  std::string key;
  std::optional<std::string> version_id;  // VersionId: that version is removed for good
};

}  // namespace

ErrorCode ReadVerifiedSmallBody(const Context& ctx, std::string* out, std::string* message) {
  const HttpRequest& request = ctx.request;
  std::string expected_md5;
  const std::string* content_md5 = request.Find("content-md5");
  if (content_md5 != nullptr &&
      (!text::Base64Decode(*content_md5, &expected_md5) || expected_md5.size() != 16)) {
    return ErrorCode::kInvalidDigest;
  }
  auth::ChecksumSpecResult parsed = auth::ParseChecksumHeaders(request.headers);
  if (parsed.error != ErrorCode::kNone) {
    *message = parsed.message;
    return parsed.error;
  }
  if (content_md5 == nullptr && !parsed.spec) {
    *message = "Missing required header for this request: Content-Md5";
    return ErrorCode::kInvalidRequest;
  }
  const std::optional<uint64_t>& length = request.content_length;
  std::unique_ptr<auth::PayloadReader> payload = ctx.Body();
  const auth::PayloadReader* payload_raw = payload.get();
  std::unique_ptr<BodyReader> body;
  const auth::ChecksumReader* checksum = nullptr;
  if (parsed.spec) {
    const auth::ChecksumSpec& spec = *parsed.spec;
    auto reader = std::make_unique<auth::ChecksumReader>(
        std::move(payload), spec.algorithm, spec.expected_b64,
        spec.from_trailer ? payload_raw : nullptr);
    checksum = reader.get();
    body = std::move(reader);
  } else {
    body = std::move(payload);
  }
  const BoundedBody read = ReadBoundedBody(*body, length, kMaxRequestXmlBytes, out);
  if (read.outcome == BoundedBody::kTooLarge) return ErrorCode::kMalformedXML;
  if (read.outcome == BoundedBody::kFailed) {
    *message = std::string(checksum != nullptr ? checksum->error_message() : "");
    if (message->empty()) *message = std::string(payload_raw->error_message());
    return read.error;
  }
  if (length && ctx.auth.payload != auth::PayloadMode::kStreamingSigned &&
      ctx.auth.payload != auth::PayloadMode::kStreamingSignedTrailer &&
      ctx.auth.payload != auth::PayloadMode::kStreamingUnsignedTrailer &&
      out->size() != *length) {
    return ErrorCode::kIncompleteBody;
  }
  if (content_md5 != nullptr && !auth::ConstantTimeEquals(auth::Md5(*out), expected_md5)) {
    return ErrorCode::kBadDigest;
  }
  return ErrorCode::kNone;
}

namespace {

// <Delete><Quiet/>?<Object><Key/><VersionId/>?</Object>+</Delete>. False: MalformedXML.
bool ParseDelete(std::string_view doc, std::vector<DeleteTarget>* targets, bool* quiet) {
  XmlNode root;
  if (!ParseXml(doc, &root) || root.name != "Delete") return false;
  *quiet = false;
  for (const XmlNode& child : root.children) {
    if (child.name == "Quiet") {
      if (child.text != "true" && child.text != "false") return false;
      *quiet = child.text == "true";
    } else if (child.name == "Object") {
      const XmlNode* key = child.Child("Key");
      if (key == nullptr) return false;
      const XmlNode* version = child.Child("VersionId");
      targets->push_back({key->text, version ? std::optional<std::string>(version->text)
                                             : std::nullopt});
    }
  }
  return !targets->empty() && targets->size() <= kMaxDeleteKeys;
}

void WriteError(XmlWriter& w, const DeleteTarget& t, ErrorCode code,
                std::string_view message = {}) {
  w.Open("Error");
  w.Element("Key", t.key);
  if (t.version_id) w.Element("VersionId", *t.version_id);
  w.Element("Code", Info(code).code);
  w.Element("Message", message.empty() ? Info(code).message : message);
  w.Close();
}

// One key's delete, as DeleteObject does it; a version that is not there counts as deleted.
storage::Result<storage::DeleteResult> DeleteOne(const Context& ctx, const DeleteTarget& t) {
  if (!t.version_id) return ctx.store->DeleteObjectVersioned(ctx.route.bucket, t.key);
  storage::Result<storage::DeleteResult> deleted = ctx.store->DeleteObjectVersion(
      ctx.route.bucket, t.key, *t.version_id, BypassGovernance(ctx, t.key));
  if (!deleted.ok() && deleted.status().code() == storage::Code::kNoSuchVersion) {
    return storage::DeleteResult{};
  }
  return deleted;
}

}  // namespace

HttpResponse DeleteObjects(const Context& ctx) {
  // A missing bucket fails the whole request, before its body is read.
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  std::string doc, message;
  if (ErrorCode e = ReadVerifiedSmallBody(ctx, &doc, &message); e != ErrorCode::kNone) {
    return ErrorResponse(ctx, e, message);
  }
  std::vector<DeleteTarget> targets;
  bool quiet = false;
  if (!ParseDelete(doc, &targets, &quiet)) return ErrorResponse(ctx, ErrorCode::kMalformedXML);

  // The request is answered for any caller with access to the bucket; each key is authorized
  // as its own s3:DeleteObject, and a denied one gets an AccessDenied entry.
  XmlWriter w;
  w.Open("DeleteResult", kS3Namespace);
  for (const DeleteTarget& t : targets) {
    const iam::Action action =
        t.version_id ? iam::Action::kDeleteObjectVersion : iam::Action::kDeleteObject;
    const iam::Resource resource{.bucket = ctx.route.bucket,
                                 .key = t.key,
                                 .version_id = t.version_id ? std::string_view(*t.version_id) : std::string_view()};
    if (Authorize(ctx, action, resource) != ErrorCode::kNone) {
      WriteError(w, t, ErrorCode::kAccessDenied);
      continue;
    }
    if (t.key.empty() || t.key.size() > kMaxKeyBytes) {
      WriteError(w, t, t.key.empty() ? ErrorCode::kInvalidArgument : ErrorCode::kKeyTooLongError);
      continue;
    }
    if (t.version_id && t.version_id->empty()) {
      WriteError(w, t, ErrorCode::kInvalidArgument, "Version id cannot be the empty string");
      continue;
    }
    storage::Result<storage::DeleteResult> deleted = DeleteOne(ctx, t);
    if (!deleted.ok()) {
      if (deleted.status().code() == storage::Code::kInvalidArgument) {
        WriteError(w, t, ErrorCode::kInvalidArgument, "Invalid version id specified");
        continue;
      }
      ErrorCode code = FromStorage(deleted.status().code());
      if (Info(code).http_status >= 500) ctx.summary->error_detail = deleted.status().ToString();
      WriteError(w, t, code);
      continue;
    }
    if (quiet) continue;
    w.Open("Deleted");
    w.Element("Key", t.key);
    if (t.version_id) w.Element("VersionId", *t.version_id);
    if (deleted->delete_marker) {
      w.Element("DeleteMarker", "true");
      w.Element("DeleteMarkerVersionId", deleted->version_id.empty()
                                             ? std::string(storage::kNullVersionId)
                                             : deleted->version_id);
    }
    w.Close();
  }
  return XmlResponse(std::move(w).Finish());
}

}  // namespace cubby::s3api
