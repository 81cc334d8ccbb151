// TLS for the S3 listener: a server SSL_CTX from PEM files, TLS 1.2 and newer only.
#pragma once

#include <memory>
#include <string>

#include "storage/status.h"

typedef struct ssl_ctx_st SSL_CTX;

namespace cubby::server {

struct SslCtxDeleter {
  void operator()(SSL_CTX* ctx) const;
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxDeleter>;

// Loads the certificate chain and the private key and checks that they match. kInvalidArgument
// naming the file and OpenSSL's reason when a file is missing, unreadable, not PEM, or the key
// does not belong to the certificate. Never includes key material in a message.
storage::Result<SslCtxPtr> MakeServerTlsContext(const std::string& cert_file,
                                                const std::string& key_file);

}  // namespace cubby::server
