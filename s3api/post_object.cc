// POST Object: an object uploaded by a browser form (multipart/form-data).
//   https://docs.aws.amazon.com/AmazonS3/latest/API/RESTObjectPOST.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/HTTPPOSTForms.html
//
// The form becomes a PutObject: its header-like fields (Content-Type, x-amz-meta-*, acl,
// tagging, x-amz-checksum-*, ...) are turned into the headers of a request that PutObject's own
// steps (MetaFromHeaders, NewObjectAccess, NewObjectLock, NewObjectTags, SseRequestForWrite)
// then read, so that a form and a PUT store an object alike.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "s3api/auth/checksum.h"
#include "s3api/auth/crypto.h"
#include "s3api/auth/post_form.h"
#include "s3api/form_data.h"
#include "s3api/format.h"
#include "s3api/handlers.h"
#include "s3api/post_policy.h"
#include "s3api/quota.h"
#include "s3api/sse.h"
#include "s3api/tagging.h"
#include "text/ascii.h"
#include "text/encoding.h"
#include "text/uri.h"
#include "text/utf8.h"

namespace cubby::s3api {

namespace {

// Fields that authenticate the form: never turned into headers.
bool IsAuthField(std::string_view name) {
  return name == "x-amz-algorithm" || name == "x-amz-credential" || name == "x-amz-date" ||
         name == "x-amz-signature" || name == "x-amz-security-token" ||
         name == "x-amz-content-sha256" || name == "x-amz-decoded-content-length" ||
         name == "x-amz-trailer";
}

// The headers a PUT of the same object would carry, from the form's fields. `tagging` (an XML
// Tagging document in a form) becomes x-amz-tagging's URL-encoded form.
Failure HeadersOfForm(const Context& ctx, const std::vector<FormField>& fields,
                      std::vector<Header>* headers) {
  for (const FormField& f : fields) {
    const std::string& n = f.name;
    if (n == "content-type" || n == "cache-control" || n == "content-disposition" ||
        n == "content-encoding" || n == "content-language" || n == "expires" ||
        n == "content-md5" || (n.starts_with("x-amz-") && !IsAuthField(n))) {
      headers->push_back({n, std::string(text::TrimOws(f.value))});
    } else if (n == "acl") {
      headers->push_back({"x-amz-acl", std::string(text::TrimOws(f.value))});
    } else if (n == "tagging") {
      TagSet tags;
      if (XmlBodyError e = ParseTagging(f.value, TagTarget::kObject, &tags); !e.ok()) {
        return ErrorResponse(ctx, e.code, e.message);
      }
      std::string encoded;
      for (const auto& [key, value] : tags) {
        if (!encoded.empty()) encoded += '&';
        encoded += text::UriEncode(key, text::Slash::kEncode) + "=" +
                   text::UriEncode(value, text::Slash::kEncode);
      }
      if (!encoded.empty()) headers->push_back({"x-amz-tagging", std::move(encoded)});
    }
  }
  return Failure::None();
}

// A non-owning BodyReader, so that a ChecksumReader can wrap the form's file.
class ReaderRef : public BodyReader {
 public:
  explicit ReaderRef(BodyReader& inner) : inner_(inner) {}
  ReadResult Read(char* buf, size_t n) override { return inner_.Read(buf, n); }

