// The built-in key store behind SSE-KMS: customer-managed symmetric keys (and the AWS-managed
// default key "alias/aws/s3", made on first use), each with random 256-bit key material kept in
// the Store wrapped under crypt::ServiceKeys::kms. s3api calls GenerateDataKey / DecryptDataKey
// for objects; the KMS JSON API (a subset of AWS KMS: CreateKey, DescribeKey, ListKeys,
// CreateAlias, ListAliases, DeleteAlias, EnableKey, DisableKey, ScheduleKeyDeletion,
// CancelKeyDeletion) is served on the S3 port through s3api/kms_front.h, so
// `aws kms --endpoint-url` works.
//   https://docs.aws.amazon.com/kms/latest/APIReference/Welcome.html
// Arrows: kms -> storage, crypt, text. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "crypt/key.h"
#include "storage/store.h"

namespace cubby::kms {

// One value per distinct AWS answer; s3api maps them to S3 errors (KMS.NotFoundException,
// KMS.DisabledException, KMS.KMSInvalidStateException), the JSON API to KMS's.
enum class Code {
  kOk,
  kNotFound,      // no such key or alias (NotFoundException)
  kDisabled,      // the key is Disabled (DisabledException)
  kInvalidState,  // the key is PendingDeletion (KMSInvalidStateException)
  kInvalidKeyId,  // the id is no key id, key ARN, alias name or alias ARN (NotFoundException in
                  // AWS's KMS; S3 answers InvalidArgument / KMS.NotFoundException)
  kInternal,      // storage or crypto failure; the message is for the log (no key material)
};

struct [[nodiscard]] Status {
  Code code = Code::kOk;
  std::string message;
  bool ok() const { return code == Code::kOk; }
};

// A fresh data key for one object or part, and how to find it again.
struct DataKey {
  std::string key_arn;  // arn:aws:kms:<region>:<account>:key/<key id>: what S3 reports and stores
  crypt::DataKey plaintext;
  std::string wrapped;  // the data key wrapped under the KMS key's material; opaque, store as is
};

class KeyService {
 public:
  // `store` and `kms_kek` must outlive the service. `region` goes into ARNs.
  KeyService(storage::Store* store, const crypt::Key256* kms_kek, std::string region);
  ~KeyService();
  KeyService(const KeyService&) = delete;
  KeyService& operator=(const KeyService&) = delete;

  // SSE-KMS on a write. `key_id` names a key by id, key ARN, "alias/<name>" or alias ARN; empty:
  // the AWS-managed key "alias/aws/s3" (created on first use). The key must be Enabled.
  // `context`: the object's encryption context (s3api's choice, bound into the wrap).
  Status GenerateDataKey(std::string_view key_id, std::string_view context, DataKey* out);
  // On a read or copy: the data key `wrapped` by GenerateDataKey under `key_arn`. kDisabled,
  // kInvalidState, kNotFound as the key is; a wrapped key that does not open is kInternal.
  Status DecryptDataKey(std::string_view key_arn, std::string_view context,
                        std::string_view wrapped, crypt::DataKey* out);
  // The ARN of the key `key_id` names (as GenerateDataKey resolves it) without using it; errors
  // as GenerateDataKey (a Disabled key is kDisabled). PutBucketEncryption validates with it.
  Status ResolveKey(std::string_view key_id, std::string* key_arn);

  // The JSON API: `operation` is X-Amz-Target's part after "TrentService."; `body` the request
  // JSON. The caller (s3api/kms_front) has authenticated the request as a user allowed to use
  // KMS. Sets *status (200, 400, 500) and *json (the response document; for an error
  // {"__type": "<Exception>", "message": ...}).
  void HandleApi(std::string_view operation, std::string_view body, int64_t now_ms, int* status,
                 std::string* json);

 private:
  friend class JsonApi;  // json_api.cc: the JSON API over the key store
  struct Impl;           // key_store.h: the key store
  std::unique_ptr<Impl> impl_;
};

// Whether `operation` (X-Amz-Target's part after "TrentService.") is one HandleApi serves; the
// front door logs "kms:<operation>" only for these (anything else as "kms:Unknown").
bool IsApiOperation(std::string_view operation);

// A KMS error document: {"__type": type, "message": message} (the front door's authentication
// failures use it too), written with text/json.h.
std::string ErrorJson(std::string_view type, std::string_view message);

}  // namespace cubby::kms
