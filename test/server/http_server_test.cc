// HttpServer over real sockets on 127.0.0.1 with a stub handler: framing, keep-alive,
// 100-continue, chunked bodies, timeouts, malformed requests, streamed responses, shutdown.
#include "server/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "server/tls.h"
#include "text/encoding.h"

namespace cubby::server {
namespace {

using namespace std::chrono_literals;
using s3api::ErrorCode;

std::string Pattern(size_t n) {
  std::string out(n, '\0');
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<char>('a' + (i * 7 + i / 13) % 26);
  return out;
}

// Reads of PatternSources made on another thread than the one that made the source (the
// connection's): the server read them ahead.
std::atomic<uint64_t> g_reads_elsewhere{0};

// A source that produces Pattern(n) in pieces, or fails after `fail_after` bytes; `produced`
// is what it answers to ProducedBytes.
class PatternSource : public s3api::BodySource {
 public:
  PatternSource(uint64_t size, uint64_t fail_after, bool produced = false)
      : data_(Pattern(size)), fail_after_(fail_after), produced_(produced) {}
  bool ProducedBytes() const override { return produced_; }
  s3api::ReadResult Read(char* buf, size_t n) override {
    if (std::this_thread::get_id() != maker_) ++g_reads_elsewhere;
    if (pos_ >= fail_after_) return {0, ErrorCode::kInternalError};
    n = std::min<uint64_t>({n, data_.size() - pos_, fail_after_ - pos_});
    std::memcpy(buf, data_.data() + pos_, n);
    pos_ += n;
    return {n, ErrorCode::kNone};
  }

 private:
  std::string data_;
  uint64_t fail_after_;
  bool produced_;
  std::thread::id maker_ = std::this_thread::get_id();
  uint64_t pos_ = 0;
};

// What a FileSpanSource handed out, for assertions (the server thread writes, the test reads).
struct SourceStats {
  std::atomic<uint64_t> span_calls{0};  // NextFileSpan calls
  std::atomic<uint64_t> span_bytes{0};  // bytes handed out as file spans
  std::atomic<uint64_t> read_bytes{0};  // bytes handed out by Read
};

// A body of Pattern(size) kept in a file after a prefix (so file offsets differ from body
// positions). `file_segments` says which stretches of the body are offered as file spans (each
// at most `span_cap` bytes: odd sizes straddle every boundary); the rest only through Read,
// which stops at the end of a stretch so that spans and Read pieces alternate. From
// `fail_at` on, both calls fail. The file may hold fewer bytes than the body (a file that
// shrank under a span).
class FileSpanSource : public s3api::BodySource {
 public:
  struct Stretch {
    uint64_t first;
    uint64_t length;
  };
  FileSpanSource(int fd, uint64_t prefix, uint64_t size, std::vector<Stretch> file_segments,
                 size_t span_cap, uint64_t fail_at, SourceStats* stats)
      : fd_(fd),
        prefix_(prefix),
        size_(size),
        file_segments_(std::move(file_segments)),
        span_cap_(span_cap),
        fail_at_(fail_at),
        stats_(stats) {}

  s3api::FileSpanResult NextFileSpan(size_t max) override {
    ++stats_->span_calls;
    if (pos_ >= fail_at_) return {std::nullopt, ErrorCode::kInternalError};
    const Stretch* in = FileStretch();
    if (in == nullptr) return {};
    size_t n = std::min<uint64_t>({max, span_cap_, in->first + in->length - pos_, fail_at_ - pos_});
    s3api::FileSpan span{fd_, prefix_ + pos_, n};
    pos_ += n;
    stats_->span_bytes += n;
    return {span, ErrorCode::kNone};
  }

  s3api::ReadResult Read(char* buf, size_t n) override {
    if (pos_ >= fail_at_) return {0, ErrorCode::kInternalError};
    uint64_t end = std::min(size_, fail_at_);
    for (const Stretch& s : file_segments_) {
      if (s.first > pos_) end = std::min(end, s.first);
    }
    if (const Stretch* in = FileStretch()) end = std::min(end, in->first + in->length);
    n = static_cast<size_t>(std::min<uint64_t>(n, end - pos_));
    ssize_t got = ::pread(fd_, buf, n, static_cast<off_t>(prefix_ + pos_));
    if (got <= 0) return {0, ErrorCode::kInternalError};
    pos_ += static_cast<uint64_t>(got);
    stats_->read_bytes += static_cast<uint64_t>(got);
    return {static_cast<size_t>(got), ErrorCode::kNone};
  }

 private:
  const Stretch* FileStretch() const {
    for (const Stretch& s : file_segments_) {
      if (pos_ >= s.first && pos_ < s.first + s.length) return &s;
    }
    return nullptr;
  }

