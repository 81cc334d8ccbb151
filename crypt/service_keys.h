// The key-encryption keys the server hands to the layers that encrypt (s3api for SSE-S3, kms/ for
// the built-in KMS's key material). They are random root keys kept in the data folder's keyring,
// wrapped under KEKs derived from the master key (server/master_key.h unwraps them at start-up),
// so rotating the master key re-wraps two keys and touches no object. Never logged.
#pragma once

#include "crypt/key.h"

namespace cubby::crypt {

struct ServiceKeys {
  Key256 sse_s3;  // wraps SSE-S3 data keys (WrapKey context: see s3api/sse.cc)
  Key256 kms;     // wraps the key material of the built-in KMS's keys
};

}  // namespace cubby::crypt
