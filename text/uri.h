// Percent-encoding and the splitting of URL-encoded text (query strings and form bodies). The
// strictness is in each name: a Strict decoder refuses a '%' that is not followed by two hex
// digits; a Lenient one keeps such a '%' as a literal character.
//   https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html (UriEncode)
//   https://url.spec.whatwg.org/#application/x-www-form-urlencoded
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cubby::text {

// What '/' becomes in UriEncode.
enum class Slash {
  kEncode,  // "%2F": query parameters, and each segment of a canonical URI
  kKeep,    // '/': object keys in paths and in encoding-type=url listings
};

// What '+' means to a decoder.
enum class Plus {
  kSpace,    // query strings and form bodies, as browsers and SDKs encode them
  kLiteral,  // paths, and values that may hold unencoded base64 (SigV2 signatures)
};

// AWS's UriEncode: every byte except the unreserved A-Z a-z 0-9 - . _ ~ (and '/' with
// Slash::kKeep) becomes "%XX" with uppercase hex. Bytes >= 0x80 are encoded one by one, so UTF-8
// comes out as AWS signs it.
std::string UriEncode(std::string_view s, Slash slash);

// Decodes "%XX" escapes (either case) and, with Plus::kSpace, '+' as a space. False on a '%'
// not followed by two hex digits; *out is then unspecified. For request paths and query
// parameters that route a request, where a malformed escape is InvalidURI.
[[nodiscard]] bool PercentDecodeStrict(std::string_view in, Plus plus, std::string* out);

// As PercentDecodeStrict, but a '%' not followed by two hex digits stays a literal '%'. For
// canonicalizing what a client signed (S3 signs the bytes the client sent) and for values where
// a stray '%' is data.
std::string PercentDecodeLenient(std::string_view in, Plus plus);

// One name=value pair of URL-encoded text, both decoded. A piece without '=' has value "".
struct NameValue {
  std::string name;
  std::string value;

  bool operator==(const NameValue&) const = default;
};

// Splits "a=1&b&=x&a=2" on '&' and the first '=' of each piece into decoded pairs, in order.
// Repeated names and empty names are kept; empty pieces ("a=1&&b", a trailing '&') are skipped.
// A query string is passed without its '?'; a form body (application/x-www-form-urlencoded) as
// it is, with Plus::kSpace.
//   SplitUrlEncodedStrict: false on a malformed escape (*out then unspecified).
//   SplitUrlEncodedLenient: malformed escapes stay literal.
[[nodiscard]] bool SplitUrlEncodedStrict(std::string_view raw, Plus plus,
                                         std::vector<NameValue>* out);
std::vector<NameValue> SplitUrlEncodedLenient(std::string_view raw, Plus plus);

// The first pair named `name` in `pairs`, or nullptr.
const std::string* FindValue(const std::vector<NameValue>& pairs, std::string_view name);

}  // namespace cubby::text
