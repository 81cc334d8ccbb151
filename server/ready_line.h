// The ephemeral instance's ready line: the single JSON object a harness reads from stdout.
//   {"ready":true,"s3_endpoint":"http://127.0.0.1:41234","access_key_id":"...",
//    "secret_access_key":"...","cosi_endpoint":null}
// It is the one place cubby ever prints a secret, and only for a throwaway instance.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "storage/secret.h"

namespace cubby::server {

// The line with its trailing newline. `cosi_endpoint` ("unix://...") or null when COSI is off.
std::string ReadyLine(std::string_view s3_endpoint, std::string_view access_key_id,
                      const storage::SecretKey& secret,
                      const std::optional<std::string>& cosi_endpoint);

}  // namespace cubby::server
