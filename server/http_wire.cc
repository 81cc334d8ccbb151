#include "server/http_wire.h"

#include <algorithm>
#include <random>

#include <boost/beast/http/status.hpp>

#include "s3api/format.h"
#include "text/ascii.h"
#include "text/encoding.h"

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

// "0", "000", "0;ext": a chunk line of size zero (the last chunk).
bool IsLastChunkLine(std::string_view line) {
  const size_t end = line.find_first_not_of('0');
  if (end == 0) return false;
  return end == std::string_view::npos || text::HexDigitValue(line[end]) < 0;
}

}  // namespace

ChunkFraming CheckChunkFraming(std::string_view pending, bool after_data,
                               const ChunkLimits& limits) {
  if (after_data) {
    if (pending.size() < 2) return ChunkFraming::kOk;
    pending.remove_prefix(2);  // the previous chunk's CRLF; the parser checks it
  }
  if (pending.empty()) return ChunkFraming::kOk;
  const size_t eol = pending.substr(0, limits.max_line + 2).find("\r\n");
  if (eol == std::string_view::npos) {
    // No CRLF yet: a trailing CR may be the first half of it.
    size_t seen = std::min(pending.size(), limits.max_line + 2);
    if (pending[seen - 1] == '\r') --seen;
    return seen > limits.max_line ? ChunkFraming::kLineTooLong : ChunkFraming::kOk;
  }
  if (eol > limits.max_line) return ChunkFraming::kLineTooLong;
  if (!IsLastChunkLine(pending.substr(0, eol))) return ChunkFraming::kOk;
  // The trailer section runs from after the line's CRLF to the first empty line; the search
  // starts at the line's CRLF, which ends the section at once when there are no trailers.
  const std::string_view from_line_end = pending.substr(eol, limits.max_trailer + 2);
  if (from_line_end.find("\r\n\r\n") != std::string_view::npos) return ChunkFraming::kOk;
  // Not complete within the limit: too large once max_trailer bytes of it are here (what
  // is missing makes it longer still).
  const size_t trailer_so_far = pending.size() - eol - 2;
  return trailer_so_far >= limits.max_trailer ? ChunkFraming::kTrailerTooLarge
                                              : ChunkFraming::kOk;
}

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
