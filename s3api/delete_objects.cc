// DeleteObjects (POST /bucket?delete).
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObjects.html
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
  std::string version_id;  // echoed back; versions are not kept
};

// AWS requires an integrity check on this body: Content-MD5 or an x-amz-checksum-* (header,
// trailer or x-amz-sdk-checksum-algorithm). Reads the body verifying whichever was sent.
// kNone, or the error with *message.
ErrorCode ReadVerifiedBody(const Context& ctx, std::string* out, std::string* message) {
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
  const auto& length = request.content_length;
  if (length && *length > kMaxRequestXmlBytes) return ErrorCode::kMalformedXML;

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
  out->clear();
  char buf[16 << 10];
  for (;;) {
    ReadResult r = body->Read(buf, sizeof(buf));
    if (r.error != ErrorCode::kNone) {
      *message = std::string(checksum != nullptr ? checksum->error_message() : "");
      if (message->empty()) *message = std::string(payload_raw->error_message());
      return r.error;
    }
    if (r.n == 0) break;
    out->append(buf, r.n);
    if (out->size() > kMaxRequestXmlBytes) return ErrorCode::kMalformedXML;
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
      targets->push_back({key->text, version ? version->text : std::string()});
    }
  }
  return !targets->empty() && targets->size() <= kMaxDeleteKeys;
}

void WriteError(XmlWriter& w, const DeleteTarget& t, ErrorCode code) {
  w.Open("Error");
  w.Element("Key", t.key);
  if (!t.version_id.empty()) w.Element("VersionId", t.version_id);
  w.Element("Code", Info(code).code);
  w.Element("Message", Info(code).message);
  w.Close();
}

}  // namespace

HttpResponse DeleteObjects(const Context& ctx) {
  // A missing bucket fails the whole request, before its body is read.
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  std::string doc, message;
  if (ErrorCode e = ReadVerifiedBody(ctx, &doc, &message); e != ErrorCode::kNone) {
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
    if (Authorize(ctx, iam::Action::kDeleteObject, {ctx.route.bucket, t.key}) != ErrorCode::kNone) {
      WriteError(w, t, ErrorCode::kAccessDenied);
      continue;
    }
    if (t.key.empty() || t.key.size() > kMaxKeyBytes) {
      WriteError(w, t, t.key.empty() ? ErrorCode::kInvalidArgument : ErrorCode::kKeyTooLongError);
      continue;
    }
    storage::Status s = ctx.store->DeleteObject(ctx.route.bucket, t.key);
    if (!s.ok()) {
      ErrorCode code = FromStorage(s.code());
      if (Info(code).http_status >= 500) ctx.summary->error_detail = s.ToString();
      WriteError(w, t, code);
      continue;
    }
    if (quiet) continue;
    w.Open("Deleted");
    w.Element("Key", t.key);
    if (!t.version_id.empty()) w.Element("VersionId", t.version_id);
    w.Close();
  }
  return XmlResponse(std::move(w).Finish());
}

}  // namespace cubby::s3api
