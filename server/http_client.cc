#include "server/http_client.h"

#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "s3api/auth/crypto.h"
#include "s3api/auth/signer.h"
#include "server/poll_stream.h"
#include "text/ascii.h"
#include "text/encoding.h"

namespace cubby::server {
namespace {

constexpr size_t kMaxAnswerBytes = 1 << 20;

storage::Status Failed(std::string what) {
  return storage::Status(storage::Code::kIOError, std::move(what));
}

// Parses "HTTP/1.x NNN ...\r\nheaders\r\n\r\nbody" once the head is complete; false until then
// (or on a malformed answer, with *error set).
bool ParseAnswer(const std::string& raw, bool at_end, ClientResponse* out, std::string* error) {
  const size_t head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos) {
    if (at_end) *error = "not an HTTP answer";
    return false;
  }
  if (raw.size() < 12 || !raw.starts_with("HTTP/1.") || raw[8] != ' ') {
    *error = "not an HTTP answer";
    return false;
  }
  uint64_t status = 0;
  if (!text::ParseUint64(std::string_view(raw).substr(9, 3), &status)) {
    *error = "not an HTTP answer";
    return false;
  }
  std::string_view head = std::string_view(raw).substr(0, head_end);
  std::string_view body = std::string_view(raw).substr(head_end + 4);
  std::optional<uint64_t> length;
  for (size_t pos = head.find("\r\n"); pos != std::string_view::npos;) {
    size_t next = head.find("\r\n", pos + 2);
    std::string_view line = head.substr(
        pos + 2, next == std::string_view::npos ? std::string_view::npos : next - pos - 2);
    pos = next;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (text::AsciiLowercase(text::TrimOws(line.substr(0, colon))) != "content-length") continue;
    uint64_t n = 0;
    if (text::ParseUint64(text::TrimOws(line.substr(colon + 1)), &n)) length = n;
  }
  if (length && body.size() < *length) {
    if (at_end) *error = "answer ended early";
    return false;
  }
  if (!length && !at_end) return false;
  out->status = static_cast<int>(status);
  out->body = std::string(length ? body.substr(0, *length) : body);
  return true;
}

}  // namespace

std::string HostHeader(const ProbeTarget& target) {
  std::string host =
      target.host.find(':') != std::string::npos ? "[" + target.host + "]" : target.host;
  if (target.port != (target.tls ? 443 : 80)) host += ":" + std::to_string(target.port);
  return host;
}

