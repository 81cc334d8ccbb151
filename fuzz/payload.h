// The payload target's input format, shared with fuzz/make_seeds.cc that writes its seeds: a
// first line of settings, then the raw body exactly as a client sends it.
//   "<mode> <decoded-length> <piece> <trailer,names> <sha256-hex>\n<body>"
// mode 0..4 is auth::PayloadMode in declaration order; piece is the most bytes the raw reader
// hands over per Read (so chunk lines are split everywhere); trailer names and the sha256 may
// be "-". The signed modes chain from the fixed signing key, date, scope and seed signature
// below.
#pragma once

#include <string_view>

namespace cubby::fuzz {

inline constexpr std::string_view kAmzDate = "20130524T000000Z";
inline constexpr std::string_view kScope = "20130524/us-east-1/s3/aws4_request";
inline constexpr std::string_view kSeedSignature =
    "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9";

}  // namespace cubby::fuzz
