// POST Object: an object uploaded by a browser form (multipart/form-data).
//   https://docs.aws.amazon.com/AmazonS3/latest/API/RESTObjectPOST.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/HTTPPOSTForms.html
//
// The form is read, authenticated (its signature, then its policy), authorized, then written:
// it becomes a PutObject, its header-like fields (Content-Type, x-amz-meta-*, acl, tagging,
// x-amz-checksum-*, ...) turned into the headers of a request that the new-object steps
// (new_object.h) then read, so that a form and a PUT store an object alike.
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
#include "s3api/new_object.h"
#include "s3api/post_policy.h"
#include "s3api/quota.h"
#include "s3api/sse.h"
#include "s3api/tagging.h"
#include "text/ascii.h"
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
HttpResponse Success(const Context& ctx, const std::vector<FormField>& fields,
                     const storage::ObjectMeta& committed) {
  const std::string_view key = ctx.route.key;
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
  SetNewObjectHeaders(ctx, committed, &r);
  return r;
}

// The form read up to its file: its fields, its key, and the readers its file comes from.
struct PostForm {
  std::unique_ptr<auth::PayloadReader> body;
  std::unique_ptr<FormDataReader> reader;  // over *body
  std::vector<FormField> fields;           // the key field's value: `key`
  std::string key;                         // the key field with ${filename} replaced
};

// Reads the form's fields (form_data.h's errors; PreconditionFailed for a request that is not
// multipart/form-data) and its key: a form without one is refused before anything else is
// looked at. The policy sees the key with ${filename} replaced, as S3 checks it.
Failure ReadForm(const Context& ctx, PostForm* form) {
  // Only the form can carry the credentials of this request.
  std::string boundary;
  const std::string* content_type = ctx.request.Find("content-type");
  if (content_type == nullptr || !MultipartFormBoundary(*content_type, &boundary)) {
    return ErrorResponse(ctx, ErrorCode::kPreconditionFailed,
                         "Bucket POST must be of the enclosure-type multipart/form-data");
  }
  form->body = ctx.Body();
  form->reader = std::make_unique<FormDataReader>(*form->body, boundary);
  std::string filename, file_type;
  if (ErrorCode e = form->reader->ReadFields(&form->fields, &filename, &file_type);
      e != ErrorCode::kNone) {
    return ErrorResponse(ctx, e);
  }
  const std::string* key_field = FindFormField(form->fields, "key");
  if (key_field == nullptr) {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument, auth::MissingPostField("key"));
  }
  form->key = PostObjectKey(*key_field, filename);
  for (FormField& field : form->fields) {
    if (field.name == "key") {
      field.value = form->key;
      break;
    }
  }
  return Failure::None();
}

// The form's caller (auth/post_form.h), then for a signed form its policy (ReadPostPolicy).
Failure AuthenticateForm(const Context& ctx, const PostForm& form, auth::AuthResult* caller,
                         PostPolicy* policy) {
  const auth::KeyLookup no_keys = [](std::string_view) {
    return std::optional<storage::AccessKeyRecord>();
  };
  *caller = auth::AuthenticatePostForm(form.fields, ctx.options.region,
                                       ctx.key_lookup != nullptr ? *ctx.key_lookup : no_keys);
  if (caller->key) ctx.summary->access_key_id = caller->key->access_key_id;
  if (caller->error != ErrorCode::kNone) {
    return ErrorResponse(ctx, caller->error, caller->error_message);
  }
  if (caller->anonymous) return Failure::None();
  std::string message;
  if (ErrorCode e = ReadPostPolicy(form.fields, ctx.route.bucket, ctx.now_ms(), policy, &message);
      e != ErrorCode::kNone) {
    return ErrorResponse(ctx, e, message);
  }
  return Failure::None();
}

// The PUT the form stands for: its key's checks, then the headers of its fields.
Failure PutOfForm(const Context& ctx, const PostForm& form, HttpRequest* put) {
  if (form.key.empty()) {
    return ErrorResponse(ctx, ErrorCode::kInvalidArgument,
                         "User key must have a length greater than 0.");
  }
  if (form.key.size() > kMaxKeyBytes) return ErrorResponse(ctx, ErrorCode::kKeyTooLongError);
  if (!text::IsValidUtf8(form.key)) return ErrorResponse(ctx, ErrorCode::kInvalidArgument);
  put->method = "PUT";
  put->target = ctx.request.target;
  put->remote_address = ctx.request.remote_address;
  put->secure = ctx.request.secure;
  put->request_id = ctx.request.request_id;
  if (const std::string* host = ctx.request.Find("host")) put->headers.push_back({"host", *host});
  return HeadersOfForm(ctx, form.fields, &put->headers);
}

// Content-MD5 and x-amz-checksum-* of the form, which its file must match.
struct FileIntegrity {
  std::string expected_md5;  // raw; empty: none
  std::optional<auth::ChecksumSpec> spec;
};
Failure ReadFileIntegrity(const Context& ctx, FileIntegrity* out) {
  if (Failure failure = ReadIntegrityHeaders(ctx, ctx.request, &out->expected_md5, &out->spec)) {
    return failure;
  }
  if (out->spec && out->spec->from_trailer) {
    return ErrorResponse(ctx, ErrorCode::kInvalidRequest,
                         "A POST form cannot carry a trailing checksum.");
  }
  return Failure::None();
}

