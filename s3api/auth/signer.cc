#include "s3api/auth/signer.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "s3api/auth/sigv4.h"
#include "text/ascii.h"
#include "text/time.h"
#include "text/uri.h"

namespace cubby::s3api::auth {
namespace {

std::vector<std::string> SortedNames(const std::vector<Header>& headers) {
  std::vector<std::string> names;
  for (const Header& h : headers) names.push_back(h.name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

bool HasHeader(const std::vector<Header>& headers, std::string_view name) {
  return FindHeader(headers, name) != nullptr;
}

std::vector<Header> LowercaseHeaders(const std::vector<Header>& headers) {
  std::vector<Header> out;
  out.reserve(headers.size());
  for (const Header& h : headers) out.push_back({text::AsciiLowercase(h.name), h.value});
  return out;
}

// "<date>/<region>/<service>/aws4_request"
std::string Scope(const SignInput& in, std::string_view amz_date) {
  return sigv4::Credential{in.access_key_id, std::string(amz_date.substr(0, 8)), in.region,
                           in.service, std::string(sigv4::kTerminator)}
      .Scope();
}

// The signature of the request `in` describes, sent with `query` and `headers`, of which
// `names` (sorted) are signed.
std::string SignatureOf(const SignInput& in, std::string_view amz_date, std::string_view query,
                        const std::vector<Header>& headers, const std::vector<std::string>& names,
                        std::string_view payload) {
  const std::string canonical_request = sigv4::CanonicalRequest(
      in.method, sigv4::CanonicalUri(in.path),
      sigv4::CanonicalQueryString(sigv4::SplitQuery(query)),
      sigv4::CanonicalHeaders(headers, names), sigv4::JoinSignedHeaders(names), payload);
  const std::string signing_key =
      sigv4::CachedSigningKey(in.secret_key, amz_date.substr(0, 8), in.region, in.service);
  return sigv4::Signature(signing_key,
                          sigv4::StringToSign(amz_date, Scope(in, amz_date), canonical_request));
}

}  // namespace

std::vector<Header> SignV4(const SignInput& in) {
  const std::string amz_date = text::FormatIso8601Basic(in.now);
  const std::string payload =
      in.payload_sha256.empty() ? std::string(sigv4::kUnsignedPayload) : in.payload_sha256;

  std::vector<Header> headers = LowercaseHeaders(in.extra_headers);
  std::vector<Header> added;
  if (!HasHeader(headers, sigv4::kHost)) added.push_back({std::string(sigv4::kHost), in.host});
  if (!HasHeader(headers, sigv4::kAmzDate)) {
    added.push_back({std::string(sigv4::kAmzDate), amz_date});
  }
  if (!HasHeader(headers, sigv4::kAmzContentSha256)) {
    added.push_back({std::string(sigv4::kAmzContentSha256), payload});
  }
  headers.insert(headers.end(), added.begin(), added.end());
  const std::vector<std::string> names = SortedNames(headers);

  std::string authorization(sigv4::kAlgorithm);
  authorization += " Credential=" + in.access_key_id + "/" + Scope(in, amz_date);
  authorization += ", SignedHeaders=" + sigv4::JoinSignedHeaders(names);
  authorization += ", Signature=" + SignatureOf(in, amz_date, in.query, headers, names, payload);
  added.push_back({std::string(sigv4::kAuthorization), std::move(authorization)});
  return added;
}

std::string PresignV4(const SignInput& in, int expires_seconds) {
  const std::string amz_date = text::FormatIso8601Basic(in.now);
  std::vector<Header> headers = LowercaseHeaders(in.extra_headers);
  if (!HasHeader(headers, sigv4::kHost)) headers.push_back({std::string(sigv4::kHost), in.host});
  const std::vector<std::string> names = SortedNames(headers);

  std::string auth_query;
  auth_query += std::string(sigv4::kQueryAlgorithm) + "=" + std::string(sigv4::kAlgorithm);
  auth_query += "&" + std::string(sigv4::kQueryCredential) + "=" +
                text::UriEncode(in.access_key_id + "/" + Scope(in, amz_date), text::Slash::kEncode);
  auth_query += "&" + std::string(sigv4::kQueryDate) + "=" + amz_date;
  auth_query += "&" + std::string(sigv4::kQueryExpires) + "=" + std::to_string(expires_seconds);
  auth_query += "&" + std::string(sigv4::kQuerySignedHeaders) + "=" +
                text::UriEncode(sigv4::JoinSignedHeaders(names), text::Slash::kEncode);
  std::string payload(sigv4::kUnsignedPayload);
  if (!in.payload_sha256.empty() && in.payload_sha256 != sigv4::kUnsignedPayload) {
    payload = in.payload_sha256;
    auth_query += "&" + std::string(sigv4::kQueryContentSha256) + "=" + payload;
  }
  const std::string query = in.query.empty() ? auth_query : in.query + "&" + auth_query;
  return in.path + "?" + query + "&" + std::string(sigv4::kQuerySignature) + "=" +
         SignatureOf(in, amz_date, query, headers, names, payload);
}

std::string EncodeChunkedBody(const ChunkedBodyInput& in) {
  const bool is_signed = in.mode == PayloadMode::kStreamingSigned ||
                         in.mode == PayloadMode::kStreamingSignedTrailer;
  const bool with_trailer = in.mode == PayloadMode::kStreamingSignedTrailer ||
                            in.mode == PayloadMode::kStreamingUnsignedTrailer;
  std::string previous = in.seed_signature;
  std::string out;
  auto chunk = [&](std::string_view data) {
    char size[20];
    std::snprintf(size, sizeof(size), "%zx", data.size());
    out += size;
    if (is_signed) {
      previous = sigv4::ChunkSignature(in.signing_key, in.amz_date, in.scope, previous, data);
      out += ";" + std::string(sigv4::kChunkSignatureKey) + previous;
    }
    out += "\r\n";
    if (!data.empty()) {
      out.append(data);
      out += "\r\n";
    }
  };
  const size_t step = std::max<size_t>(in.chunk_size, 1);
  for (size_t pos = 0; pos < in.data.size(); pos += step) {
    chunk(std::string_view(in.data).substr(pos, step));
  }
  chunk({});
  if (with_trailer) {
    for (const Header& h : in.trailers) out += h.name + ":" + h.value + "\r\n";
    if (is_signed) {
      out += std::string(sigv4::kTrailerSignature) + ":" +
             sigv4::Signature(in.signing_key, sigv4::TrailerStringToSign(in.amz_date, in.scope,
                                                                  previous, in.trailers)) +
             "\r\n";
    }
  }
  out += "\r\n";
  return out;
}

}  // namespace cubby::s3api::auth
