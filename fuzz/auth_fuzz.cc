// Fuzzes request authentication as S3Service runs it: the head read as the server reads it,
// routed (a virtual-hosted bucket is signed into SigV2's resource), then auth::Authenticate
// with a fixed key and clock (SigV4 and SigV2 headers, presigned queries, anonymous), and when
// it succeeds the body after the head goes through auth::WrapBody in the mode it found, so a
// signed aws-chunked seed reaches the chunk decoder. ParseAuthorization and ParseCredential see
// every header value on their own as well, so their parsers are reached without a valid
// request around them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/head.h"
#include "fuzz/keys.h"
#include "s3api/auth/auth.h"
#include "s3api/auth/sigv4.h"
#include "s3api/auth/sigv4_header.h"
#include "s3api/router.h"

namespace {

// Parses every header value on its own: the parsers must not depend on what precedes them.
void ParseValues(const cubby::s3api::HttpRequest& request) {
  using namespace cubby::s3api::auth::sigv4;
  for (const auto& header : request.headers) {
    std::string error;
    (void)ParseAuthorization(header.value, &error);
    (void)ParseCredential(header.value);
    (void)ParseSignedHeaders(header.value);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cubby;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  fuzz::Parser parser;
  size_t used = 0;
  auto request = fuzz::ReadHead(parser, input, &used);
  if (!request) return 0;
  ParseValues(*request);
  const std::string* host = request->Find("host");
  s3api::Route route =
      s3api::RouteRequest(request->method, request->target, host ? *host : "", fuzz::kDomain,
                          request->Find("x-amz-copy-source") != nullptr);
  static const s3api::auth::KeyLookup lookup = fuzz::Lookup();
  s3api::auth::AuthResult auth =
      s3api::auth::Authenticate(*request, fuzz::kRegion, lookup, fuzz::Now(),
                                route.virtual_host ? route.bucket : std::string_view{});
  if (auth.error != s3api::ErrorCode::kNone) return 0;
  auto body = s3api::auth::WrapBody(
      auth, std::make_unique<fuzz::ParserBody>(parser, input.substr(used), 4096));
  char buf[1000];
  for (;;) {
    s3api::ReadResult r = body->Read(buf, sizeof buf);
    if (r.n == 0) break;
  }
  for (const auto& trailer : body->trailers()) (void)trailer;
  return 0;
}