// The form's file, streamed with MD5 and the checksum the form names, as a PUT body is.
Failure ReceiveFile(const Context& ctx, PostForm& form, const PostPolicy& policy,
                    const FileIntegrity& integrity, const BodySink& sink, ReceivedBody* out) {
  std::unique_ptr<BodyReader> file = std::make_unique<ReaderRef>(*form.reader);
  const auth::ChecksumReader* checksum = nullptr;
  if (integrity.spec) {
    auto reader = std::make_unique<auth::ChecksumReader>(std::move(file), integrity.spec->algorithm,
                                                         integrity.spec->expected_b64, nullptr);
    checksum = reader.get();
    file = std::move(reader);
  }
  const uint64_t max_size = std::min(policy.max_length.value_or(kMaxObjectBytes), kMaxObjectBytes);
  return ReceiveStream(ctx, *file, *form.body, checksum, std::nullopt, max_size, sink, out);
}

// The file once stored: its size against the policy's content-length-range, its MD5 against
// Content-MD5.
Failure CheckFile(const Context& ctx, const PostPolicy& policy, const FileIntegrity& integrity,
                  const ReceivedBody& received) {
  if (policy.min_length && received.size < *policy.min_length) {
    return ErrorResponse(ctx, ErrorCode::kEntityTooSmall);
  }
  if (!integrity.expected_md5.empty() &&
      !auth::ConstantTimeEquals(received.md5, integrity.expected_md5)) {
    return ErrorResponse(ctx, ErrorCode::kBadDigest);
  }
  return Failure::None();
}

// The object of an authorized form (ctx: the PUT it stands for), written as PutObject writes.
HttpResponse StoreFile(const Context& ctx, PostForm& form, const PostPolicy& policy) {
  using enum NewObjectStep;
  NewObject object;
  if (Failure failure = DescribeNewObject(ctx, {kEncryption}, &object)) {
    return failure.TakeResponse();
  }
  if (storage::Status space = ctx.store->CheckSpaceFor(0); !space.ok()) {
    return StorageError(ctx, space);
  }
  if (Failure failure = DescribeNewObject(ctx, {kContent, kAccess, kLock, kTags}, &object)) {
    return failure.TakeResponse();
  }
  FileIntegrity integrity;
  if (Failure failure = ReadFileIntegrity(ctx, &integrity)) return failure.TakeResponse();
  // The file's size is known only once it is read: a bucket already at its quota refuses
  // before, the file's size is checked before the commit.
  if (Failure failure = CheckQuota(ctx, 0, ctx.route.key)) return failure.TakeResponse();
  if (Failure failure = DescribeNewObject(ctx, {kDataKey}, &object)) return failure.TakeResponse();
  const NewObjectBytes file = {
      .receive =
          [&](const BodySink& sink, ReceivedBody* out) {
            return ReceiveFile(ctx, form, policy, integrity, sink, out);
          },
      .check = [&](const ReceivedBody& got) { return CheckFile(ctx, policy, integrity, got); }};
  storage::ObjectMeta committed;
  if (Failure failure = WriteNewObject(ctx, &object, file, &committed)) {
    return failure.TakeResponse();
  }
  // The fields after the file are ignored, as AWS ignores them; reading them keeps the
  // connection usable.
  if (ErrorCode e = form.reader->DrainRest(); e != ErrorCode::kNone) {
    ctx.summary->error_detail = "body after the POST form's file unreadable";
  }
  HttpResponse r = Success(ctx, form.fields, committed);
  SetSseHeaders(committed.encryption, object.sse.customer, &r);
  return r;
}

}  // namespace

HttpResponse PostObject(const Context& ctx) {
  PostForm form;
  if (Failure failure = ReadForm(ctx, &form)) return failure.TakeResponse();
  auth::AuthResult caller;
  PostPolicy policy;
  if (Failure failure = AuthenticateForm(ctx, form, &caller, &policy)) {
    return failure.TakeResponse();
  }
  // From here on the request is the PUT the form stands for.
  HttpRequest put;
  if (Failure failure = PutOfForm(ctx, form, &put)) return failure.TakeResponse();
  Route route = ctx.route;
  route.key = form.key;
  const Context put_ctx{put,         ctx.raw_body, route,       caller,         ctx.store,
                        ctx.options, ctx.now,      ctx.summary, ctx.authorizer, ctx.key_lookup};
  ctx.summary->key = form.key;
  if (ErrorCode denied =
          Authorize(put_ctx, iam::Action::kPutObject, {.bucket = route.bucket, .key = route.key});
      denied != ErrorCode::kNone) {
    return ErrorResponse(ctx, denied);
  }
  return StoreFile(put_ctx, form, policy);
}

}  // namespace cubby::s3api
