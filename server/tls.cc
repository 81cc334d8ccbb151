#include "server/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace cubby::server {
namespace {

// The oldest queued OpenSSL error as text, and the queue cleared.
std::string OpenSslReason() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown error";
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? reason : "error " + std::to_string(code);
}

storage::Status Invalid(std::string message) {
  return storage::Status(storage::Code::kInvalidArgument, std::move(message));
}

}  // namespace

void SslCtxDeleter::operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }

storage::Result<SslCtxPtr> MakeServerTlsContext(const std::string& cert_file,
                                                const std::string& key_file) {
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) return Invalid("TLS: cannot create a context: " + OpenSslReason());
  if (SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION) != 1) {
    return Invalid("TLS: cannot require TLS 1.2: " + OpenSslReason());
  }
  // Partial writes and retries with a moved buffer: PollStream writes what fits and comes back.
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_RENEGOTIATION);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), cert_file.c_str()) != 1) {
    return Invalid("TLS certificate " + cert_file + ": " + OpenSslReason());
  }
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return Invalid("TLS key " + key_file + ": " + OpenSslReason());
  }
  if (SSL_CTX_check_private_key(ctx.get()) != 1) {
    return Invalid("TLS key " + key_file + " does not match the certificate " + cert_file);
  }
  return ctx;
}

}  // namespace cubby::server