  int fd_;
  uint64_t prefix_;
  uint64_t size_;
  std::vector<Stretch> file_segments_;
  size_t span_cap_;
  uint64_t fail_at_;
  SourceStats* stats_;
  uint64_t pos_ = 0;
};

// What the stub handler saw, for assertions.
struct Observed {
  std::mutex mutex;
  std::vector<ErrorCode> body_errors;  // final ReadResult error of each /echo
  std::vector<s3api::HttpRequest> requests;
  std::promise<void> blocked;          // set when /block starts reading
  // Answers GET /file: the body and its length.
  std::function<std::unique_ptr<s3api::BodySource>()> file_source;
  uint64_t file_size = 0;
};

s3api::HttpResponse StubHandler(Observed* seen, const s3api::HttpRequest& request,
                                s3api::BodyReader& body, s3api::RequestSummary* summary) {
  {
    std::lock_guard<std::mutex> lock(seen->mutex);
    seen->requests.push_back(request);
  }
  summary->operation = "Stub";
  s3api::HttpResponse response;
  const std::string& target = request.target;
  if (target == "/echo" || target == "/block") {
    if (target == "/block") seen->blocked.set_value();
    std::string data;
    char buf[1000];  // odd size: exercises pieces that straddle chunk boundaries
    s3api::ReadResult r;
    while ((r = body.Read(buf, sizeof buf)).n > 0) data.append(buf, r.n);
    {
      std::lock_guard<std::mutex> lock(seen->mutex);
      seen->body_errors.push_back(r.error);
    }
    if (r.error != ErrorCode::kNone) {
      response.status = 400;
      response.close_connection = true;
      return response;
    }
    response.body = data;
  } else if (target == "/reject") {
    response.status = 403;
    response.body = "denied";
  } else if (target == "/ignore") {
    response.body = "ignored";
  } else if (target == "/head") {
    response.content_length = 1234;
  } else if (target.starts_with("/stream/")) {
    uint64_t n = std::stoull(target.substr(8));
    response.source = std::make_unique<PatternSource>(n, n);
    response.content_length = n;
  } else if (target.starts_with("/produced/")) {
    uint64_t n = std::stoull(target.substr(10));
    response.source = std::make_unique<PatternSource>(n, n, /*produced=*/true);
    response.content_length = n;
  } else if (target == "/fail-produced") {
    response.source = std::make_unique<PatternSource>(9 << 20, (5 << 20) + 7, true);
    response.content_length = 9 << 20;
  } else if (target == "/file") {
    response.source = seen->file_source();
    response.content_length = seen->file_size;
  } else if (target == "/fail-stream") {
    response.source = std::make_unique<PatternSource>(1 << 20, 300 << 10);
    response.content_length = 1 << 20;
  } else if (target == "/fail-small-stream") {
    response.source = std::make_unique<PatternSource>(10000, 5000);
    response.content_length = 10000;
  } else if (target == "/no-content") {
    response.status = 204;
  } else if (target == "/throw") {
    throw std::runtime_error("boom");
  } else {
    response.status = 404;
  }
  return response;
}

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // lowercase names
  std::string body;
};

// A blocking client with a receive timeout, so a server bug fails the test instead of hanging.
class Client {
 public:
  explicit Client(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~Client() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    if (tls_ != nullptr) SSL_CTX_free(tls_);
    ::close(fd_);
  }
  bool connected() const { return connected_; }

  // Speaks TLS from now on (any server certificate accepted). False if the handshake fails.
  bool StartTls() {
    tls_ = SSL_CTX_new(TLS_client_method());
    ssl_ = SSL_new(tls_);
    SSL_set_fd(ssl_, fd_);
    return SSL_connect(ssl_) == 1;
  }

  void Send(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ssl_ != nullptr ? SSL_write(ssl_, data.data(), static_cast<int>(data.size()))
                                  : ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return;
      data.remove_prefix(static_cast<size_t>(n));
    }
  }
  void ShutdownWrite() { ::shutdown(fd_, SHUT_WR); }

  // Reads until `marker` is buffered; false on EOF/timeout.
  bool ReadUntil(std::string_view marker) {
    while (buffer_.find(marker) == std::string::npos) {
      if (!Fill()) return false;
    }
    return true;
  }

  // Reads one response; the body by Content-Length unless `head`. status 0 on failure.
  Response ReadResponse(bool head = false) {
    Response r;
    if (!ReadUntil("\r\n\r\n")) return r;
    size_t end = buffer_.find("\r\n\r\n");
    std::string head_text = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    size_t line_end = head_text.find("\r\n");
    std::string status_line = head_text.substr(0, line_end);
    r.status = std::stoi(status_line.substr(9, 3));
    size_t pos = line_end == std::string::npos ? head_text.size() : line_end + 2;
    while (pos < head_text.size()) {
      size_t eol = head_text.find("\r\n", pos);
      if (eol == std::string::npos) eol = head_text.size();
      std::string line = head_text.substr(pos, eol - pos);
      size_t colon = line.find(':');
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      r.headers[name] = line.substr(colon + 2);
      pos = eol + 2;
    }
    if (head || r.status == 204 || r.status == 304 || r.status < 200) return r;
    size_t length = std::stoull(r.headers["content-length"]);
    while (buffer_.size() < length) {
      if (!Fill()) break;
    }
    r.body = buffer_.substr(0, std::min(length, buffer_.size()));
    buffer_.erase(0, r.body.size());
    return r;
  }

  // True if the server closes the connection (EOF) before sending anything more.
  bool ClosedByServer() {
    if (!buffer_.empty()) return false;
    char c;
    ssize_t n = ::recv(fd_, &c, 1, 0);
    if (n > 0) buffer_.push_back(c);
    return n == 0 || (n < 0 && errno == ECONNRESET);
  }

  const std::string& buffered() const { return buffer_; }