storage::Result<ClientResponse> HttpCall(
    const ProbeTarget& target, std::string_view method, std::string_view path_and_query,
    const std::vector<std::pair<std::string, std::string>>& headers,
    std::chrono::milliseconds timeout, std::string_view body) {
  namespace asio = boost::asio;
  auto deadline = PollStream::Clock::now() + timeout;
  asio::ip::tcp::endpoint endpoint(asio::ip::make_address(target.host), target.port);
  int fd = ::socket(endpoint.protocol().family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Failed(std::string("socket: ") + std::strerror(errno));
  std::unique_ptr<int, void (*)(int*)> closer(&fd, [](int* f) { ::close(*f); });
  if (::connect(fd, endpoint.data(), endpoint.size()) != 0 && errno != EINPROGRESS) {
    return Failed(std::string("connect: ") + std::strerror(errno));
  }
  PollStream stream(fd, -1);
  stream.set_stall_timeout(timeout);
  stream.set_deadline(deadline);
  std::unique_ptr<SSL_CTX, void (*)(SSL_CTX*)> ctx(nullptr, SSL_CTX_free);
  std::unique_ptr<SSL, void (*)(SSL*)> ssl(nullptr, SSL_free);
  if (target.tls) {
    ctx.reset(SSL_CTX_new(TLS_client_method()));
    if (ctx) ssl.reset(SSL_new(ctx.get()));
    if (!ssl || SSL_set_fd(ssl.get(), fd) != 1) return Failed("cannot set up TLS");
    SSL_set_connect_state(ssl.get());  // Handshake() then runs the client side
    stream.set_ssl(ssl.get());
    if (auto ec = stream.Handshake()) return Failed("TLS handshake: " + ec.message());
  }
  std::string request = std::string(method) + " " + std::string(path_and_query) +
                        " HTTP/1.1\r\nHost: " + HostHeader(target) + "\r\n";
  for (const auto& [name, value] : headers) request += name + ": " + value + "\r\n";
  request += "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  request.append(body);
  if (auto ec = stream.WriteAll(request.data(), request.size())) {
    return Failed("send: " + ec.message());
  }
  std::string raw;
  ClientResponse response;
  std::string error;
  for (;;) {
    char buf[16384];
    boost::system::error_code ec;
    size_t n = stream.read_some(asio::buffer(buf), ec);
    raw.append(buf, n);
    const bool at_end = ec == asio::error::eof;
    if (ec && !at_end) return Failed("receive: " + ec.message());
    if (ParseAnswer(raw, at_end, &response, &error)) return response;
    if (!error.empty()) return Failed(error);
    if (raw.size() > kMaxAnswerBytes) return Failed("answer larger than 1 MiB");
  }
}

bool ReadCredentials(const std::string& credentials_file, const EnvLookup& env, Credentials* out,
                     std::string* error) {
  if (credentials_file.empty()) {
    out->access_key_id = env("AWS_ACCESS_KEY_ID").value_or("");
    out->secret_key = env("AWS_SECRET_ACCESS_KEY").value_or("");
    if (!out->access_key_id.empty() && !out->secret_key.empty()) return true;
    *error =
        "no credentials: pass --credentials-file or set AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY to the root key";
    return false;
  }
  std::ifstream in(credentials_file);
  if (!in) {
    *error = "cannot read the credentials file " + credentials_file;
    return false;
  }
  std::string line;
  bool in_default = true;
  while (std::getline(in, line)) {
    std::string_view l = text::TrimOws(line);
    if (l.starts_with("[")) {
      in_default = l == "[default]";
      continue;
    }
    const size_t eq = l.find('=');
    if (!in_default || eq == std::string_view::npos) continue;
    const std::string_view name = text::TrimOws(l.substr(0, eq));
    const std::string value(text::TrimOws(l.substr(eq + 1)));
    if (name == "aws_access_key_id") out->access_key_id = value;
    if (name == "aws_secret_access_key") out->secret_key = value;
  }
  if (!out->access_key_id.empty() && !out->secret_key.empty()) return true;
  *error = "no aws_access_key_id and aws_secret_access_key in " + credentials_file;
  return false;
}

storage::Result<ClientResponse> SignedHttpCall(const ProbeTarget& target, const Credentials& key,
                                               const SignedRequest& request,
                                               std::chrono::milliseconds timeout) {
  s3api::auth::SignInput in;
  in.method = request.method;
  in.host = HostHeader(target);
  in.path = request.path;
  in.query = request.query;
  in.payload_sha256 = text::HexEncode(s3api::auth::Sha256(request.body));
  in.access_key_id = key.access_key_id;
  in.secret_key = key.secret_key;
  in.region = request.region;
  in.service = request.service;
  in.now = std::chrono::system_clock::now();
  std::vector<std::pair<std::string, std::string>> headers;
  if (!request.content_type.empty()) {
    in.extra_headers = {{"content-type", request.content_type}};
    headers.emplace_back("content-type", request.content_type);
  }
  for (const s3api::Header& h : s3api::auth::SignV4(in)) {
    if (h.name != "host") headers.emplace_back(h.name, h.value);  // HttpCall sends its own
  }
  headers.emplace_back("User-Agent", request.user_agent);
  return HttpCall(target, request.method,
                  request.path + (request.query.empty() ? "" : "?" + request.query), headers,
                  timeout, request.body);
}

}  // namespace cubby::server
