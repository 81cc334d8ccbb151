#include "server/cosi_listener.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <utility>

#include <grpcpp/grpcpp.h>

#include "cosi/identity.h"
#include "cosi/params.h"
#include "cosi/provisioner.h"
#include "cosi/v1alpha2_identity.h"
#include "cosi/v1alpha2_provisioner.h"

namespace cubby::server {
namespace {

using storage::Code;
using storage::Status;

constexpr std::string_view kUnixScheme = "unix://";
constexpr std::string_view kSockSuffix = ".sock";

Status Invalid(std::string message) { return Status(Code::kInvalidArgument, std::move(message)); }

Status IOError(std::string what, int err) {
  return Status(Code::kIOError, std::move(what) + ": " + std::strerror(err));
}

// Parses the octal permission bits of CUBBY_COSI_SOCKET_MODE ("0660", "660", "0600").
storage::Result<mode_t> ParseSocketMode(std::string_view text) {
  if (text.empty() || text.size() > 4) {
    return Invalid("CUBBY_COSI_SOCKET_MODE must be octal permission bits such as 0660");
  }
  mode_t mode = 0;
  for (char c : text) {
    if (c < '0' || c > '7') {
      return Invalid("CUBBY_COSI_SOCKET_MODE must be octal permission bits such as 0660");
    }
    mode = mode * 8 + static_cast<mode_t>(c - '0');
  }
  if (mode > 0777) {
    return Invalid("CUBBY_COSI_SOCKET_MODE must be octal permission bits such as 0660");
  }
  if ((mode & 0007) != 0) {
    return Invalid("CUBBY_COSI_SOCKET_MODE must not give access to others (e.g. use 0660)");
  }
  return mode;
}

Status ValidatePublicEndpoint(std::string_view url) {
  std::string_view rest;
  if (url.starts_with("http://")) {
    rest = url.substr(7);
  } else if (url.starts_with("https://")) {
    rest = url.substr(8);
  } else {
    return Invalid("CUBBY_PUBLIC_ENDPOINT must be an http:// or https:// URL");
  }
  if (rest.empty() || rest.front() == '/' || rest.front() == ':') {
    return Invalid("CUBBY_PUBLIC_ENDPOINT must name a host");
  }
  if (url.size() > cosi::kMaxStringBytes) {
    return Invalid("CUBBY_PUBLIC_ENDPOINT is longer than 128 bytes");
  }
  for (char c : url) {
    if (c < 0x21 || c > 0x7e) return Invalid("CUBBY_PUBLIC_ENDPOINT must not contain spaces");
  }
  return Status::Ok();
}

// True when some process accepts connections on the UNIX socket at `path`.
bool SomeoneListens(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return connected;
}

// Makes room for the socket: nothing there, or a stale socket (removed). Anything else fails.
Status PrepareSocketPath(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == 0 ? "/" : path.substr(0, slash);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return IOError("COSI socket folder " + dir, errno);
  if (!S_ISDIR(st.st_mode)) return Invalid("COSI socket folder " + dir + " is not a folder");

  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return IOError("COSI socket " + path, errno);
  }
  if (!S_ISSOCK(st.st_mode)) {
    return Invalid("COSI socket path " + path + " exists and is not a socket; refusing to replace it");
  }
  if (SomeoneListens(path)) {
    return Invalid("COSI socket " + path + " is in use by another process");
  }
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return IOError("removing stale COSI socket " + path, errno);
  }
  return Status::Ok();
}

}  // namespace

storage::Result<std::string> ParseCosiEndpoint(std::string_view endpoint) {
  if (endpoint.empty()) return Invalid("COSI_ENDPOINT is empty");
  if (!endpoint.starts_with(kUnixScheme)) {
    return Invalid("COSI_ENDPOINT must be unix:///absolute/path.sock (only UNIX sockets are "
                   "supported), got \"" + std::string(endpoint.substr(0, 128)) + "\"");
  }
  std::string_view path = endpoint.substr(kUnixScheme.size());
  if (path.empty() || path.front() != '/') {
    return Invalid("COSI_ENDPOINT must be unix:///absolute/path.sock: the path must be absolute");
  }
  if (!path.ends_with(kSockSuffix) || path.size() <= kSockSuffix.size() + 1 ||
      path[path.size() - kSockSuffix.size() - 1] == '/') {
    return Invalid("COSI_ENDPOINT must be unix:///absolute/path.sock: the file name must end "
                   "with .sock");
  }
  if (path.find('\0') != std::string_view::npos) {
    return Invalid("COSI_ENDPOINT contains a NUL byte");
  }
  if (path.size() >= sizeof(sockaddr_un::sun_path)) {
    return Invalid("COSI_ENDPOINT path is longer than " +
                   std::to_string(sizeof(sockaddr_un::sun_path) - 1) +
                   " bytes (the UNIX socket limit)");
  }
  return std::string(path);
}

