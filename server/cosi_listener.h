// The built-in COSI driver's listener: gRPC (plaintext HTTP/2) on the UNIX socket named by
// COSI_ENDPOINT, serving the Identity and Provisioner services of both cosi.v1alpha1 (the v0.2
// sidecar) and sigs.k8s.io.cosi.v1alpha2 (the current sidecar): their gRPC method paths differ
// by package, so a client of either version simply works, on the same data.
//
// Environment (read through the EnvLookup passed in, never getenv directly):
//   COSI_ENDPOINT            unix:///abs/path/name.sock; unset or empty: COSI is off
//   CUBBY_COSI_DRIVER_NAME   default cubby.objectstorage.k8s.io (spec's DriverGetInfo rules)
//   CUBBY_COSI_SOCKET_MODE   octal permission bits of the socket, default 0660
//   CUBBY_PUBLIC_ENDPOINT    S3 URL workloads use (http:// or https://), default: the S3 listen
//                            address the server passes in
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "storage/status.h"
#include "storage/store.h"

namespace grpc {
class Server;
}

namespace cubby::cosi {
class IdentityService;
class ProvisionerService;
class V1alpha2IdentityService;
class V1alpha2ProvisionerService;
}  // namespace cubby::cosi

namespace cubby::server {

inline constexpr std::string_view kDefaultCosiDriverName = "cubby.objectstorage.k8s.io";
inline constexpr mode_t kDefaultCosiSocketMode = 0660;

struct CosiOptions {
  std::string socket_path;      // absolute, ends with ".sock"
  std::string driver_name;      // valid per cosi::ValidateDriverName
  mode_t socket_mode = kDefaultCosiSocketMode;
  std::string public_endpoint;  // "http://cubby.storage.svc:9000"
  std::string region;
  std::string domain;  // --domain (virtual-hosted style); empty: none. v1alpha2 reports it.
  // Receives (method, bucket, gRPC code name) once per COSI call; unset: a line on stderr.
  std::function<void(std::string_view method, std::string_view bucket, std::string_view code)>
      log;
};

// Same shape as server/config.h's EnvLookup: nullopt when the variable is unset.
using CosiEnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// "unix:///var/lib/cosi/cosi.sock" → "/var/lib/cosi/cosi.sock". kInvalidArgument with a
// one-line message for any other scheme, a relative or empty path, a path not ending in
// ".sock", or one too long for a UNIX socket address.
storage::Result<std::string> ParseCosiEndpoint(std::string_view endpoint);

// Reads the variables above. nullopt when COSI_ENDPOINT is unset or empty (COSI off).
// `default_endpoint` is the S3 listen address as "http://host:port"; `region` the S3 region.
// kInvalidArgument with a one-line message (printable as the fail-fast error) for a bad
// endpoint, driver name, socket mode or public endpoint.
storage::Result<std::optional<CosiOptions>> CosiOptionsFromEnv(const CosiEnvLookup& env,
                                                              std::string_view default_endpoint,
                                                              std::string_view region);

class CosiListener {
 public:
  // Binds the socket and starts serving. A stale socket file at the path is replaced; any other
  // kind of file there, a missing parent folder, a socket another process still listens on, or
  // a bind failure → kIOError / kInvalidArgument with a one-line message. The socket gets
  // exactly options.socket_mode (it is never more open than that, even briefly); nothing else
  // is created in its folder. `store` must outlive the listener.
  static storage::Result<std::unique_ptr<CosiListener>> Start(const CosiOptions& options,
                                                              storage::Store* store);

  // Stops accepting calls, waits for the ones in flight, and removes the socket. Idempotent.
  void Shutdown();
  ~CosiListener();

  CosiListener(const CosiListener&) = delete;
  CosiListener& operator=(const CosiListener&) = delete;

  const std::string& socket_path() const { return socket_path_; }

 private:
  CosiListener() = default;

  std::string socket_path_;
  ino_t socket_inode_ = 0;  // the socket we bound; Shutdown removes only that one
  std::unique_ptr<cosi::IdentityService> identity_;
  std::unique_ptr<cosi::ProvisionerService> provisioner_;
  std::unique_ptr<cosi::V1alpha2IdentityService> identity_v1alpha2_;
  std::unique_ptr<cosi::V1alpha2ProvisionerService> provisioner_v1alpha2_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace cubby::server
