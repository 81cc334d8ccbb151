#include "s3api/auth/sigv4.h"

#include <algorithm>
#include <cstdio>

#include "s3api/auth/crypto.h"

namespace cubby::s3api::auth::sigv4 {
namespace {

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '.' || c == '_' || c == '~';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

int ToInt(std::string_view s) {
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

std::optional<TimePoint> MakeTime(int year, int month, int day, int hour, int minute,
                                  int second) {
  using namespace std::chrono;
  const year_month_day ymd{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                           std::chrono::day{static_cast<unsigned>(day)}};
  if (!ymd.ok() || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  return TimePoint{sys_days{ymd}.time_since_epoch() + hours{hour} + minutes{minute} +
                   seconds{second}};
}

}  // namespace

std::string UriEncode(std::string_view s, bool encode_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() + s.size() / 2);
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsUnreserved(c) || (c == '/' && !encode_slash)) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0x0f]);
    }
  }
  return out;
}

std::string PercentDecode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 &&
        HexValue(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2])));
      i += 2;
    } else if (s[i] == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

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
    out += UriEncode(PercentDecode(segment, /*plus_is_space=*/false), /*encode_slash=*/true);
    if (slash == std::string_view::npos) break;
    out.push_back('/');
    start = slash + 1;
  }
  return out;
}

std::vector<QueryParam> ParseQuery(std::string_view raw_query) {
  std::vector<QueryParam> params;
  size_t start = 0;
  while (start <= raw_query.size()) {
    size_t amp = raw_query.find('&', start);
    if (amp == std::string_view::npos) amp = raw_query.size();
    const std::string_view piece = raw_query.substr(start, amp - start);
    if (!piece.empty()) {
      const size_t eq = piece.find('=');
      QueryParam p;
      p.key = PercentDecode(piece.substr(0, eq), /*plus_is_space=*/true);
      if (eq != std::string_view::npos) {
        p.value = PercentDecode(piece.substr(eq + 1), /*plus_is_space=*/true);
      }
      params.push_back(std::move(p));
    }
    start = amp + 1;
  }
  return params;
}

std::string CanonicalQueryString(const std::vector<QueryParam>& params, std::string_view exclude) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(params.size());
  for (const QueryParam& p : params) {
    if (!exclude.empty() && p.key == exclude) continue;
    encoded.emplace_back(UriEncode(p.key, true), UriEncode(p.value, true));
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
  value = Trim(value);
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
  out += HexEncode(Sha256(canonical_request));
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
  return HexEncode(HmacSha256(signing_key, string_to_sign));
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
                                                  HexEncode(Sha256(chunk_data))));
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
    if (parts[i].empty()) return std::nullopt;
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
                       std::string_view region) {
  if (credential.date != request_date) {
    return "Invalid credential date \"" + credential.date + "\". This date is not the same as " +
           "the request date \"" + std::string(request_date) + "\".";
  }
  if (credential.region != region) {
    return "the region '" + credential.region + "' is wrong; expecting '" + std::string(region) +
           "'";
  }
  if (credential.service != kService) {
    return "incorrect service \"" + credential.service + "\". This endpoint belongs to \"s3\".";
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

std::optional<ParsedAuthorization> ParseAuthorization(std::string_view value, std::string* error) {
  value = Trim(value);
  const size_t space = value.find(' ');
  const std::string_view algorithm = value.substr(0, space);
  if (algorithm != kAlgorithm) {
    *error = "Unsupported authorization algorithm; expecting \"AWS4-HMAC-SHA256\".";
    return std::nullopt;
  }
  if (space == std::string_view::npos) {
    *error = "missing Credential, SignedHeaders and Signature.";
    return std::nullopt;
  }
  std::string_view rest = value.substr(space + 1);
  std::optional<std::string_view> credential, signed_headers, signature;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = Trim(rest.substr(0, comma));
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      *error = "the component \"" + std::string(item) + "\" is not of the form key=value.";
      return std::nullopt;
    }
    const std::string_view key = item.substr(0, eq);
    const std::string_view val = item.substr(eq + 1);
    std::optional<std::string_view>* slot = key == "Credential"      ? &credential
                                            : key == "SignedHeaders" ? &signed_headers
                                            : key == "Signature"     ? &signature
                                                                     : nullptr;
    if (slot == nullptr) {
      *error = "unknown component \"" + std::string(key) + "\".";
      return std::nullopt;
    }
    if (slot->has_value()) {
      *error = "the component \"" + std::string(key) + "\" appears twice.";
      return std::nullopt;
    }
    *slot = val;
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  if (!credential || !signed_headers || !signature) {
    *error = "it must contain Credential, SignedHeaders and Signature.";
    return std::nullopt;
  }
  ParsedAuthorization parsed;
  std::optional<Credential> c = ParseCredential(*credential);
  if (!c) {
    *error =
        "the Credential is mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/"
        "aws4_request\".";
    return std::nullopt;
  }
  parsed.credential = std::move(*c);
  std::optional<std::vector<std::string>> names = ParseSignedHeaders(*signed_headers);
  if (!names) {
    *error = "SignedHeaders is empty or has an empty header name.";
    return std::nullopt;
  }
  parsed.signed_headers = std::move(*names);
  if (signature->empty()) {
    *error = "the Signature is empty.";
    return std::nullopt;
  }
  parsed.signature = std::string(*signature);
  return parsed;
}

std::optional<TimePoint> ParseAmzDate(std::string_view text) {
  // YYYYMMDDTHHMMSSZ
  if (text.size() != 16 || text[8] != 'T' || text[15] != 'Z') return std::nullopt;
  if (!AllDigits(text.substr(0, 8)) || !AllDigits(text.substr(9, 6))) return std::nullopt;
  return MakeTime(ToInt(text.substr(0, 4)), ToInt(text.substr(4, 2)), ToInt(text.substr(6, 2)),
                  ToInt(text.substr(9, 2)), ToInt(text.substr(11, 2)), ToInt(text.substr(13, 2)));
}

std::string FormatAmzDate(TimePoint t) {
  using namespace std::chrono;
  const auto secs = floor<seconds>(t);
  const auto day = floor<days>(secs);
  const year_month_day ymd{day};
  const hh_mm_ss hms{secs - day};
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04d%02u%02uT%02d%02d%02dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  return buf;
}

std::optional<TimePoint> ParseHttpDate(std::string_view text) {
  // "Fri, 24 May 2013 00:00:00 GMT"; the weekday is not checked against the date.
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  text = Trim(text);
  const size_t comma = text.find(", ");
  if (comma != 3) return std::nullopt;
  text.remove_prefix(5);
  if (text.size() != 24 || text[2] != ' ' || text[6] != ' ' || text[11] != ' ' ||
      text[14] != ':' || text[17] != ':' || text.substr(20) != " GMT") {
    return std::nullopt;
  }
  const std::string_view day = text.substr(0, 2), month = text.substr(3, 3),
                         year = text.substr(7, 4), hour = text.substr(12, 2),
                         minute = text.substr(15, 2), second = text.substr(18, 2);
  if (!AllDigits(day) || !AllDigits(year) || !AllDigits(hour) || !AllDigits(minute) ||
      !AllDigits(second)) {
    return std::nullopt;
  }
  const auto m = std::find(std::begin(kMonths), std::end(kMonths), month);
  if (m == std::end(kMonths)) return std::nullopt;
  return MakeTime(ToInt(year), static_cast<int>(m - std::begin(kMonths)) + 1, ToInt(day),
                  ToInt(hour), ToInt(minute), ToInt(second));
}

}  // namespace cubby::s3api::auth::sigv4
