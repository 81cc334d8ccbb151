#include "s3api/auth/sigv4.h"

#include <algorithm>

#include "s3api/auth/crypto.h"
#include "text/ascii.h"
#include "text/encoding.h"

namespace cubby::s3api::auth::sigv4 {

std::string CanonicalUri(std::string_view raw_path) {
  if (raw_path.empty()) return "/";
  std::string out;
  out.reserve(raw_path.size() + 8);
  size_t start = 0;
  while (true) {
    const size_t slash = raw_path.find('/', start);
    const std::string_view segment =
        raw_path.substr(start, slash == std::string_view::npos ? std::string_view::npos
                                                               : slash - start);
    out += text::UriEncode(text::PercentDecodeLenient(segment, text::Plus::kLiteral),
                           text::Slash::kEncode);
    if (slash == std::string_view::npos) break;
    out.push_back('/');
    start = slash + 1;
  }
  return out;
}

std::vector<text::NameValue> SplitQuery(std::string_view raw_query) {
  return text::SplitUrlEncodedLenient(raw_query, text::Plus::kSpace);
}

std::string CanonicalQueryString(const std::vector<text::NameValue>& params,
                                 std::string_view exclude) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(params.size());
  for (const text::NameValue& p : params) {
    if (!exclude.empty() && p.name == exclude) continue;
    encoded.emplace_back(text::UriEncode(p.name, text::Slash::kEncode),
                         text::UriEncode(p.value, text::Slash::kEncode));
  }
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [k, v] : encoded) {
    if (!out.empty()) out.push_back('&');
    out += k;
    out.push_back('=');
    out += v;
  }
  return out;
}

std::string CanonicalHeaderValue(std::string_view value) {
  value = text::TrimOws(value);
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out.push_back(c);
  }
  return out;
}

std::string CanonicalHeaders(const std::vector<Header>& headers,
                             const std::vector<std::string>& signed_names) {
  std::string out;
  for (const std::string& name : signed_names) {
    out += name;
    out.push_back(':');
    bool first = true;
    for (const Header& h : headers) {
      if (h.name != name) continue;
      if (!first) out.push_back(',');
      out += CanonicalHeaderValue(h.value);
      first = false;
    }
    out.push_back('\n');
  }
  return out;
}

std::string JoinSignedHeaders(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out.push_back(';');
    out += n;
  }
  return out;
}

std::string CanonicalRequest(std::string_view method, std::string_view canonical_uri,
                             std::string_view canonical_query,
                             std::string_view canonical_headers, std::string_view signed_headers,
                             std::string_view hashed_payload) {
  std::string out;
  out.reserve(method.size() + canonical_uri.size() + canonical_query.size() +
              canonical_headers.size() + signed_headers.size() + hashed_payload.size() + 8);
  out.append(method).push_back('\n');
  out.append(canonical_uri).push_back('\n');
  out.append(canonical_query).push_back('\n');
  out.append(canonical_headers).push_back('\n');
  out.append(signed_headers).push_back('\n');
  out.append(hashed_payload);
  return out;
}

std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request) {
  std::string out(kAlgorithm);
  out.push_back('\n');
  out.append(amz_date).push_back('\n');
  out.append(scope).push_back('\n');
  out += text::HexEncode(Sha256(canonical_request));
  return out;
}

std::string SigningKey(std::string_view secret, std::string_view date, std::string_view region,
                       std::string_view service) {
  std::string k_secret = "AWS4";
  k_secret.append(secret);
  const std::string k_date = HmacSha256(k_secret, date);
  const std::string k_region = HmacSha256(k_date, region);
  const std::string k_service = HmacSha256(k_region, service);
  return HmacSha256(k_service, kTerminator);
}

namespace {

// A few derivations per thread: a connection thread normally sees one key and one date.
class SigningKeyMemo {
 public:
  SigningKeyMemo() = default;
  SigningKeyMemo(const SigningKeyMemo&) = delete;
  SigningKeyMemo& operator=(const SigningKeyMemo&) = delete;
  ~SigningKeyMemo() {
    for (Entry& e : entries_) Wipe(&e);
  }

  std::string Get(std::string_view secret, std::string_view date, std::string_view region,
                  std::string_view service) {
    for (const Entry& e : entries_) {
      // The secret is compared in constant time, like everything derived from it.
      if (!e.key.empty() && e.date == date && e.region == region && e.service == service &&
          ConstantTimeEquals(e.secret, secret)) {
        return e.key;
      }
    }
    Entry& e = entries_[next_];
    next_ = (next_ + 1) % kEntries;
    Wipe(&e);
    e.secret.assign(secret);
    e.date.assign(date);
    e.region.assign(region);
    e.service.assign(service);
    e.key = SigningKey(secret, date, region, service);
    return e.key;
  }