 private:
  bool Fill() {
    char buf[65536];
    ssize_t n = ssl_ != nullptr ? SSL_read(ssl_, buf, sizeof buf) : ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return false;
    buffer_.append(buf, static_cast<size_t>(n));
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  std::string buffer_;
  SSL_CTX* tls_ = nullptr;
  SSL* ssl_ = nullptr;
};

class HttpServerTest : public ::testing::Test {
 protected:
  void Start(HttpServerOptions options = {}) {
    options.host = "127.0.0.1";
    options.port = 0;
    server_ = std::make_unique<HttpServer>(
        options,
        [this](const s3api::HttpRequest& request, s3api::BodyReader& body,
               s3api::RequestSummary* summary) {
          return StubHandler(&seen_, request, body, summary);
        },
        &logger_);
    ASSERT_TRUE(server_->Start().ok());
    ASSERT_NE(server_->port(), 0);
  }
  void TearDown() override {
    if (server_) server_->Stop(5s);
  }

  std::vector<ErrorCode> BodyErrors() {
    std::lock_guard<std::mutex> lock(seen_.mutex);
    return seen_.body_errors;
  }

  Logger logger_{LogLevel::kError};
  Observed seen_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTest, EndpointUrlUsesLoopbackForAnyAddress) {
  Start();
  EXPECT_EQ(server_->EndpointUrl(), "http://127.0.0.1:" + std::to_string(server_->port()));
  HttpServer any({.host = "0.0.0.0", .port = 0}, nullptr, &logger_);
  ASSERT_TRUE(any.Start().ok());
  EXPECT_EQ(any.EndpointUrl(), "http://127.0.0.1:" + std::to_string(any.port()));
}

TEST_F(HttpServerTest, BindFailureIsAnError) {
  Start();
  HttpServer second({.host = "127.0.0.1", .port = server_->port()}, nullptr, &logger_);
  storage::Status status = second.Start();
  EXPECT_EQ(status.code(), storage::Code::kIOError);
  EXPECT_NE(status.message().find("bind"), std::string::npos) << status.message();
}

TEST_F(HttpServerTest, KeepAliveServesSeveralRequests) {
  Start();
  Client client(server_->port());
  ASSERT_TRUE(client.connected());
  for (int i = 0; i < 3; ++i) {
    std::string body = "payload-" + std::to_string(i);
    client.Send("PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\n\r\n" + body);
    Response r = client.ReadResponse();
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, body);
    EXPECT_EQ(r.headers["server"], "cubby");
    EXPECT_FALSE(r.headers["date"].empty());
    EXPECT_EQ(r.headers.count("connection"), 0u);
    // The server stamps the id (the stub handler sets none); x-amz-id-2 is its base64.
    EXPECT_EQ(r.headers["x-amz-request-id"].size(), 16u);
    EXPECT_EQ(r.headers["x-amz-id-2"], text::Base64Encode(r.headers["x-amz-request-id"]));
  }
  std::lock_guard<std::mutex> lock(seen_.mutex);
  ASSERT_EQ(seen_.requests.size(), 3u);
  EXPECT_NE(seen_.requests[0].request_id, seen_.requests[1].request_id);
  EXPECT_EQ(seen_.requests[0].request_id.size(), 16u);
  EXPECT_TRUE(seen_.requests[0].remote_address.starts_with("127.0.0.1:"));
  EXPECT_EQ(seen_.requests[0].content_length, std::optional<uint64_t>(9));
}

TEST_F(HttpServerTest, LargeBodyStreamsThrough) {
  Start();
  Client client(server_->port());
  std::string body = Pattern(3 << 20);
  std::thread sender([&] {
    client.Send("PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) +
                "\r\n\r\n");
    client.Send(body);
  });
  Response r = client.ReadResponse();
  sender.join();
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.body == body);
}

TEST_F(HttpServerTest, ChunkedBody) {
  Start();
  Client client(server_->port());
  client.Send(
      "PUT /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\n1;ext=1\r\n \r\n6\r\nworld!\r\n0\r\n\r\n");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "hello world!");
  std::lock_guard<std::mutex> lock(seen_.mutex);
  EXPECT_FALSE(seen_.requests[0].content_length.has_value());
}

TEST_F(HttpServerTest, ExpectContinueSentOnFirstRead) {
  Start();
  Client client(server_->port());
  client.Send("PUT /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");
  ASSERT_TRUE(client.ReadUntil("HTTP/1.1 100 Continue\r\n\r\n"));
  Response interim = client.ReadResponse();
  EXPECT_EQ(interim.status, 100);
  client.Send("data");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "data");
}

TEST_F(HttpServerTest, ExpectContinueNotSentWhenRejectedUnread) {
  Start();
  Client client(server_->port());
  client.Send("PUT /reject HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 403) << "no 100 Continue before the final answer";
  EXPECT_EQ(r.body, "denied");
  EXPECT_EQ(r.headers["connection"], "close");
  EXPECT_TRUE(client.ClosedByServer());
}

// S3 clients (botocore) send "Expect: 100-continue" with every file body, empty ones too; they
// must see "100 Continue" before the final answer or they misparse the connection's next response.
TEST_F(HttpServerTest, ExpectContinueSentForAnEmptyBody) {
  Start();
  Client client(server_->port());
  client.Send("PUT /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n");
  Response interim = client.ReadResponse();
  EXPECT_EQ(interim.status, 100);
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "");
  // The connection stays usable for the next request.
  client.Send("PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok");
  Response next = client.ReadResponse();
  EXPECT_EQ(next.status, 200);
  EXPECT_EQ(next.body, "ok");
}

