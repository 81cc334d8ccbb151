// What the fuzz targets share: the server's own reading of a request head (Beast's parser with
// the server's limits, then server::ToHttpRequest), so every target that takes a request sees
// exactly what S3Service sees, and the body that follows the head as the parser delivers it.
#pragma once

#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "s3api/http.h"

namespace cubby::fuzz {

using Parser = boost::beast::http::request_parser<boost::beast::http::buffer_body>;

// The virtual-host domain the targets route with.
inline constexpr std::string_view kDomain = "s3.fuzz.example";

// Reads a request head from the start of `input` into `parser`, with the server's header limit
// and no body limit. Returns the request as the server builds it and sets *used to the bytes the
// head took, or nullopt when Beast refuses the head or it is incomplete.
std::optional<s3api::HttpRequest> ReadHead(Parser& parser, std::string_view input, size_t* used);

// The body after the head: `rest` of the input pulled through the parser into pieces of at most
// `piece` bytes, as the server's ParserBodyReader pulls it (Content-Length or Beast's chunked
// decoder). The end of `rest` is the client closing the connection. Never fails: a framing
// error ends the body early with kIncompleteBody, as the server reports it.
class ParserBody : public s3api::BodyReader {
 public:
  ParserBody(Parser& parser, std::string_view rest, size_t piece)
      : parser_(parser), rest_(rest), piece_(piece) {}
  s3api::ReadResult Read(char* buf, size_t n) override;

 private:
  Parser& parser_;
  std::string_view rest_;
  size_t piece_;
  bool failed_ = false;
};

}  // namespace cubby::fuzz
