// Status and Result for crypt/: every fallible call returns one; nothing here throws. The codes
// are crypt's own (crypt depends on nothing of ours but text/); a caller maps them to its
// layer's errors with an exhaustive switch (s3api: kAuthFailed → 500 InternalError, logged).
// A message never holds key material or plaintext.
#pragma once

#include "text/status.h"

namespace cubby::crypt {

enum class Code {
  kOk,
  kInvalidArgument,  // the caller broke a REQUIRES (a range outside the object, a use after Finish)
  kAuthFailed,       // sealed data failed authentication: a tag mismatch (tampered, reordered,
                     // wrong data key or context) or truncated/extended data. Never with bytes.
  kWrongKey,         // a wrapped key or check value does not verify under the given key
  kBadFormat,        // a blob, a key file or a sealed size that cannot be what we wrote
  kNotFound,         // a key file that does not exist
  kAlreadyExists,    // generating a key file where one exists
  kBadPermissions,   // a key file readable or writable by group or others
  kIOError,          // reading or writing a file failed (errno text in the message)
  kSinkFailed,       // the caller's sink returned false; the caller holds its own reason
  kInternal,         // OpenSSL failed (allocation, RAND_bytes): not the data's fault
};

const char* CodeName(Code code);

using Status = text::Status<Code>;
template <typename T>
using Result = text::Result<Status, T>;

}  // namespace cubby::crypt