storage::Result<std::optional<CosiOptions>> CosiOptionsFromEnv(const CosiEnvLookup& env,
                                                              std::string_view default_endpoint,
                                                              std::string_view region) {
  // An empty variable counts as unset, as in server/config.h.
  auto get = [&env](std::string_view name) -> std::optional<std::string> {
    std::optional<std::string> value = env(name);
    if (value && value->empty()) return std::nullopt;
    return value;
  };
  std::optional<std::string> endpoint = get("COSI_ENDPOINT");
  if (!endpoint) return std::optional<CosiOptions>();

  CosiOptions options;
  storage::Result<std::string> path = ParseCosiEndpoint(*endpoint);
  if (!path.ok()) return path.status();
  options.socket_path = std::move(*path);

  options.driver_name = get("CUBBY_COSI_DRIVER_NAME").value_or(std::string(kDefaultCosiDriverName));
  if (Status s = cosi::ValidateDriverName(options.driver_name); !s.ok()) {
    return Invalid("CUBBY_COSI_DRIVER_NAME: " + s.message());
  }

  if (std::optional<std::string> mode = get("CUBBY_COSI_SOCKET_MODE")) {
    storage::Result<mode_t> parsed = ParseSocketMode(*mode);
    if (!parsed.ok()) return parsed.status();
    options.socket_mode = *parsed;
  }

  options.public_endpoint = get("CUBBY_PUBLIC_ENDPOINT").value_or(std::string(default_endpoint));
  if (Status s = ValidatePublicEndpoint(options.public_endpoint); !s.ok()) return s;

  options.region = std::string(region);
  if (options.region.empty()) return Invalid("the S3 region is empty");
  return std::optional<CosiOptions>(std::move(options));
}

storage::Result<std::unique_ptr<CosiListener>> CosiListener::Start(const CosiOptions& options,
                                                                   storage::Store* store) {
  // Options may come from elsewhere than CosiOptionsFromEnv: check what a bad value would break.
  storage::Result<std::string> checked = ParseCosiEndpoint("unix://" + options.socket_path);
  if (!checked.ok()) return checked.status();
  if (Status s = cosi::ValidateDriverName(options.driver_name); !s.ok()) return s;
  if (Status s = PrepareSocketPath(options.socket_path); !s.ok()) return s;

  std::unique_ptr<CosiListener> listener(new CosiListener());
  listener->socket_path_ = options.socket_path;
  listener->identity_ = std::make_unique<cosi::IdentityService>(options.driver_name);
  cosi::ProvisionerOptions provisioner_options;
  provisioner_options.region = options.region;
  provisioner_options.endpoint = options.public_endpoint;
  provisioner_options.log = options.log;
  provisioner_options.domain = options.domain;
  listener->provisioner_ = std::make_unique<cosi::ProvisionerService>(store, provisioner_options);
  listener->identity_v1alpha2_ =
      std::make_unique<cosi::V1alpha2IdentityService>(options.driver_name);
  listener->provisioner_v1alpha2_ =
      std::make_unique<cosi::V1alpha2ProvisionerService>(store, std::move(provisioner_options));

  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix:" + options.socket_path, grpc::InsecureServerCredentials());
  builder.RegisterService(listener->identity_.get());
  builder.RegisterService(listener->provisioner_.get());
  builder.RegisterService(listener->identity_v1alpha2_.get());
  builder.RegisterService(listener->provisioner_v1alpha2_.get());
  // COSI requests are a few KiB at most (spec size limits); refuse anything far larger.
  builder.SetMaxReceiveMessageSize(64 << 10);

  // bind() creates the socket file with 0777 & ~umask. Narrow the umask around it so the socket
  // is never more open than `socket_mode`, even before the chmod below. umask is process-wide:
  // Start runs during startup, and a file another thread creates meanwhile only gets stricter
  // permissions.
  const mode_t old_umask = ::umask(~options.socket_mode & 0777);
  listener->server_ = builder.BuildAndStart();
  ::umask(old_umask);
  if (!listener->server_) {
    return Status(Code::kIOError, "cannot listen on COSI socket " + options.socket_path +
                                      " (gRPC could not bind it)");
  }

  struct stat st {};
  if (::lstat(options.socket_path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) {
    const int err = errno;
    listener->Shutdown();
    return IOError("COSI socket " + options.socket_path + " missing after bind", err);
  }
  listener->socket_inode_ = st.st_ino;
  if (::chmod(options.socket_path.c_str(), options.socket_mode) != 0) {
    const int err = errno;
    listener->Shutdown();
    return IOError("chmod of COSI socket " + options.socket_path, err);
  }
  if (!SomeoneListens(options.socket_path)) {
    listener->Shutdown();
    return Status(Code::kIOError, "COSI socket " + options.socket_path + " does not accept");
  }
  return listener;
}

void CosiListener::Shutdown() {
  if (!server_) return;
  // In-flight calls get a moment to finish; then they are cancelled.
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  server_->Wait();
  server_.reset();
  // Remove the socket only if it is still the one we bound (a successor may have replaced it).
  struct stat st {};
  if (::lstat(socket_path_.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) &&
      st.st_ino == socket_inode_) {
    ::unlink(socket_path_.c_str());
  }
}

CosiListener::~CosiListener() { Shutdown(); }

}  // namespace cubby::server
