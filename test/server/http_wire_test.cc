#include "server/http_wire.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>

namespace cubby::server {
namespace {

namespace http = boost::beast::http;

// Parses a request head the way the server does (Beast's parser), so the conversion is tested
// on real parser output.
http::request_header<> ParseHead(const std::string& text) {
  http::request_parser<http::empty_body> parser;
  parser.eager(false);
  boost::system::error_code ec;
  parser.put(boost::asio::buffer(text), ec);
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_TRUE(parser.is_header_done());
  return parser.release().base();
}

TEST(HttpWireTest, ToHttpRequestKeepsTargetAndLowercasesNames) {
  auto header = ParseHead(
      "PUT /bucket/key%20x?partNumber=1&uploadId=abc HTTP/1.1\r\n"
      "Host: 127.0.0.1:9000\r\n"
      "X-Amz-Date: 20240101T000000Z\r\n"
      "X-Amz-Meta-Color:   blue  \r\n"
      "x-amz-meta-color: red\r\n"
      "Content-Length: 5\r\n"
      "\r\n");
  s3api::HttpRequest request = ToHttpRequest(header, 5, "10.0.0.7:41234", "ABCDEF0123456789");
  EXPECT_EQ(request.method, "PUT");
  EXPECT_EQ(request.target, "/bucket/key%20x?partNumber=1&uploadId=abc");
  ASSERT_EQ(request.headers.size(), 5u);
  EXPECT_EQ(request.headers[0].name, "host");
  EXPECT_EQ(request.headers[0].value, "127.0.0.1:9000");
  EXPECT_EQ(request.headers[1].name, "x-amz-date");
  // Repeated names kept in arrival order; values trimmed.
  EXPECT_EQ(request.headers[2].name, "x-amz-meta-color");
  EXPECT_EQ(request.headers[2].value, "blue");
  EXPECT_EQ(request.headers[3].name, "x-amz-meta-color");
  EXPECT_EQ(request.headers[3].value, "red");
  EXPECT_EQ(request.headers[4].name, "content-length");
  EXPECT_EQ(request.content_length, std::optional<uint64_t>(5));
  EXPECT_EQ(request.remote_address, "10.0.0.7:41234");
  EXPECT_EQ(request.request_id, "ABCDEF0123456789");
}

TEST(HttpWireTest, ToHttpRequestMethods) {
  for (std::string method : {"GET", "HEAD", "POST", "DELETE", "OPTIONS", "PROPFIND"}) {
    SCOPED_TRACE(method);
    auto header = ParseHead(method + " / HTTP/1.1\r\nHost: h\r\n\r\n");
    auto request = ToHttpRequest(header, std::nullopt, "r", "id");
    EXPECT_EQ(request.method, method);
    EXPECT_EQ(request.target, "/");
    EXPECT_FALSE(request.content_length.has_value());
  }
}

TEST(HttpWireTest, ReasonPhrases) {
  const std::pair<int, std::string_view> cases[] = {
      {100, "Continue"},          {200, "OK"},
      {204, "No Content"},        {206, "Partial Content"},
      {304, "Not Modified"},      {400, "Bad Request"},
      {403, "Forbidden"},         {404, "Not Found"},
      {405, "Method Not Allowed"}, {409, "Conflict"},
      {411, "Length Required"},   {412, "Precondition Failed"},
      {416, "Range Not Satisfiable"}, {500, "Internal Server Error"},
      {501, "Not Implemented"},   {503, "Service Unavailable"},
      {299, "Unknown"},           {42, "Unknown"},
  };
  for (const auto& [status, reason] : cases) {
    EXPECT_EQ(ReasonPhrase(status), reason) << status;
  }
}

class FixedSource : public s3api::BodySource {
 public:
  s3api::ReadResult Read(char*, size_t) override { return {}; }
};

struct HeadCase {
  std::string name;
  int status;
  std::vector<s3api::Header> headers;
  std::string body;
  bool with_source;
  uint64_t content_length;
  ResponseFraming framing;
  std::string expected;
};

TEST(HttpWireTest, SerializeResponseHead) {
  const std::string d = "Thu, 01 Jan 1970 00:00:00 GMT";
  const std::vector<HeadCase> cases = {
      {"body", 200, {{"x-amz-request-id", "R1"}, {"Content-Type", "application/xml"}}, "<a/>",
       false, 0, {false, false, d},
       "HTTP/1.1 200 OK\r\nx-amz-request-id: R1\r\nContent-Type: application/xml\r\n"
       "Date: " + d + "\r\nServer: cubby\r\nContent-Length: 4\r\n\r\n"},
      {"close", 404, {}, "", false, 0, {false, true, d},
       "HTTP/1.1 404 Not Found\r\nDate: " + d +
           "\r\nServer: cubby\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"},
      {"source uses content_length", 200, {}, "", true, 1234, {false, false, d},
       "HTTP/1.1 200 OK\r\nDate: " + d + "\r\nServer: cubby\r\nContent-Length: 1234\r\n\r\n"},
      {"handler content-length dropped on GET", 200, {{"Content-Length", "99"}}, "abc", false, 0,
       {false, false, d},
       "HTTP/1.1 200 OK\r\nDate: " + d + "\r\nServer: cubby\r\nContent-Length: 3\r\n\r\n"},
      {"HEAD keeps handler content-length", 200, {{"Content-Length", "5000"}}, "", false, 0,
       {true, false, d},
       "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nDate: " + d + "\r\nServer: cubby\r\n\r\n"},
      {"HEAD uses content_length field", 200, {{"ETag", "\"e\""}}, "", false, 777, {true, false, d},
       "HTTP/1.1 200 OK\r\nETag: \"e\"\r\nDate: " + d +
           "\r\nServer: cubby\r\nContent-Length: 777\r\n\r\n"},
      {"204 has no length", 204, {{"Content-Length", "0"}}, "", false, 0, {false, false, d},
       "HTTP/1.1 204 No Content\r\nDate: " + d + "\r\nServer: cubby\r\n\r\n"},
      {"304 has no length", 304, {{"ETag", "\"e\""}}, "", false, 0, {false, false, d},
       "HTTP/1.1 304 Not Modified\r\nETag: \"e\"\r\nDate: " + d + "\r\nServer: cubby\r\n\r\n"},
      {"hop-by-hop headers are the server's", 200,
       {{"Connection", "keep-alive"}, {"Transfer-Encoding", "chunked"}, {"Keep-Alive", "x"}}, "",
       false, 0, {false, true, d},
       "HTTP/1.1 200 OK\r\nDate: " + d +
           "\r\nServer: cubby\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"},
      {"handler date and server kept", 200, {{"Date", "X"}, {"Server", "AmazonS3"}}, "", false, 0,
       {false, false, d},
       "HTTP/1.1 200 OK\r\nDate: X\r\nServer: AmazonS3\r\nContent-Length: 0\r\n\r\n"},
      {"no response splitting", 200, {{"x-amz-meta-a", "v\r\nSet-Cookie: y"}}, "", false, 0,
       {false, false, d},
       "HTTP/1.1 200 OK\r\nx-amz-meta-a: v  Set-Cookie: y\r\nDate: " + d +
           "\r\nServer: cubby\r\nContent-Length: 0\r\n\r\n"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    s3api::HttpResponse response;
    response.status = tc.status;
    response.headers = tc.headers;
    response.body = tc.body;
    if (tc.with_source) response.source = std::make_unique<FixedSource>();
    response.content_length = tc.content_length;
    EXPECT_EQ(SerializeResponseHead(response, tc.framing), tc.expected);
  }
}

TEST(HttpWireTest, ResponseBodySize) {
  s3api::HttpResponse r;
  r.body = "hello";
  EXPECT_EQ(ResponseBodySize(r, false), 5u);
  EXPECT_EQ(ResponseBodySize(r, true), 0u);
  r.status = 304;
  EXPECT_EQ(ResponseBodySize(r, false), 0u);
  r.status = 200;
  r.source = std::make_unique<FixedSource>();
  r.content_length = 1 << 20;
  EXPECT_EQ(ResponseBodySize(r, false), uint64_t{1} << 20);
}

TEST(HttpWireTest, CheckChunkFraming) {
  const ChunkLimits limits{.max_line = 8, .max_trailer = 16};
  const std::string line8 = "5;abcdef";  // exactly max_line
  struct Case {
    std::string pending;
    bool after_data;
    ChunkFraming want;
  };
  const Case cases[] = {
      {"", false, ChunkFraming::kOk},
      {"\r", true, ChunkFraming::kOk},
      {"5", false, ChunkFraming::kOk},
      {line8, false, ChunkFraming::kOk},                // no CRLF yet, within the limit
      {line8 + "\r", false, ChunkFraming::kOk},         // the CR may start the CRLF
      {line8 + "x", false, ChunkFraming::kLineTooLong}, // 9 bytes without a CRLF
      {line8 + "\r\nhello", false, ChunkFraming::kOk},
      {"5;abcdefg\r\nhello", false, ChunkFraming::kLineTooLong},
      {"\r\n" + line8 + "\r\n", true, ChunkFraming::kOk},
      {"\r\n5;abcdefg\r\n", true, ChunkFraming::kLineTooLong},
      {"\r\n" + std::string(100, 'a'), true, ChunkFraming::kLineTooLong},
      // The last chunk: its trailer section (fields, CRLFs and the empty line) is judged.
      {"0\r\n\r\n", false, ChunkFraming::kOk},
      {"\r\n000;e=1\r\n\r\n", true, ChunkFraming::kOk},
      {"0\r\nx-a: 0123456\r\n\r\n", false, ChunkFraming::kOk},  // 16 bytes: the limit
      {"0\r\nx-a: 01234567\r\n\r\n", false, ChunkFraming::kTrailerTooLarge},
      {"0\r\nx-a: 0123456\r\n\r", false, ChunkFraming::kOk},    // 15 so far
      {"0\r\nx-a: 0123456\r\nxx", false, ChunkFraming::kTrailerTooLarge},
      {"0\r\n" + std::string(1000, 'x'), false, ChunkFraming::kTrailerTooLarge},
      // Not the last chunk: what follows the line is data.
      {"10\r\n" + std::string(1000, 'x'), false, ChunkFraming::kOk},
      {"0a\r\n" + std::string(1000, 'x'), false, ChunkFraming::kOk},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pending);
    EXPECT_EQ(CheckChunkFraming(c.pending, c.after_data, limits), c.want);
  }
}

TEST(HttpWireTest, RequestIdsAreUniqueUppercaseHex) {
  RequestIdGenerator ids(42);
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i) {
    std::string id = ids.Next();
    ASSERT_EQ(id.size(), 16u);
    for (char c : id) ASSERT_TRUE((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F')) << id;
    ASSERT_TRUE(seen.insert(id).second) << "duplicate " << id;
  }
  // The sequence for a seed is fixed: zero-padded uppercase hex of the mixed counter.
  RequestIdGenerator zero(0), fixed(42);
  EXPECT_EQ(zero.Next(), "0000000000000000");
  EXPECT_EQ(fixed.Next(), "A759EA27D4727622");
  EXPECT_EQ(fixed.Next(), "BDD732262FEB6E95");
  // Different seeds (processes) give different sequences.
  RequestIdGenerator a(1), b(2);
  EXPECT_NE(a.Next(), b.Next());
  // The default constructor seeds randomly.
  RequestIdGenerator c, d;
  EXPECT_NE(c.Next(), d.Next());
}

}  // namespace
}  // namespace cubby::server
