// New access keys and ids from the OpenSSL CSPRNG, shaped like AWS's: a 20-character id of [A-Z0-9]
// starting with "CB", and a 40-character secret of [A-Za-z0-9+/].
#pragma once

#include "storage/records.h"
#include "storage/status.h"

namespace cubby::storage {

// Returns a record with access_key_id and secret filled in (all other fields default).
// kIOError if the RNG fails.
Result<AccessKeyRecord> GenerateAccessKey();

// A user's canonical id: 64 lowercase hex characters (256 random bits). kIOError if the RNG fails.
Result<std::string> GenerateCanonicalId();

// A data folder's account id: 12 decimal digits. kIOError if the RNG fails.
Result<std::string> GenerateAccountId();

}  // namespace cubby::storage
