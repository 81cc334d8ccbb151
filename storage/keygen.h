// New access keys from the OpenSSL CSPRNG, shaped like AWS's: a 20-character id of [A-Z0-9]
// starting with "CB", and a 40-character secret of [A-Za-z0-9+/].
#pragma once

#include "storage/records.h"
#include "storage/status.h"

namespace cubby::storage {

// Returns a record with access_key_id and secret filled in (all other fields default).
// kIOError if the RNG fails.
Result<AccessKeyRecord> GenerateAccessKey();

}  // namespace cubby::storage