 private:
  static constexpr size_t kEntries = 4;
  struct Entry {
    std::string secret, date, region, service, key;  // key empty: unused
  };
  static void Wipe(Entry* e) {
    Cleanse(&e->secret);
    Cleanse(&e->key);
  }

  Entry entries_[kEntries];
  size_t next_ = 0;
};

}  // namespace

std::string CachedSigningKey(std::string_view secret, std::string_view date,
                             std::string_view region, std::string_view service) {
  thread_local SigningKeyMemo memo;
  return memo.Get(secret, date, region, service);
}

std::string Signature(std::string_view signing_key, std::string_view string_to_sign) {
  return text::HexEncode(HmacSha256(signing_key, string_to_sign));
}

std::string ChunkStringToSign(std::string_view amz_date, std::string_view scope,
                              std::string_view previous_signature,
                              std::string_view chunk_sha256_hex) {
  std::string out(kChunkAlgorithm);
  out.push_back('\n');
  out.append(amz_date).push_back('\n');
  out.append(scope).push_back('\n');
  out.append(previous_signature).push_back('\n');
  out.append(kEmptySha256).push_back('\n');
  out.append(chunk_sha256_hex);
  return out;
}

std::string ChunkSignature(std::string_view signing_key, std::string_view amz_date,
                           std::string_view scope, std::string_view previous_signature,
                           std::string_view chunk_data) {
  return Signature(signing_key, ChunkStringToSign(amz_date, scope, previous_signature,
                                                  text::HexEncode(Sha256(chunk_data))));
}

std::string TrailerStringToSign(std::string_view amz_date, std::string_view scope,
                                std::string_view previous_signature,
                                const std::vector<Header>& trailers) {
  std::vector<const Header*> sorted;
  for (const Header& h : trailers) {
    if (h.name != kTrailerSignature) sorted.push_back(&h);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const Header* a, const Header* b) { return a->name < b->name; });
  std::string canonical;
  for (const Header* h : sorted) canonical += h->name + ":" + h->value + "\n";
  std::string out(kTrailerAlgorithm);
  out += "\n";
  out.append(amz_date).append("\n").append(scope).append("\n").append(previous_signature);
  out += "\n" + text::HexEncode(Sha256(canonical));
  return out;
}

std::string Credential::Scope() const {
  std::string out = date;
  out.push_back('/');
  out += region;
  out.push_back('/');
  out += service;
  out.push_back('/');
  out += terminator;
  return out;
}

std::optional<Credential> ParseCredential(std::string_view text) {
  std::string_view parts[4];
  for (int i = 3; i >= 0; --i) {
    const size_t slash = text.rfind('/');
    if (slash == std::string_view::npos) return std::nullopt;
    parts[i] = text.substr(slash + 1);
    text = text.substr(0, slash);
    if (parts[i].empty() && i != 1) return std::nullopt;
  }
  if (text.empty()) return std::nullopt;
  Credential c;
  c.access_key_id = std::string(text);
  c.date = std::string(parts[0]);
  c.region = std::string(parts[1]);
  c.service = std::string(parts[2]);
  c.terminator = std::string(parts[3]);
  return c;
}

std::string CheckScope(const Credential& credential, std::string_view request_date,
                       std::string_view region, std::string_view service) {
  if (credential.date != request_date) {
    return "Invalid credential date \"" + credential.date + "\". This date is not the same as " +
           "the request date \"" + std::string(request_date) + "\".";
  }
  if (credential.region != region) {
    return "the region '" + credential.region + "' is wrong; expecting '" + std::string(region) +
           "'";
  }
  if (credential.service != service) {
    return "incorrect service \"" + credential.service + "\". This endpoint belongs to \"" +
           std::string(service) + "\".";
  }
  if (credential.terminator != kTerminator) {
    return "incorrect terminal \"" + credential.terminator +
           "\". This endpoint uses \"aws4_request\".";
  }
  return {};
}

std::optional<std::vector<std::string>> ParseSignedHeaders(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::vector<std::string> names;
  size_t start = 0;
  while (true) {
    const size_t semi = text.find(';', start);
    const std::string_view name =
        text.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start);
    if (name.empty()) return std::nullopt;
    names.emplace_back(name);
    if (semi == std::string_view::npos) break;
    start = semi + 1;
  }
  return names;
}

}  // namespace cubby::s3api::auth::sigv4
