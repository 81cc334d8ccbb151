#include "server/tls.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace cubby::server {
namespace {

// Mozilla's "intermediate" TLS 1.2 suites (https://wiki.mozilla.org/Security/Server_Side_TLS),
// those with ECDHE: AEAD ciphers only, so no CBC suite that testssl flags as LUCKY13-prone, and
// forward secrecy always. The DHE-RSA ones of that profile are left out: they need DH
// parameters cubby does not configure, and every client that has them has ECDHE.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// Every queued OpenSSL error, oldest first, and the queue cleared.
std::vector<unsigned long> TakeErrors() {
  std::vector<unsigned long> codes;
  while (unsigned long code = ERR_get_error()) codes.push_back(code);
  return codes;
}

bool HasReason(const std::vector<unsigned long>& codes, int lib, int reason) {
  for (unsigned long code : codes) {
    if (!ERR_SYSTEM_ERROR(code) && ERR_GET_LIB(code) == lib && ERR_GET_REASON(code) == reason) {
      return true;
    }
  }
  return false;
}

// The oldest error in words. OpenSSL 3 queues an errno from fopen() with ERR_SYSTEM_FLAG, for
// which ERR_reason_error_string has no text (the message used to read "error 2147483650"):
// that one is the system's reason.
std::string Describe(const std::vector<unsigned long>& codes) {
  if (codes.empty()) return "unknown error";
  unsigned long code = codes.front();
  if (ERR_SYSTEM_ERROR(code)) return std::strerror(ERR_GET_REASON(code));
  if (const char* reason = ERR_reason_error_string(code)) return reason;
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

storage::Status Invalid(std::string message) {
  return storage::Status(storage::Code::kInvalidArgument, std::move(message));
}

// "<what> <path>: <the system's reason>" when the file cannot be opened for reading or is not
// a file; OK otherwise. OpenSSL's own reports of these say less ("no start line" for a folder).
storage::Status CheckReadableFile(const std::string& what, const std::string& path) {
  // O_NONBLOCK: a FIFO at the path must not hang the start.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Invalid(what + " " + path + ": " + std::strerror(errno));
  struct stat st{};
  int rc = ::fstat(fd, &st);
  int saved = errno;
  ::close(fd);
  if (rc != 0) return Invalid(what + " " + path + ": " + std::strerror(saved));
  if (S_ISDIR(st.st_mode)) return Invalid(what + " " + path + ": " + std::strerror(EISDIR));
  return storage::Status::Ok();
}

// The passphrase callback: none. Without it OpenSSL would prompt on the terminal for an
// encrypted key, which blocks a start (or a reload) forever.
int NoPassphrase(char*, int, int, void*) { return 0; }

storage::Status LoadCertificate(SSL_CTX* ctx, const std::string& cert_file) {
  if (storage::Status s = CheckReadableFile("TLS certificate", cert_file); !s.ok()) return s;
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) == 1) return storage::Status::Ok();
  std::vector<unsigned long> errors = TakeErrors();
  if (HasReason(errors, ERR_LIB_PEM, PEM_R_NO_START_LINE)) {
    return Invalid("TLS certificate " + cert_file + ": no PEM certificate in it (" +
                   Describe(errors) + ")");
  }
  return Invalid("TLS certificate " + cert_file + ": " + Describe(errors));
}

storage::Status LoadKey(SSL_CTX* ctx, const std::string& cert_file, const std::string& key_file) {
  if (storage::Status s = CheckReadableFile("TLS key", key_file); !s.ok()) return s;
  const std::string mismatch =
      "TLS key " + key_file + " does not belong to the certificate " + cert_file;
  if (SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    std::vector<unsigned long> errors = TakeErrors();
    if (HasReason(errors, ERR_LIB_X509, X509_R_KEY_VALUES_MISMATCH)) return Invalid(mismatch);
    return Invalid("TLS key " + key_file + ": no unencrypted PEM private key in it (" +
                   Describe(errors) + ")");
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    ERR_clear_error();
    return Invalid(mismatch);
  }
  return storage::Status::Ok();
}

// A memory BIO's contents as a string.
std::string Drain(BIO* bio) {
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  return size > 0 ? std::string(data, static_cast<size_t>(size)) : std::string();
}

CertificateInfo DescribeCertificate(SSL_CTX* ctx) {
  CertificateInfo info;
  X509* cert = SSL_CTX_get0_certificate(ctx);
  if (cert == nullptr) return info;
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  if (bio && X509_NAME_print_ex(bio.get(), X509_get_subject_name(cert), 0, XN_FLAG_RFC2253) >= 0) {
    info.subject = Drain(bio.get());
  }
  bio.reset(BIO_new(BIO_s_mem()));
  if (bio && ASN1_TIME_print(bio.get(), X509_get0_notAfter(cert)) == 1) {
    info.not_after = Drain(bio.get());
  }
  if (BIGNUM* serial = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), nullptr)) {
    if (char* hex = BN_bn2hex(serial)) {
      info.serial = hex;
      OPENSSL_free(hex);
    }
    BN_free(serial);
  }
  ERR_clear_error();
  return info;
}

}  // namespace

