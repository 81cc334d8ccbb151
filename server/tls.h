// TLS for the S3 listener: a server SSL_CTX from PEM files (TLS 1.2 with AEAD suites only, and
// TLS 1.3), and ServerTls, which holds the context in use and replaces it when the files change.
#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <string>

#include "storage/status.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace cubby::server {

struct SslCtxDeleter {
  void operator()(SSL_CTX* ctx) const;
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxDeleter>;

// Loads the certificate chain and the private key and checks that they match. kInvalidArgument
// with a one-line message that names the file and says what is wrong in words: the system's
// reason for a file that cannot be opened ("No such file or directory", "Is a directory",
// "Permission denied"), "no PEM certificate in it", "no unencrypted PEM private key in it",
// "does not belong to the certificate". Never includes key material in a message. An
// encrypted key is refused at once (never a passphrase prompt).
//
// TLS 1.2 offers only Mozilla's "intermediate" suites: ECDHE key exchange with AES-GCM or
// ChaCha20-Poly1305 (no CBC, no static RSA); TLS 1.3 keeps OpenSSL's default suites.
storage::Result<SslCtxPtr> MakeServerTlsContext(const std::string& cert_file,
                                                const std::string& key_file);

// What identifies a certificate to a person reading the log.
struct CertificateInfo {
  std::string subject;    // RFC 2253, e.g. "CN=s3.example.com"
  std::string serial;     // hex
  std::string not_after;  // e.g. "Dec 31 23:59:59 2026 GMT"
};

// The TLS context of a listener, replaceable while it runs. Each connection takes the context
// current when it starts (an SSL holds a reference on its SSL_CTX), so a reload changes what
// new connections get and never touches open ones. A pair that does not load leaves the
// context in use as it was.
//
// Change detection (ReloadIfChanged) compares each file's identity as stat(2) sees it through
// symlinks (device, inode, size, mtime, ctime; or the stat error): a file rewritten in place
// and a Kubernetes secret volume's symlink swap (..data renamed to a new folder) both show.
//
// Thread-safety: NewSsl may be called from any thread at any time; Reload and ReloadIfChanged
// are serialized against each other.
class ServerTls {
 public:
  // The files' first load (after a successful one, the context in use). Errors as
  // MakeServerTlsContext.
  static storage::Result<std::unique_ptr<ServerTls>> Load(std::string cert_file,
                                                          std::string key_file);
  // A fixed context that is never reloaded (Reload answers kFailed). For tests.
  explicit ServerTls(SslCtxPtr ctx);

  ServerTls(const ServerTls&) = delete;
  ServerTls& operator=(const ServerTls&) = delete;

  // A new SSL object on the current context, or nullptr if OpenSSL cannot make one. The caller
  // owns it (SSL_free).
  SSL* NewSsl() const;

  // The certificate in use now.
  CertificateInfo current() const;

  enum class Outcome { kUnchanged, kReloaded, kFailed };
  struct ReloadResult {
    Outcome outcome = Outcome::kUnchanged;
    CertificateInfo certificate;  // kReloaded: the new certificate
    std::string error;            // kFailed: why the new pair did not load (as Load's messages)
  };
  // Loads the files again and, if they load, makes them the context in use.
  ReloadResult Reload();
  // Reload if either file's identity differs from what it was at the last load attempt;
  // kUnchanged otherwise. A failed pair is not retried until a file changes again.
  ReloadResult ReloadIfChanged();

 private:
  // A file's identity through symlinks, or the errno of stat(2).
  struct FileId {
    int error = 0;
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    timespec mtime{};
    timespec ctime{};
    bool operator==(const FileId& other) const;
  };
  static FileId Identify(const std::string& path);

  ServerTls(std::string cert_file, std::string key_file) :
      cert_file_(std::move(cert_file)), key_file_(std::move(key_file)) {}
  ReloadResult LoadLocked();  // REQUIRES: reload_mutex_ held

  const std::string cert_file_;
  const std::string key_file_;
  std::mutex reload_mutex_;  // one load at a time; guards the file ids
  FileId cert_id_;
  FileId key_id_;
  mutable std::mutex ctx_mutex_;  // guards ctx_ (held only to copy a pointer or an SSL_new)
  SslCtxPtr ctx_;
};

}  // namespace cubby::server
