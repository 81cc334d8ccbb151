// Fuzzes what the server does with a request's bytes before authentication: Beast's parser
// with the server's settings reads the head, server::ToHttpRequest turns it into an
// s3api::HttpRequest, s3api::RouteRequest names the operation and parses its parameters, and
// the body is pulled through the parser in small pieces (Content-Length, or Beast's decoder for
// Transfer-Encoding: chunked: the server has no chunked decoder of its own).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/head.h"
#include "s3api/router.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cubby;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  fuzz::Parser parser;
  size_t used = 0;
  auto request = fuzz::ReadHead(parser, input, &used);
  if (!request) return 0;
  const std::string* host = request->Find("host");
  s3api::Route route =
      s3api::RouteRequest(request->method, request->target, host ? *host : "", fuzz::kDomain,
                          request->Find("x-amz-copy-source") != nullptr);
  (void)s3api::OperationName(route.op);
  fuzz::ParserBody body(parser, input.substr(used), 61);
  char buf[4096];
  for (;;) {
    s3api::ReadResult r = body.Read(buf, sizeof buf);
    if (r.n == 0) break;
  }
  return 0;
}
