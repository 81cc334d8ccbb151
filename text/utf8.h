// UTF-8 in its strict form (RFC 3629 §3-4, Unicode's "well-formed UTF-8"): the only encodings of
// text that S3 accepts in object keys and that cubby writes into XML.
//   https://www.rfc-editor.org/rfc/rfc3629#section-4
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cubby::text {

// The length (1-4) of the well-formed UTF-8 sequence at the start of `s`, its scalar value in
// *cp; 0 when `s` is empty or does not start with one: a stray continuation byte (80-BF), a lead
// byte that can never appear (C0, C1, F5-FF), a truncated sequence, an overlong form (C0 AF for
// '/', E0 80 AF, F0 80 80 AF), a UTF-16 surrogate (ED A0 80 is U+D800), or a value above
// U+10FFFF (F4 90 80 80). *cp is unspecified on 0.
size_t DecodeUtf8(std::string_view s, char32_t* cp);

// True if all of `s` is well-formed UTF-8 (the empty string is).
bool IsValidUtf8(std::string_view s);

// Appends the UTF-8 encoding of `cp`. REQUIRES: cp is a scalar value (at most U+10FFFF and not a
// surrogate).
void AppendUtf8(char32_t cp, std::string* out);

}  // namespace cubby::text