TEST_F(HttpServerTest, ExpectContinueWithEmptyBodyRejectedUnreadCloses) {
  Start();
  Client client(server_->port());
  client.Send("PUT /reject HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.headers["connection"], "close");
  EXPECT_TRUE(client.ClosedByServer());
}

TEST_F(HttpServerTest, ShortBodyIsIncompleteBody) {
  Start();
  Client client(server_->port());
  client.Send("PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhalf");
  client.ShutdownWrite();
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(BodyErrors(), std::vector<ErrorCode>{ErrorCode::kIncompleteBody});
}

TEST_F(HttpServerTest, MalformedChunkIsIncompleteBody) {
  Start();
  Client client(server_->port());
  client.Send("PUT /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(BodyErrors(), std::vector<ErrorCode>{ErrorCode::kIncompleteBody});
  EXPECT_TRUE(client.ClosedByServer());
}

TEST_F(HttpServerTest, StalledBodyTimesOut) {
  HttpServerOptions options;
  options.body_stall_timeout = 100ms;
  Start(options);
  Client client(server_->port());
  client.Send("PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhalf");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(BodyErrors(), std::vector<ErrorCode>{ErrorCode::kRequestTimeout});
  EXPECT_TRUE(client.ClosedByServer());
}

TEST_F(HttpServerTest, StalledHeaderIsClosed) {
  HttpServerOptions options;
  options.header_timeout = 100ms;
  Start(options);
  Client client(server_->port());
  client.Send("GET /echo HTTP/1.1\r\nHost: x\r\n");  // never finished
  EXPECT_TRUE(client.ClosedByServer());
  EXPECT_TRUE(seen_.requests.empty());
}

TEST_F(HttpServerTest, IdleKeepAliveIsClosed) {
  HttpServerOptions options;
  options.idle_timeout = 100ms;
  Start(options);
  Client client(server_->port());
  client.Send("GET /ignore HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(client.ReadResponse().status, 200);
  EXPECT_TRUE(client.ClosedByServer());
}

TEST_F(HttpServerTest, MalformedRequestGets400AndClose) {
  Start();
  const std::string cases[] = {
      "GARBAGE\r\n\r\n",
      "GET / HTTP/1.1\r\nBad Header\r\n\r\n",
      "GET / HTTP/9.9\r\n\r\n",
      "PUT / HTTP/1.1\r\nContent-Length: x\r\n\r\n",
      "PUT / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
  };
  for (const auto& text : cases) {
    SCOPED_TRACE(text);
    Client client(server_->port());
    client.Send(text);
    Response r = client.ReadResponse();
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(r.headers["connection"], "close");
    EXPECT_TRUE(client.ClosedByServer());
  }
  EXPECT_TRUE(seen_.requests.empty());
}

TEST_F(HttpServerTest, HeaderLimit) {
  HttpServerOptions options;
  options.header_limit = 1024;
  Start(options);
  {
    Client client(server_->port());
    client.Send("GET /ignore HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(2000, 'a') + "\r\n\r\n");
    EXPECT_EQ(client.ReadResponse().status, 400);
  }
  {
    Client client(server_->port());
    client.Send("GET /ignore HTTP/1.1\r\nHost: x\r\nX-Small: " + std::string(500, 'a') +
                "\r\n\r\n");
    EXPECT_EQ(client.ReadResponse().status, 200);
  }
}

// "GET /ignore HTTP/1.1\r\n" plus short fields ("X-Fnnnnn: v\r\n") and a filler field, then the
// empty line: exactly `size` bytes.
std::string HeadOfSize(size_t size) {
  std::string head = "GET /ignore HTTP/1.1\r\n";
  for (int i = 0; head.size() + 13 + 20 + 2 <= size; ++i) {
    const std::string n = std::to_string(i);
    head += "X-F" + std::string(n.size() < 5 ? 5 - n.size() : 0, '0') + n + ": v\r\n";
  }
  const size_t filler = size - head.size() - 2 - 7 - 2;  // "X-Pad: " + value + CRLF, then CRLF
  head += "X-Pad: " + std::string(filler, 'p') + "\r\n\r\n";
  EXPECT_EQ(head.size(), size);
  return head;
}

TEST_F(HttpServerTest, HeaderLimitCountsTheWholeHeadExactly) {
  HttpServerOptions options;
  options.header_limit = 64 << 10;
  Start(options);
  for (size_t size : {size_t{64 << 10}, size_t{(64 << 10) + 1}, size_t{127238}}) {
    SCOPED_TRACE(size);
    Client client(server_->port());
    client.Send(HeadOfSize(size));
    Response r = client.ReadResponse();
    if (size <= options.header_limit) {
      EXPECT_EQ(r.status, 200);
    } else {
      EXPECT_EQ(r.status, 400);
      EXPECT_EQ(r.headers["connection"], "close");
      EXPECT_TRUE(client.ClosedByServer());
    }
  }
  std::lock_guard<std::mutex> lock(seen_.mutex);
  EXPECT_EQ(seen_.requests.size(), 1u);
}

TEST_F(HttpServerTest, FieldLongerThanTheParserHoldsIsRefused) {
  HttpServerOptions options;
  options.header_limit = 1 << 20;
  Start(options);
  {
    Client client(server_->port());
    client.Send("GET /ignore HTTP/1.1\r\nX-Big: " + std::string(70000, 'a') + "\r\n\r\n");
    EXPECT_EQ(client.ReadResponse().status, 400);
  }
  Client client(server_->port());  // the server is still there
  client.Send("GET /ignore HTTP/1.1\r\n\r\n");
  EXPECT_EQ(client.ReadResponse().status, 200);
}

// A chunked PUT /echo whose body is `framing`, sent from a thread (the server may answer and
// close before it has all of it).
Response SendChunked(Client& client, const std::string& framing) {
  std::thread sender([&] {
    client.Send("PUT /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    client.Send(framing);
  });
  Response r = client.ReadResponse();
  sender.join();
  return r;
}

TEST_F(HttpServerTest, ChunkLineIsLimited) {
  Start();
  const std::string at_limit = "5;e=" + std::string(4096 - 4, 'x');  // 4096 bytes
  struct Case {
    std::string framing;
    int status;
  };
  const Case cases[] = {
      {at_limit + "\r\nhello\r\n0\r\n\r\n", 200},
      {at_limit + "x\r\nhello\r\n0\r\n\r\n", 400},
      {"5\r\nhello\r\n" + at_limit + "x\r\nhello\r\n0\r\n\r\n", 400},
      {"5;e=" + std::string(8 << 20, 'x'), 400},  // never ends: answered without waiting
      {"0;e=" + std::string(8 << 20, 'x'), 400},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.framing.substr(0, 40));
    Client client(server_->port());
    Response r = SendChunked(client, c.framing);
    EXPECT_EQ(r.status, c.status);
    if (c.status == 400) {
      EXPECT_NE(r.body.find("<Code>InvalidRequest</Code>"), std::string::npos) << r.body;
      EXPECT_NE(r.body.find("longer than 4096 bytes"), std::string::npos) << r.body;
      EXPECT_EQ(r.headers["connection"], "close");
      EXPECT_NE(r.body.find("<RequestId>" + r.headers["x-amz-request-id"] + "</RequestId>"),
                std::string::npos);
    } else {
      EXPECT_EQ(r.body, "hello");
    }
  }
  EXPECT_EQ(BodyErrors(), (std::vector<ErrorCode>{ErrorCode::kNone, ErrorCode::kInvalidRequest,
                                                  ErrorCode::kInvalidRequest,
                                                  ErrorCode::kInvalidRequest,
                                                  ErrorCode::kInvalidRequest}));
}

TEST_F(HttpServerTest, TrailerSectionIsLimitedByTheHeaderLimit) {
  HttpServerOptions options;
  options.header_limit = 8192;
  Start(options);
  // "X-T: " + value + CRLF, then the empty line's CRLF.
  auto trailer = [](size_t section) { return "X-T: " + std::string(section - 9, 't') + "\r\n\r\n"; };
  struct Case {
    std::string framing;
    int status;
  };
  const Case cases[] = {
      {"5\r\nhello\r\n0\r\n" + trailer(8192), 200},
      {"5\r\nhello\r\n0\r\n" + trailer(8193), 400},
      {"5\r\nhello\r\n0\r\nX-T: " + std::string(8 << 20, 't'), 400},  // never ends
  };
  for (const Case& c : cases) {
    Client client(server_->port());
    Response r = SendChunked(client, c.framing);
    EXPECT_EQ(r.status, c.status);
    if (c.status == 400) {
      EXPECT_NE(r.body.find("trailer section of the chunked request body is longer than 8192"),
                std::string::npos)
          << r.body;
      EXPECT_TRUE(client.ClosedByServer());
    }
  }
}

TEST_F(HttpServerTest, TrailerFieldLongerThanTheParserHoldsIsRefused) {
  HttpServerOptions options;
  options.header_limit = 1 << 20;
  Start(options);
  Client client(server_->port());
  Response r = SendChunked(client, "0\r\nX-T: " + std::string(70000, 't') + "\r\n\r\n");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("<Code>InvalidRequest</Code>"), std::string::npos) << r.body;
}

TEST_F(HttpServerTest, UnreadSmallBodyIsDrainedAndConnectionKept) {
  Start();
  Client client(server_->port());
  std::string body = Pattern(100000);
  client.Send("PUT /ignore HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) +
              "\r\n\r\n" + body);
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers.count("connection"), 0u);
  client.Send("PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok");
  Response next = client.ReadResponse();
  EXPECT_EQ(next.status, 200);
  EXPECT_EQ(next.body, "ok");
}

TEST_F(HttpServerTest, UnreadLargeBodyClosesConnection) {
  HttpServerOptions options;
  options.drain_limit = 1000;
  Start(options);
  Client client(server_->port());
  client.Send("PUT /ignore HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n" + Pattern(5000));
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ignored");
  EXPECT_EQ(r.headers["connection"], "close");
  EXPECT_TRUE(client.ClosedByServer());
}

TEST_F(HttpServerTest, HeadAdvertisesLengthWithoutBody) {
  Start();
  Client client(server_->port());
  client.Send("HEAD /head HTTP/1.1\r\nHost: x\r\n\r\nGET /ignore HTTP/1.1\r\nHost: x\r\n\r\n");
  Response head = client.ReadResponse(/*head=*/true);
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.headers["content-length"], "1234");
  // The next response follows at once: no body bytes were sent for HEAD.
  Response next = client.ReadResponse();
  EXPECT_EQ(next.status, 200);
  EXPECT_EQ(next.body, "ignored");
}

TEST_F(HttpServerTest, NoContentHasNoLength) {
  Start();
  Client client(server_->port());
  client.Send("DELETE /no-content HTTP/1.1\r\nHost: x\r\n\r\n");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 204);
  EXPECT_EQ(r.headers.count("content-length"), 0u);
}

