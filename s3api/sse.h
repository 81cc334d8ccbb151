// Server-side encryption on the object path: which mode a write asks for (headers,
// else the bucket's default), the data key it seals with, the checks a read of an encrypted
// version needs (SSE-C key, KMS key state), readers that open sealed bytes, and the response
// headers. The sealing itself is crypt/'s (segmented AES-256-GCM, wrapped data keys).
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/serv-side-encryption.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/ServerSideEncryptionCustomerKeys.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingKMSEncryption.html
// Internal to s3api. Key material never leaves these functions except into crypt/ (Key256 has
// no way into a log).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crypt/key.h"
#include "crypt/seal.h"
#include "s3api/handlers.h"
#include "storage/records.h"
#include "storage/store.h"

namespace cubby::s3api {

// Finds a request header (lowercase name) or a POST form field standing for it; null: absent.
using HeaderLookup = std::function<const std::string*(std::string_view name)>;
HeaderLookup RequestHeaders(const HttpRequest& request);

// The SSE-C key a request carries (x-amz-server-side-encryption-customer-* or, for a copy's
// source, x-amz-copy-source-server-side-encryption-customer-*).
struct CustomerKey {
  crypt::Key256 key;
  std::string key_md5;  // base64, as sent: echoed in responses
};

// What a write asks for.
struct SseRequest {
  storage::SseMode mode = storage::SseMode::kNone;
  std::string kms_key_id;   // SSE-KMS: as given (id, ARN, alias); empty: the default key
  std::string kms_context;  // SSE-KMS: x-amz-server-side-encryption-context as given
  bool bucket_key_enabled = false;
  std::optional<CustomerKey> customer;  // SSE-C
};

// The encryption a new object asks for (PutObject, CopyObject, CreateMultipartUpload, POST
// Object): its x-amz-server-side-encryption* headers, else the bucket's default encryption, else
// none. Errors, as S3 answers them: an unknown method → InvalidArgument; aws:kms:dsse →
// NotImplemented; KMS headers without aws:kms → InvalidArgument; SSE-C errors
// (CustomerKeyFrom); SSE-C with x-amz-server-side-encryption → InvalidArgument; a mode the
// server cannot serve (no keyring / no KMS) → NotImplemented; a malformed encryption context →
// InvalidArgument; an unknown, disabled or pending-deletion KMS key → KMS.*.
Failure SseRequestForWrite(const Context& ctx, const HeaderLookup& find, SseRequest* out);

// The SSE-C key of a request that must (or may) carry one, under header `prefix`
// ("x-amz-server-side-encryption-customer-" or the copy source's). nullopt in *out when no
// header of the three is sent. Errors: SSE-C over plain HTTP without --allow-sse-c-over-http →
// InvalidRequest; a missing algorithm, key or key MD5, a key that is not 256 bits of base64, a
// key MD5 that does not match → InvalidArgument; an algorithm other than AES256 →
// InvalidEncryptionAlgorithmError.
Failure CustomerKeyFrom(const Context& ctx, const HeaderLookup& find, std::string_view prefix,
                        std::optional<CustomerKey>* out);
inline constexpr std::string_view kCustomerPrefix = "x-amz-server-side-encryption-customer-";
inline constexpr std::string_view kCopySourceCustomerPrefix =
    "x-amz-copy-source-server-side-encryption-customer-";

// A fresh data key for a write of (bucket, key), or of a part of upload `upload_id` (empty for
// an object: every part has its own random key, so the upload names them all), and the record that
// finds it again (mode, wrapped key, KMS key ARN, context, SSE-C check). Errors: KMS.* from the key
// store, InternalError.
struct WriteKey {
  crypt::DataKey key;
  storage::EncryptionRecord record;
  std::string context;  // the sealing context of the bytes
};
Failure NewWriteKey(const Context& ctx, const SseRequest& request, std::string_view bucket,
                    std::string_view key, std::string_view upload_id, WriteKey* out);

// Seals a body on its way into storage: Begin picks nothing up front; `sink` is what
// ReceiveBody / CopyBytes get (plaintext in, sealed bytes to `store`), Finish seals the last
// segment. Plain writes pass bytes straight through.
class Sealing {
 public:
  // `key` null: no encryption (bytes go to `store` as they are).
  Sealing(const WriteKey* key, BodySink store);
  Sealing(const Sealing&) = delete;
  Sealing& operator=(const Sealing&) = delete;
  ~Sealing();
  const BodySink& sink() const { return sink_; }
  // The storage failure that stopped the sink (kept when crypt's sink reported only "stopped").
  storage::Status Finish();

 private:
  BodySink store_;
  std::unique_ptr<crypt::SealWriter> writer_;
  storage::Status store_failure_;
  BodySink sink_;
};

// The ETag of a sealed write: SSE-S3 keeps the MD5 of the plaintext (as AWS); SSE-C and SSE-KMS
// ETags are not the MD5 of the data (as AWS: "not an MD5 digest of their object data"), a digest
// of it and the wrapped key.
std::string SealedEtag(const storage::EncryptionRecord& record, std::string_view md5_raw);

// The data keys of a stored version, opened for a read (GET, copy source): SSE-C checks the
// request's key (`prefix`: the request's or the copy source's headers). Errors: a GET / HEAD
// carrying x-amz-server-side-encryption → InvalidArgument (checked by the caller); SSE-C object
// without the key → InvalidRequest; wrong key → AccessDenied; SSE-C headers on an object not
// SSE-C → InvalidRequest; KMS key disabled / pending deletion / gone → KMS.*; an unwrap failure
// → InternalError (logged). `need_keys` false (HEAD): only the SSE-C check.
struct OpenedKeys {
  std::vector<crypt::DataKey> keys;     // one per part (multipart), else one
  std::vector<std::string> contexts;    // parallel
  std::optional<CustomerKey> customer;  // the request's SSE-C key, when it sent one
};
Failure CheckReadKey(const Context& ctx, const storage::ObjectMeta& meta, std::string_view bucket,
                     std::string_view key, std::string_view prefix, bool need_keys,
                     OpenedKeys* out);

// A storage::ObjectReader over a sealed version that reads plaintext: meta() is the version's
// (size: the plaintext size); Seek and Read address plaintext bytes. Each segment is
// authenticated before any of its bytes is returned: a Read that reaches a damaged segment
// returns the bytes of the segments before it (if any) and the next Read fails with
// kCorruption, as does every Read until a Seek; nothing of the damaged segment is counted.
// Segments a Read covers whole are opened straight into its buffer.
std::unique_ptr<storage::ObjectReader> NewPlainReader(std::unique_ptr<storage::ObjectReader> sealed,
                                                      OpenedKeys keys);

// Reads `length` plaintext bytes from `reader`'s position into *out: a selection opened (every
// segment authenticated) before the response is sent, so tampering is a clean 500. Storage
// errors (kCorruption for data that fails to open) come back as they are.
storage::Status ReadOpened(storage::ObjectReader& reader, uint64_t length, std::string* out);
// GET sends selections up to this size from memory, opened before the status line.
inline constexpr uint64_t kOpenBeforeSendBytes = 1 << 20;

// x-amz-server-side-encryption (AES256 or aws:kms), -aws-kms-key-id, -bucket-key-enabled,
// -context, and the SSE-C algorithm and key MD5 (from `customer`, the request's key) for a
// response about an object with `record`.
void SetSseHeaders(const storage::EncryptionRecord& record,
                   const std::optional<CustomerKey>& customer, HttpResponse* r);

}  // namespace cubby::s3api
