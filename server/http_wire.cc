#include "server/http_wire.h"

#include <random>

#include <boost/beast/http/status.hpp>

#include "s3api/format.h"
#include "text/ascii.h"

namespace cubby::server {
namespace http = boost::beast::http;
using text::EqualsIgnoreCase;

namespace {

void AppendSanitized(std::string* out, std::string_view s) {
  for (char c : s) *out += (c == '\r' || c == '\n' || c == '\0') ? ' ' : c;
}

bool IsServerOwned(std::string_view name) {
  return EqualsIgnoreCase(name, "connection") || EqualsIgnoreCase(name, "transfer-encoding") ||
         EqualsIgnoreCase(name, "keep-alive") || EqualsIgnoreCase(name, "content-length");
}

bool HasHeader(const s3api::HttpResponse& response, std::string_view name) {
  for (const auto& header : response.headers) {
    if (EqualsIgnoreCase(header.name, name)) return true;
  }
  return false;
}

}  // namespace

s3api::HttpRequest ToHttpRequest(const http::request_header<>& header,
                                 std::optional<uint64_t> content_length,
                                 std::string remote_address, std::string request_id) {
  s3api::HttpRequest request;
  request.method = std::string(header.method_string());
  request.target = std::string(header.target());
  for (const auto& field : header) {
    request.headers.push_back({text::AsciiLowercase(field.name_string()),
                               std::string(text::TrimOws(field.value()))});
  }
  request.content_length = content_length;
  request.remote_address = std::move(remote_address);
  request.request_id = std::move(request_id);
  return request;
}

std::string_view ReasonPhrase(int status) {
  if (status < 100 || status > 999) return "Unknown";
  std::string_view reason = http::obsolete_reason(static_cast<http::status>(status));
  if (reason.empty() || reason == "<unknown-status>") return "Unknown";
  return reason;
}

bool StatusForbidsBody(int status) {
  return (status >= 100 && status < 200) || status == 204 || status == 304;
}

uint64_t ResponseBodySize(const s3api::HttpResponse& response, bool head_request) {
  if (head_request || StatusForbidsBody(response.status)) return 0;
  return response.source ? response.content_length : response.body.size();
}

std::string SerializeResponseHead(const s3api::HttpResponse& response,
                                  const ResponseFraming& framing) {
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " ";
  out += ReasonPhrase(response.status);
  out += "\r\n";
  const bool forbids_body = StatusForbidsBody(response.status);
  bool wrote_length = false;
  for (const auto& header : response.headers) {
    if (IsServerOwned(header.name)) {
      // HEAD: the handler's Content-Length describes the object; keep the first one.
      bool keep = framing.head_request && !forbids_body && !wrote_length &&
                  EqualsIgnoreCase(header.name, "content-length");
      if (!keep) continue;
      wrote_length = true;
    }
    AppendSanitized(&out, header.name);
    out += ": ";
    AppendSanitized(&out, header.value);
    out += "\r\n";
  }
  if (!HasHeader(response, "date")) out += "Date: " + framing.date + "\r\n";
  if (!HasHeader(response, "server")) out += "Server: cubby\r\n";
  if (!forbids_body && !wrote_length) {
    // HEAD: content_length is what the matching GET would send (s3api/http.h).
    bool use_field = response.source || (framing.head_request && response.body.empty());
    uint64_t length = use_field ? response.content_length : response.body.size();
    out += "Content-Length: " + std::to_string(length) + "\r\n";
  }
  if (framing.close) out += "Connection: close\r\n";
  out += "\r\n";
  return out;
}

RequestIdGenerator::RequestIdGenerator() {
  std::random_device device;
  seed_ = (static_cast<uint64_t>(device()) << 32) ^ device();
}

std::string RequestIdGenerator::Next() {
  // splitmix64's finalizer is a bijection on 64-bit values, so distinct counters give
  // distinct ids while consecutive ids look unrelated.
  uint64_t z = seed_ + counter_.fetch_add(1, std::memory_order_relaxed) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string id(16, '0');
  for (int i = 15; i >= 0; --i, z >>= 4) id[i] = kHex[z & 15];
  return id;
}

}  // namespace cubby::server
