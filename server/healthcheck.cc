#include "server/healthcheck.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include <openssl/ssl.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "server/poll_stream.h"
#include "text/ascii.h"

namespace cubby::server {

std::optional<ProbeTarget> ParseProbeUrl(std::string_view url) {
  ProbeTarget target;
  if (url.starts_with("http://")) {
    url.remove_prefix(7);
  } else if (url.starts_with("https://")) {
    url.remove_prefix(8);
    target.tls = true;
    target.port = 443;
  } else {
    return std::nullopt;
  }
  size_t slash = url.find('/');
  std::string_view authority = url.substr(0, slash);
  target.path = slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
  std::string_view port;
  if (authority.starts_with("[")) {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    target.host = std::string(authority.substr(1, close - 1));
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
    }
  } else {
    size_t colon = authority.find(':');
    target.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (target.host.empty()) return std::nullopt;
  if (target.host == "localhost") target.host = "127.0.0.1";
  boost::system::error_code ec;
  boost::asio::ip::make_address(target.host, ec);
  if (ec) return std::nullopt;
  if (!port.empty() || authority.ends_with(":")) {
    uint64_t value = 0;
    if (port.size() > 5 || !text::ParseUint64(port, &value)) return std::nullopt;
    if (value == 0 || value > 65535) return std::nullopt;
    target.port = static_cast<uint16_t>(value);
  }
  return target;
}

std::optional<int> Probe(const ProbeTarget& target, std::chrono::milliseconds timeout,
                         std::string* error) {
  namespace asio = boost::asio;
  auto deadline = PollStream::Clock::now() + timeout;
  asio::ip::tcp::endpoint endpoint(asio::ip::make_address(target.host), target.port);
  int fd = ::socket(endpoint.protocol().family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return std::nullopt;
  }
  std::unique_ptr<int, void (*)(int*)> closer(&fd, [](int* f) { ::close(*f); });
  if (::connect(fd, endpoint.data(), endpoint.size()) != 0 && errno != EINPROGRESS) {
    *error = std::string("connect: ") + std::strerror(errno);
    return std::nullopt;
  }
  PollStream stream(fd, -1);
  stream.set_stall_timeout(timeout);
  stream.set_deadline(deadline);
  std::unique_ptr<SSL_CTX, void (*)(SSL_CTX*)> ctx(nullptr, SSL_CTX_free);
  std::unique_ptr<SSL, void (*)(SSL*)> ssl(nullptr, SSL_free);
  if (target.tls) {
    ctx.reset(SSL_CTX_new(TLS_client_method()));
    if (ctx) ssl.reset(SSL_new(ctx.get()));
    if (!ssl || SSL_set_fd(ssl.get(), fd) != 1) {
      *error = "cannot set up TLS";
      return std::nullopt;
    }
    SSL_set_connect_state(ssl.get());  // Handshake() then runs the client side
    stream.set_ssl(ssl.get());
    if (auto ec = stream.Handshake()) {
      *error = "TLS handshake: " + ec.message();
      return std::nullopt;
    }
  }
  std::string request = "GET " + target.path + " HTTP/1.1\r\nHost: " + target.host +
                        "\r\nUser-Agent: cubby-healthcheck\r\nConnection: close\r\n\r\n";
  if (auto ec = stream.WriteAll(request.data(), request.size())) {
    *error = "send: " + ec.message();
    return std::nullopt;
  }
  // "HTTP/1.1 200 " is all that is needed.
  std::string head;
  while (head.size() < 12) {
    char buf[256];
    boost::system::error_code ec;
    size_t n = stream.read_some(asio::buffer(buf), ec);
    if (ec) {
      *error = "receive: " + ec.message();
      return std::nullopt;
    }
    head.append(buf, n);
  }
  if (!head.starts_with("HTTP/1.") || head[8] != ' ') {
    *error = "not an HTTP answer";
    return std::nullopt;
  }
  int status = 0;
  for (size_t i = 9; i < 12; ++i) {
    if (head[i] < '0' || head[i] > '9') {
      *error = "not an HTTP answer";
      return std::nullopt;
    }
    status = status * 10 + (head[i] - '0');
  }
  return status;
}

}  // namespace cubby::server