TEST_F(HttpServerTest, StreamedResponseBody) {
  Start();
  Client client(server_->port());
  const uint64_t n = (1 << 20) + 12345;  // several 256 KiB pieces and a partial one
  client.Send("GET /stream/" + std::to_string(n) + " HTTP/1.1\r\nHost: x\r\n\r\n");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-length"], std::to_string(n));
  EXPECT_TRUE(r.body == Pattern(n));
}

TEST_F(HttpServerTest, FailingSourceClosesMidStream) {
  Start();
  Client client(server_->port());
  client.Send("GET /fail-stream HTTP/1.1\r\nHost: x\r\n\r\n");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-length"], std::to_string(1 << 20));
  EXPECT_EQ(r.body.size(), size_t{300} << 10) << "short body, then the connection closes";
  EXPECT_TRUE(client.ClosedByServer());
}

// A large body whose bytes are produced (an encrypted object's) is read ahead on a second
// thread (ReadAhead); a smaller one, or one that is not produced, is read by the connection's.
TEST_F(HttpServerTest, ProducedBodiesAreReadAhead) {
  Start();
  Client client(server_->port());
  struct Case {
    std::string path;
    uint64_t size;
    bool ahead;
  } cases[] = {
      {"/produced/", (4 << 20) - 1, false}, {"/produced/", 4 << 20, true},
      {"/produced/", (9 << 20) + 12345, true}, {"/stream/", 9 << 20, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path + std::to_string(c.size));
    g_reads_elsewhere = 0;
    client.Send("GET " + c.path + std::to_string(c.size) + " HTTP/1.1\r\nHost: x\r\n\r\n");
    Response r = client.ReadResponse();
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.headers["content-length"], std::to_string(c.size));
    EXPECT_TRUE(r.body == Pattern(c.size));
    EXPECT_EQ(g_reads_elsewhere > 0, c.ahead);
  }
}

