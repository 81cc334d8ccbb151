#include "fuzz/head.h"

#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>

#include "server/http_server.h"
#include "server/http_wire.h"

namespace cubby::fuzz {
namespace http = boost::beast::http;

std::optional<s3api::HttpRequest> ReadHead(Parser& parser, std::string_view input, size_t* used) {
  parser.header_limit(server::HttpServerOptions{}.header_limit);
  parser.body_limit(boost::none);  // as the server: bodies stream, S3Service limits them
  boost::system::error_code ec;
  *used = 0;
  while (!parser.is_header_done() && *used < input.size()) {
    size_t n = parser.put(boost::asio::buffer(input.data() + *used, input.size() - *used), ec);
    *used += n;
    if (ec == http::error::need_more && n > 0) continue;
    if (ec || n == 0) break;
  }
  if (!parser.is_header_done()) return std::nullopt;
  std::optional<uint64_t> content_length;
  if (auto cl = parser.content_length()) content_length = *cl;
  return server::ToHttpRequest(parser.get().base(), content_length, "192.0.2.1:1234",
                               "0123456789ABCDEF");
}

s3api::ReadResult ParserBody::Read(char* buf, size_t n) {
  if (failed_) return {0, s3api::ErrorCode::kIncompleteBody};
  n = std::min(n, piece_);
  while (!parser_.is_done() && n > 0) {
    auto& body = parser_.get().body();
    body.data = buf;
    body.size = n;
    body.more = true;
    boost::system::error_code ec;
    size_t used = parser_.put(boost::asio::buffer(rest_.data(), rest_.size()), ec);
    rest_.remove_prefix(used);
    if (ec == http::error::need_buffer) ec = {};
    if (ec == http::error::need_more && rest_.empty())
      parser_.put_eof(ec);
    else if (ec == http::error::need_more)
      ec = {};
    const size_t got = n - body.size;
    body.data = nullptr;
    body.size = 0;
    if (got > 0) return {got, s3api::ErrorCode::kNone};
    if (ec || used == 0) {
      failed_ = true;
      return {0, s3api::ErrorCode::kIncompleteBody};
    }
  }
  return {0, s3api::ErrorCode::kNone};
}

}  // namespace cubby::fuzz
