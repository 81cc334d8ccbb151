#include "server/ready_line.h"

#include "server/log.h"

namespace cubby::server {

std::string ReadyLine(std::string_view s3_endpoint, std::string_view access_key_id,
                      const storage::SecretKey& secret,
                      const std::optional<std::string>& cosi_endpoint) {
  std::string line = "{\"ready\":true,\"s3_endpoint\":";
  line += JsonString(s3_endpoint);
  line += ",\"access_key_id\":";
  line += JsonString(access_key_id);
  line += ",\"secret_access_key\":";
  line += JsonString(secret.reveal());
  line += ",\"cosi_endpoint\":";
  line += cosi_endpoint ? JsonString(*cosi_endpoint) : "null";
  line += "}\n";
  return line;
}

}  // namespace cubby::server
