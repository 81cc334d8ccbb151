// RFC 2047 encoded-words ("=?UTF-8?B?w6k=?="), the form S3 uses for user metadata values that
// are not US-ASCII: such a value is decoded before it is stored and encoded again, to be
// mail-safe, when it is returned; an ASCII value is kept and presented as it is.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingMetadata.html
//   https://datatracker.ietf.org/doc/html/rfc2047
#pragma once

#include <string>
#include <string_view>

namespace cubby::text {

// The text a header value carries, as UTF-8. Each encoded-word "=?charset?B?..?=" or
// "=?charset?Q?..?=" (charset UTF-8, US-ASCII or ISO-8859-1, encoding and charset in any case)
// is decoded, and the whitespace between two adjacent encoded-words dropped (RFC 2047 §6.2); a
// word that is malformed, in another charset, or decodes to bytes that are not UTF-8 stays as
// it is. Bytes outside encoded-words are kept when the whole value is UTF-8; otherwise the
// value's bytes are read as ISO-8859-1 (the charset HTTP header values had historically).
std::string DecodeHeaderText(std::string_view value);

// `text` as a header value: unchanged when it is printable US-ASCII (tab and 0x20-0x7E), else
// one encoded-word "=?UTF-8?B?<base64 of text>?=".
std::string EncodeHeaderText(std::string_view text);

}  // namespace cubby::text