TEST_F(HttpServerTest, FailingProducedSourceClosesAfterItsGoodBytes) {
  Start();
  Client client(server_->port());
  client.Send("GET /fail-produced HTTP/1.1\r\nHost: x\r\n\r\n");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-length"], std::to_string(9 << 20));
  EXPECT_EQ(r.body.size(), (size_t{5} << 20) + 7) << "every byte before the failure, then a close";
  EXPECT_TRUE(r.body == Pattern((5 << 20) + 7));
  EXPECT_TRUE(client.ClosedByServer());
}

// Small streamed bodies are read before the head goes out (one send for both); the answer is
// the same as for large ones.
TEST_F(HttpServerTest, SmallStreamedBodies) {
  Start();
  Client client(server_->port());
  for (uint64_t n : {1, 4096, 65536, 65537}) {
    SCOPED_TRACE(n);
    client.Send("GET /stream/" + std::to_string(n) + " HTTP/1.1\r\nHost: x\r\n\r\n");
    Response r = client.ReadResponse();
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.headers["content-length"], std::to_string(n));
    EXPECT_TRUE(r.body == Pattern(n));
  }
}

TEST_F(HttpServerTest, FailingSmallSourceClosesWithShortBody) {
  Start();
  Client client(server_->port());
  client.Send("GET /fail-small-stream HTTP/1.1\r\nHost: x\r\n\r\n");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-length"], "10000");
  EXPECT_EQ(r.body, Pattern(5000)) << "what the source gave, then the connection closes";
  EXPECT_TRUE(client.ClosedByServer());
}

TEST_F(HttpServerTest, ThrowingHandlerGets500) {
  Start();
  Client client(server_->port());
  client.Send("GET /throw HTTP/1.1\r\nHost: x\r\n\r\n");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 500);
  EXPECT_TRUE(client.ClosedByServer());
}

