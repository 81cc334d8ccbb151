// A minimal HTTP/1.1 client for cubby's own commands (`--healthcheck`, `cubby backup`, `cubby
// user`), and the root key and SigV4 signing the last two call with: one
// request per connection (Connection: close), plain or TLS. TLS is not verified: the commands
// talk to a cubby the operator names, usually over loopback, often with a self-signed
// certificate; requests that need protection are signed (SigV4), so an impostor learns no secret.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/config.h"
#include "server/healthcheck.h"
#include "storage/status.h"

namespace cubby::server {

struct ClientResponse {
  int status = 0;
  std::string body;
};

// Sends `method` `path_and_query` with `headers` (Host, Content-Length and Connection are
// added) and `body` (empty by default), and reads the answer: status and body (by Content-Length,
// else to the end of the connection; at most 1 MiB). The whole exchange is bounded by `timeout`.
// kIOError (with what failed: connect, TLS handshake, send, receive, not an HTTP answer) when there
// is no answer.
storage::Result<ClientResponse> HttpCall(
    const ProbeTarget& target, std::string_view method, std::string_view path_and_query,
    const std::vector<std::pair<std::string, std::string>>& headers,
    std::chrono::milliseconds timeout, std::string_view body = {});

// The Host header value for `target`: host, with the port unless it is the scheme's default
// (IPv6 literals in brackets), as clients send and sign it.
std::string HostHeader(const ProbeTarget& target);

// The root key a command signs with.
struct Credentials {
  std::string access_key_id, secret_key;
};
// From the [default] profile (keys before any section count as it) of `credentials_file` when
// one is named, else from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; false with *error saying
// what is missing.
bool ReadCredentials(const std::string& credentials_file, const EnvLookup& env, Credentials* out,
                     std::string* error);

// A request to sign: `path` and `query` already URI-encoded; `content_type` (when not empty) is
// sent and signed.
struct SignedRequest {
  std::string method, path, query, content_type, body;
  std::string service, region, user_agent;
};
// HttpCall with `request`, signed with SigV4 by `key` (over the Host header as HttpCall sends it
// and the body's SHA-256).
storage::Result<ClientResponse> SignedHttpCall(const ProbeTarget& target, const Credentials& key,
                                               const SignedRequest& request,
                                               std::chrono::milliseconds timeout);

}  // namespace cubby::server