 private:
  BodyReader& inner_;
};

// The object's URL, as AWS's Location names it: the request's scheme and Host, and the bucket
// in the path unless it came in the Host.
std::string LocationOf(const Context& ctx, std::string_view key) {
  const std::string* host = ctx.request.Find("host");
  std::string url = ctx.request.secure ? "https://" : "http://";
  url += host != nullptr ? *host : "localhost";
  url += '/';
  if (!ctx.route.virtual_host) url += text::UriEncode(ctx.route.bucket, text::Slash::kKeep) + "/";
  url += text::UriEncode(key, text::Slash::kKeep);
  return url;
}

// The stored object's answer: success_action_redirect (or the older `redirect`) is a 303 to it
// with bucket, key and etag in its query; else success_action_status 200 or 204 (empty) or 201
// (a PostResponse document); any other status means 204.
HttpResponse Success(const Context& ctx, const std::vector<FormField>& fields, std::string_view key,
                     const storage::ObjectMeta& committed) {
  const std::string etag = QuoteEtag(committed.etag);
  const std::string location = LocationOf(ctx, key);
  HttpResponse r;
  const std::string* redirect = FindFormField(fields, "success_action_redirect");
  if (redirect == nullptr) redirect = FindFormField(fields, "redirect");
  const std::string* status = FindFormField(fields, "success_action_status");
  if (redirect != nullptr && !redirect->empty()) {
    std::string url = *redirect;
    url += url.find('?') == std::string::npos ? '?' : '&';
    url += "bucket=" + text::UriEncode(ctx.route.bucket, text::Slash::kEncode) +
           "&key=" + text::UriEncode(key, text::Slash::kEncode) +
           "&etag=" + text::UriEncode(etag, text::Slash::kEncode);
    r.status = 303;
    r.Set("Location", url);
  } else if (status != nullptr && *status == "201") {
    XmlWriter w;
    w.Open("PostResponse");
    w.Element("Location", location);
    w.Element("Bucket", ctx.route.bucket);
    w.Element("Key", key);
    w.Element("ETag", etag);
    r = XmlResponse(std::move(w).Finish(), 201);
    r.Set("Location", location);
  } else {
    r.status = status != nullptr && *status == "200" ? 200 : 204;
    r.Set("Location", location);
  }
  r.Set("ETag", etag);
  SetChecksumHeaders(committed.checksums, &r);
  SetVersionIdHeader(ctx, committed.version_id, &r);
  return r;
}

}  // namespace

HttpResponse PostObject(const Context& ctx) {
  // Only the form can carry the credentials of this request.
  std::string boundary;
  const std::string* content_type = ctx.request.Find("content-type");
  if (content_type == nullptr || !MultipartFormBoundary(*content_type, &boundary)) {
    return ErrorResponse(ctx, ErrorCode::kPreconditionFailed,
                         "Bucket POST must be of the enclosure-type multipart/form-data");
  }
  std::unique_ptr<auth::PayloadReader> body = ctx.Body();
  FormDataReader form(*body, boundary);
  std::vector<FormField> fields;
  std::string filename, file_type;
  if (ErrorCode e = form.ReadFields(&fields, &filename, &file_type); e != ErrorCode::kNone) {
    return ErrorResponse(ctx, e);
  }

  // A form without a key is refused before anything else is looked at. The policy sees the key
  // with ${filename} replaced, as S3 checks it.
  const std::string* key_field = FindFormField(fields, "key");
  if (key_field == nullptr) {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument, auth::MissingPostField("key"));
  }
  const std::string key = PostObjectKey(*key_field, filename);
  for (FormField& field : fields) {
    if (field.name == "key") {
      field.value = key;
      break;
    }
  }

  // Authentication, then the policy (signed forms only).
  const auth::KeyLookup no_keys = [](std::string_view) {
    return std::optional<storage::AccessKeyRecord>();
  };
  const auth::AuthResult caller = auth::AuthenticatePostForm(
      fields, ctx.options.region, ctx.key_lookup != nullptr ? *ctx.key_lookup : no_keys);
  if (caller.key) ctx.summary->access_key_id = caller.key->access_key_id;
  if (caller.error != ErrorCode::kNone) {
    return ErrorResponse(ctx, caller.error, caller.error_message);
  }
  PostPolicy policy;
  if (!caller.anonymous) {
    std::string message;
    if (ErrorCode e = ReadPostPolicy(fields, ctx.route.bucket, ctx.now_ms(), &policy, &message);
        e != ErrorCode::kNone) {
      return ErrorResponse(ctx, e, message);
    }
  }

