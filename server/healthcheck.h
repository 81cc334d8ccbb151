// `cubby --healthcheck URL`: a tiny HTTP(S) GET for container health probes in an image without
// curl. https:// is accepted without certificate verification: the probe asks "does this
// process answer", usually over loopback, and must work with a self-signed certificate.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace cubby::server {

struct ProbeTarget {
  bool tls = false;
  std::string host;  // IP literal or "localhost"
  uint16_t port = 80;
  std::string path;  // starts with '/'
};

// Parses http://host[:port][/path] and https://... (IPv6 as [addr]). nullopt when malformed.
std::optional<ProbeTarget> ParseProbeUrl(std::string_view url);

// GETs the URL; returns the HTTP status, or nullopt (with *error set) if there was no answer
// within `timeout`.
std::optional<int> Probe(const ProbeTarget& target, std::chrono::milliseconds timeout,
                         std::string* error);

}  // namespace cubby::server