TEST_F(HttpServerTest, ConnectionCloseAndHttp10) {
  Start();
  {
    Client client(server_->port());
    client.Send("GET /ignore HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    Response r = client.ReadResponse();
    EXPECT_EQ(r.headers["connection"], "close");
    EXPECT_TRUE(client.ClosedByServer());
  }
  {
    Client client(server_->port());
    client.Send("GET /ignore HTTP/1.0\r\n\r\n");
    EXPECT_EQ(client.ReadResponse().status, 200);
    EXPECT_TRUE(client.ClosedByServer());
  }
}

TEST_F(HttpServerTest, ConnectionsOverTheLimitGet503) {
  HttpServerOptions options;
  options.max_connections = 1;
  Start(options);
  Client first(server_->port());
  first.Send("GET /ignore HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(first.ReadResponse().status, 200);  // the first connection holds the only slot
  {
    Client second(server_->port());
    Response r = second.ReadResponse();
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(r.headers["connection"], "close");
    EXPECT_TRUE(second.ClosedByServer());
  }
  first.Send("GET /ignore HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(first.ReadResponse().status, 200) << "the held connection is unaffected";
}

TEST_F(HttpServerTest, StopClosesIdleConnectionsAtOnce) {
  Start();
  Client client(server_->port());
  client.Send("GET /ignore HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(client.ReadResponse().status, 200);
  ASSERT_EQ(server_->active_connections(), 1u);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(server_->Stop(30s), 0u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s) << "idle waits end on stop";
  EXPECT_EQ(server_->active_connections(), 0u);
  EXPECT_TRUE(client.ClosedByServer());
  Client late(server_->port());
  EXPECT_FALSE(late.connected()) << "no longer accepting";
}

TEST_F(HttpServerTest, StopAbortsRequestsStillRunningAfterGrace) {
  Start();  // 60 s body stall timeout: only the abort can end the blocked read
  Client client(server_->port());
  client.Send("PUT /block HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n");
  seen_.blocked.get_future().wait();
  EXPECT_EQ(server_->Stop(50ms), 1u);
  EXPECT_EQ(server_->active_connections(), 0u);
  EXPECT_EQ(BodyErrors(), std::vector<ErrorCode>{ErrorCode::kIncompleteBody});
}

TEST_F(HttpServerTest, StopLetsInFlightRequestFinish) {
  Start();
  Client client(server_->port());
  client.Send("PUT /block HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n");
  seen_.blocked.get_future().wait();
  std::thread stopper([&] { EXPECT_EQ(server_->Stop(30s), 0u); });
  while (!server_->stopping()) std::this_thread::yield();
  client.Send("done");
  Response r = client.ReadResponse();
  stopper.join();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "done");
  EXPECT_EQ(r.headers["connection"], "close") << "no keep-alive while stopping";
}

// ---- Bodies whose bytes sit in files: sendfile(2) on plain TCP, Read under TLS.

// A self-signed P-256 certificate for "localhost", made in memory.
SSL_CTX* MakeTestTlsContext() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509_sign(cert, key, EVP_sha256());
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  bool ok = ctx != nullptr && SSL_CTX_use_certificate(ctx, cert) == 1 &&
            SSL_CTX_use_PrivateKey(ctx, key) == 1;
  X509_free(cert);
  EVP_PKEY_free(key);
  if (!ok) {
    SSL_CTX_free(ctx);
    return nullptr;
  }
  return ctx;
}

class FileBodyTest : public HttpServerTest {
 protected:
  static constexpr uint64_t kPrefix = 13;

  ~FileBodyTest() override {
    if (fd_ >= 0) ::close(fd_);
  }

  // GET /file answers Pattern(size) from an unlinked temp file holding its first `file_bytes`
  // (all by default) after kPrefix bytes of junk, offered as spans over `stretches`.
  void ServeFile(uint64_t size, std::vector<FileSpanSource::Stretch> stretches,
                 size_t span_cap = SIZE_MAX, uint64_t fail_at = UINT64_MAX,
                 std::optional<uint64_t> file_bytes = std::nullopt) {
    char path[] = "/tmp/http_server_test.XXXXXX";
    fd_ = ::mkstemp(path);
    ASSERT_GE(fd_, 0);
    ::unlink(path);
    std::string data =
        std::string(kPrefix, '#') + Pattern(size).substr(0, file_bytes.value_or(size));
    ASSERT_EQ(::pwrite(fd_, data.data(), data.size(), 0), static_cast<ssize_t>(data.size()));
    seen_.file_size = size;
    seen_.file_source = [this, size, stretches, span_cap, fail_at] {
      return std::make_unique<FileSpanSource>(fd_, kPrefix, size, stretches, span_cap, fail_at,
                                              &stats_);
    };
  }

  // Waits (bounded) until the server has no connection left.
  bool WaitForNoConnections(std::chrono::milliseconds limit = 10s) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (server_->active_connections() != 0) {
      if (std::chrono::steady_clock::now() > end) return false;
      std::this_thread::sleep_for(5ms);
    }
    return true;
  }

  int fd_ = -1;
  SourceStats stats_;
  std::unique_ptr<ServerTls> tls_;  // outlives the server: TearDown stops it first
};

TEST_F(FileBodyTest, SpansAndReadPiecesGiveTheBody) {
  constexpr uint64_t kMiB = 1 << 20;
  struct Case {
    const char* name;
    uint64_t size;
    std::vector<FileSpanSource::Stretch> stretches;
    size_t span_cap;
  };
  const Case cases[] = {
      {"one span for the whole body", 8 * kMiB + 1, {{0, 8 * kMiB + 1}}, SIZE_MAX},
      {"odd-sized spans", 3 * kMiB + 7, {{0, 3 * kMiB + 7}}, 65537},
      {"read, span, read, span to the end",
       5 * kMiB + 333,
       {{4099, 100001}, {104100 + 77, 5 * kMiB + 333 - 104177}},
       999983},
      {"span, read to the end", 700001, {{0, 300007}}, SIZE_MAX},
      {"no spans at all", 300001, {}, SIZE_MAX},
      {"one-byte spans and reads", 70001, {{1, 1}, {3, 1}, {10, 2000}, {70000, 1}}, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    stats_.span_bytes = 0;
    stats_.read_bytes = 0;
    ServeFile(c.size, c.stretches, c.span_cap);
    uint64_t in_spans = 0;
    for (const auto& s : c.stretches) in_spans += s.length;
    if (server_ == nullptr) Start();
    Client client(server_->port());
    for (int i = 0; i < 2; ++i) {  // the connection stays usable after a sendfile body
      client.Send("GET /file HTTP/1.1\r\nHost: x\r\n\r\n");
      Response r = client.ReadResponse();
      EXPECT_EQ(r.status, 200);
      EXPECT_EQ(r.headers["content-length"], std::to_string(c.size));
      EXPECT_EQ(r.body.size(), c.size);
      EXPECT_TRUE(r.body == Pattern(c.size));
    }
    // Small bodies go out with the head through Read; from 64 KiB on, spans are used.
    EXPECT_EQ(stats_.span_bytes, c.size > 65536 ? 2 * in_spans : 0);
    EXPECT_EQ(stats_.span_bytes + stats_.read_bytes, 2 * c.size);
    ::close(fd_);
    fd_ = -1;
  }
}

TEST_F(FileBodyTest, SourceFailingMidwayClosesWithShortBody) {
  ServeFile(1 << 20, {{0, 1 << 20}}, 65537, /*fail_at=*/300001);
  Start();
  Client client(server_->port());
  client.Send("GET /file HTTP/1.1\r\nHost: x\r\n\r\n");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-length"], std::to_string(1 << 20));
  EXPECT_EQ(r.body.size(), 300001u) << "the spans before the failure, then a close";
  EXPECT_TRUE(r.body == Pattern(300001));
  EXPECT_TRUE(client.ClosedByServer());
}

TEST_F(FileBodyTest, FileShorterThanItsSpanClosesWithShortBody) {
  ServeFile(1 << 20, {{0, 1 << 20}}, SIZE_MAX, UINT64_MAX, /*file_bytes=*/200000);
  Start();
  Client client(server_->port());
  client.Send("GET /file HTTP/1.1\r\nHost: x\r\n\r\n");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body.size(), 200000u);
  EXPECT_TRUE(r.body == Pattern(200000));
  EXPECT_TRUE(client.ClosedByServer());
}

// sendfile(2) cannot be told MSG_NOSIGNAL. A client that half-closes and then resets makes the
// next sendfile fail with EPIPE, which raises SIGPIPE; with the default action restored here,
// that would kill this test process unless the server keeps it away.
TEST_F(FileBodyTest, ClientGoneMidSpanDoesNotRaiseSigpipe) {
  struct sigaction old_action {};
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigaction(SIGPIPE, &default_action, &old_action);
  ServeFile(32 << 20, {{0, 32 << 20}});
  Start();
  {
    Client client(server_->port());
    client.Send("GET /file HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(client.ReadUntil("\r\n\r\n"));
    // FIN first (the server's socket goes to CLOSE_WAIT), then a close with unread data: RST,
    // which in CLOSE_WAIT turns the server's next send into EPIPE.
    client.ShutdownWrite();
  }
  EXPECT_TRUE(WaitForNoConnections());
  Client next(server_->port());
  next.Send("GET /ignore HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(next.ReadResponse().status, 200);
  sigaction(SIGPIPE, &old_action, nullptr);
}

TEST_F(FileBodyTest, ReaderThatStallsTimesOutDuringASpan) {
  ServeFile(32 << 20, {{0, 32 << 20}});
  HttpServerOptions options;
  options.write_stall_timeout = 200ms;
  Start(options);
  Client client(server_->port());
  client.Send("GET /file HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(client.ReadUntil("\r\n\r\n"));  // the body is under way; read no more of it
  EXPECT_TRUE(WaitForNoConnections()) << "the default 60 s would not end it in time";
  EXPECT_GT(stats_.span_bytes, 0u);
}

TEST_F(FileBodyTest, StopAbortsAStalledSpan) {
  ServeFile(32 << 20, {{0, 32 << 20}});
  Start();  // 60 s write stall timeout: only the abort can end the blocked sendfile
  Client client(server_->port());
  client.Send("GET /file HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(client.ReadUntil("\r\n\r\n"));
  EXPECT_EQ(server_->Stop(50ms), 1u);
  EXPECT_EQ(server_->active_connections(), 0u);
}

TEST_F(FileBodyTest, TlsGetsTheBytesThroughRead) {
  SslCtxPtr ctx(MakeTestTlsContext());
  ASSERT_NE(ctx, nullptr);
  tls_ = std::make_unique<ServerTls>(std::move(ctx));
  const uint64_t size = (2 << 20) + 3;
  ServeFile(size, {{0, 1 << 20}, {(1 << 20) + 5, 1 << 20}}, 65537);
  HttpServerOptions options;
  options.tls = tls_.get();
  Start(options);
  Client client(server_->port());
  ASSERT_TRUE(client.StartTls());
  client.Send("GET /file HTTP/1.1\r\nHost: x\r\n\r\n");
  Response r = client.ReadResponse();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body.size(), size);
  EXPECT_TRUE(r.body == Pattern(size));
  EXPECT_EQ(stats_.span_calls, 0u) << "sendfile would bypass TLS";
  EXPECT_EQ(stats_.read_bytes, size);
}

}  // namespace
}  // namespace cubby::server
