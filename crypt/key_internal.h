// crypt/'s private key helpers, shared by key.cc (KEKs) and master_key.cc (the check value).
#pragma once

#include <string_view>

#include "crypt/key.h"
#include "crypt/status.h"

namespace cubby::crypt::internal {

// HKDF-SHA256 (RFC 5869) of `ikm` with `salt` and `info` into 32 bytes. kInternal if OpenSSL
// fails.
Result<Key256> Hkdf(const Key256& ikm, std::string_view salt, std::string_view info);

}  // namespace cubby::crypt::internal