void SslCtxDeleter::operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }

storage::Result<SslCtxPtr> MakeServerTlsContext(const std::string& cert_file,
                                                const std::string& key_file) {
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) return Invalid("TLS: cannot create a context: " + Describe(TakeErrors()));
  if (SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION) != 1) {
    return Invalid("TLS: cannot require TLS 1.2: " + Describe(TakeErrors()));
  }
  if (SSL_CTX_set_cipher_list(ctx.get(), kTls12Ciphers) != 1) {
    return Invalid("TLS: cannot set the TLS 1.2 cipher suites: " + Describe(TakeErrors()));
  }
  // Partial writes and retries with a moved buffer: PollStream writes what fits and comes back.
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // A FIN without close_notify reads as the end of the stream, and no decode_error alert goes
  // back: Python's ssl (so boto3) and pgbackrest close idle keep-alive connections that way,
  // and the HTTP framing (Content-Length, chunked) already catches a request cut short, as on
  // plain TCP, which is what the option's documentation asks of a protocol over TLS.
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_default_passwd_cb(ctx.get(), NoPassphrase);
  if (storage::Status s = LoadCertificate(ctx.get(), cert_file); !s.ok()) return s;
  if (storage::Status s = LoadKey(ctx.get(), cert_file, key_file); !s.ok()) return s;
  return ctx;
}

bool ServerTls::FileId::operator==(const FileId& other) const {
  return error == other.error && device == other.device && inode == other.inode &&
         size == other.size && mtime.tv_sec == other.mtime.tv_sec &&
         mtime.tv_nsec == other.mtime.tv_nsec && ctime.tv_sec == other.ctime.tv_sec &&
         ctime.tv_nsec == other.ctime.tv_nsec;
}

ServerTls::FileId ServerTls::Identify(const std::string& path) {
  FileId id;
  struct stat st{};
  // stat, not lstat: through the symlinks of a secret volume to the file they name now.
  if (::stat(path.c_str(), &st) != 0) {
    id.error = errno;
    return id;
  }
  id.device = st.st_dev;
  id.inode = st.st_ino;
  id.size = st.st_size;
  id.mtime = st.st_mtim;
  id.ctime = st.st_ctim;
  return id;
}

storage::Result<std::unique_ptr<ServerTls>> ServerTls::Load(std::string cert_file,
                                                            std::string key_file) {
  std::unique_ptr<ServerTls> tls(new ServerTls(std::move(cert_file), std::move(key_file)));
  std::lock_guard<std::mutex> lock(tls->reload_mutex_);
  ReloadResult loaded = tls->LoadLocked();
  if (loaded.outcome != Outcome::kReloaded) return Invalid(loaded.error);
  return tls;
}

ServerTls::ServerTls(SslCtxPtr ctx) : ctx_(std::move(ctx)) {}

SSL* ServerTls::NewSsl() const {
  std::lock_guard<std::mutex> lock(ctx_mutex_);
  // SSL_new takes its own reference on the context: the connection keeps it after a swap.
  return SSL_new(ctx_.get());
}

CertificateInfo ServerTls::current() const {
  std::lock_guard<std::mutex> lock(ctx_mutex_);
  return DescribeCertificate(ctx_.get());
}

ServerTls::ReloadResult ServerTls::LoadLocked() {
  if (cert_file_.empty()) return {Outcome::kFailed, {}, "TLS: a fixed context has no files"};
  // The identities before the load: a change during the load shows at the next check.
  cert_id_ = Identify(cert_file_);
  key_id_ = Identify(key_file_);
  auto made = MakeServerTlsContext(cert_file_, key_file_);
  if (!made.ok()) return {Outcome::kFailed, {}, made.status().message()};
  CertificateInfo info = DescribeCertificate(made->get());
  SslCtxPtr old;
  {
    std::lock_guard<std::mutex> lock(ctx_mutex_);
    old = std::move(ctx_);
    ctx_ = std::move(*made);
  }
  // `old` drops the listener's reference here; open connections still hold theirs.
  return {Outcome::kReloaded, std::move(info), {}};
}

ServerTls::ReloadResult ServerTls::Reload() {
  std::lock_guard<std::mutex> lock(reload_mutex_);
  return LoadLocked();
}

ServerTls::ReloadResult ServerTls::ReloadIfChanged() {
  std::lock_guard<std::mutex> lock(reload_mutex_);
  if (cert_file_.empty()) return {};
  if (Identify(cert_file_) == cert_id_ && Identify(key_file_) == key_id_) return {};
  return LoadLocked();
}

}  // namespace cubby::server
