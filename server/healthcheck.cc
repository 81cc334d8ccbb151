#include "server/healthcheck.h"

#include <boost/asio/ip/address.hpp>

#include "server/http_client.h"
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
  storage::Result<ClientResponse> answer =
      HttpCall(target, "GET", target.path, {{"User-Agent", "cubby-healthcheck"}}, timeout);
  if (!answer.ok()) {
    *error = answer.status().message();
    return std::nullopt;
  }
  return answer->status;
}

}  // namespace cubby::server