  if (key.empty()) {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument,
                         "User key must have a length greater than 0.");
  }
  if (key.size() > kMaxKeyBytes) return ErrorResponse(ctx, ErrorCode::kKeyTooLongError);
  if (!text::IsValidUtf8(key)) return ErrorResponse(ctx, ErrorCode::kInvalidArgument);

  // From here on the request is the PUT the form stands for.
  HttpRequest put;
  put.method = "PUT";
  put.target = ctx.request.target;
  put.remote_address = ctx.request.remote_address;
  put.secure = ctx.request.secure;
  put.request_id = ctx.request.request_id;
  if (const std::string* host = ctx.request.Find("host")) put.headers.push_back({"host", *host});
  if (Failure failure = HeadersOfForm(ctx, fields, &put.headers)) return failure.TakeResponse();
  Route route = ctx.route;
  route.key = key;
  const Context put_ctx{put,         ctx.raw_body, route,       caller,         ctx.store,
                        ctx.options, ctx.now,      ctx.summary, ctx.authorizer, ctx.key_lookup};
  ctx.summary->key = key;

  if (ErrorCode denied =
          Authorize(put_ctx, iam::Action::kPutObject, {.bucket = route.bucket, .key = key});
      denied != ErrorCode::kNone) {
    return ErrorResponse(ctx, denied);
  }
  SseRequest sse;
  if (Failure failure = SseRequestForWrite(put_ctx, RequestHeaders(put), &sse)) {
    return failure.TakeResponse();
  }
  if (storage::Status space = ctx.store->CheckSpaceFor(0); !space.ok()) {
    return StorageError(ctx, space);
  }
  storage::ObjectMeta meta;
  if (ErrorCode e = MetaFromHeaders(put, &meta); e != ErrorCode::kNone) {
    return ErrorResponse(ctx, e);
  }
  if (Failure failure = NewObjectAccess(put_ctx, &meta)) return failure.TakeResponse();
  if (Failure failure = NewObjectLock(put_ctx, &meta)) return failure.TakeResponse();
  if (Failure failure = NewObjectTags(put_ctx, nullptr, &meta)) return failure.TakeResponse();
  std::string expected_md5;
  std::optional<auth::ChecksumSpec> spec;
  if (Failure failure = ReadIntegrityHeaders(put_ctx, put, &expected_md5, &spec)) {
    return failure.TakeResponse();
  }
  if (spec && spec->from_trailer) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "A POST form cannot carry a trailing checksum.");
  }

  // The file's size is known only once it is read: a bucket already at its quota refuses
  // before, the file's size is checked before the commit.
  if (Failure failure = CheckQuota(put_ctx, 0, key)) return failure.TakeResponse();
  WriteKey sealing_key;
  if (Failure failure = NewWriteKey(put_ctx, sse, route.bucket, key, "", &sealing_key)) {
    return failure.TakeResponse();
  }

  // The file, streamed into the writer with MD5 and the checksum the form names, as a PUT body
  // is (sealed on its way when encrypted); nothing is committed before the file has ended and
  // every check has passed.
  storage::Result<std::unique_ptr<storage::ObjectWriter>> writer =
      ctx.store->NewObjectWriter(route.bucket);
  if (!writer.ok()) return StorageError(ctx, writer.status());
  Sealing sealing(&sealing_key,
                  [&](std::string_view piece) { return (*writer)->Append(piece); });
  std::unique_ptr<BodyReader> file = std::make_unique<ReaderRef>(form);
  const auth::ChecksumReader* checksum = nullptr;
  if (spec) {
    auto reader = std::make_unique<auth::ChecksumReader>(std::move(file), spec->algorithm,
                                                         spec->expected_b64, nullptr);
    checksum = reader.get();
    file = std::move(reader);
  }
  const uint64_t max_size = std::min(policy.max_length.value_or(kMaxObjectBytes), kMaxObjectBytes);
  ReceivedBody received;
  if (Failure failure = ReceiveStream(
          ctx, *file, *body, checksum, std::nullopt, max_size, sealing.sink(), &received)) {
    return failure.TakeResponse();
  }
  if (storage::Status s = sealing.Finish(); !s.ok()) return StorageError(ctx, s);
  if (policy.min_length && received.size < *policy.min_length) {
    return ErrorResponse(ctx, ErrorCode::kEntityTooSmall);
  }
  if (!expected_md5.empty() && !auth::ConstantTimeEquals(received.md5, expected_md5)) {
    return ErrorResponse(ctx, ErrorCode::kBadDigest);
  }
  meta.size = received.size;
  meta.encryption = std::move(sealing_key.record);
  meta.etag = SealedEtag(meta.encryption, received.md5);
  meta.last_modified_ms = ctx.now_ms();
  if (checksum != nullptr) meta.checksums[received.checksum_name] = received.checksum_b64;
  // A refusal drops the stored file (the writer's destructor).
  if (Failure failure = CheckQuota(put_ctx, received.size, key)) return failure.TakeResponse();
  storage::WriteCondition cond;
  storage::Result<storage::ObjectMeta> committed = (*writer)->Commit(key, std::move(meta), cond);
  if (!committed.ok()) return WriteError(put_ctx, committed.status(), cond);
  // The fields after the file are ignored, as AWS ignores them; reading them keeps the
  // connection usable.
  if (ErrorCode e = form.DrainRest(); e != ErrorCode::kNone) {
    ctx.summary->error_detail = "body after the POST form's file unreadable";
  }
  HttpResponse r = Success(put_ctx, fields, key, *committed);
  SetSseHeaders(committed->encryption, sse.customer, &r);
  return r;
}

}  // namespace cubby::s3api
