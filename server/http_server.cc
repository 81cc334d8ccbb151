#include "server/http_server.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <vector>

#include <openssl/ssl.h>

#include <boost/asio/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/read_size.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>

#include "s3api/errors.h"
#include "server/poll_stream.h"
#include "server/read_ahead.h"
#include "server/tls.h"
#include "text/encoding.h"
#include "text/time.h"

namespace cubby::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using s3api::ErrorCode;
using Parser = http::request_parser<http::buffer_body>;

constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
// After announcing Connection: close, unread request bytes are read and dropped for up to
// this long before close(2): closing with unread data makes the kernel send RST, which can
// destroy the response before the client reads it ("lingering close").
constexpr std::chrono::milliseconds kLingerTime{1000};
// Bodies up to this size, in memory or streamed, are sent together with the response head.
constexpr uint64_t kCoalesceLimit = 64 << 10;

constexpr size_t kReadBufferBytes = 64 << 10;

bool IsTimeout(const boost::system::error_code& ec) { return ec == asio::error::timed_out; }

// The negotiated protocol as s3:TlsVersion compares it (a number: "1.2", "1.3").
std::string_view TlsVersionOf(const SSL* ssl) {
  switch (SSL_version(ssl)) {
    case TLS1_3_VERSION:
      return "1.3";
    case TLS1_2_VERSION:
      return "1.2";
    case TLS1_1_VERSION:
      return "1.1";
    case TLS1_VERSION:
      return "1.0";
    default:
      return {};
  }
}

// One read from the socket into `buffer`, at most 64 KiB. At the peer's close: the parser's
// verdict on the message so far (partial_message unless it is complete), or end_of_stream if
// nothing of it arrived, as Beast's own read does.
boost::system::error_code ReadMore(PollStream& stream, beast::flat_buffer& buffer,
                                   Parser& parser) {
  boost::system::error_code ec;
  const size_t size = beast::read_size(buffer, 64 << 10);
  if (size == 0) return http::error::buffer_overflow;
  buffer.commit(stream.read_some(buffer.prepare(size), ec));
  if (ec != asio::error::eof) return ec;
  if (!parser.got_some()) return http::error::end_of_stream;
  ec = {};
  parser.put_eof(ec);
  if (!ec && !parser.is_done()) ec = http::error::partial_message;
  return ec;
}

// The request body, pulled through the parser. Reports kIncompleteBody when the client
// disconnects or sends a malformed body, kRequestTimeout when it stalls, kInvalidRequest when
// chunked framing breaks `limits` (framing() says how); any error is sticky.
class ParserBodyReader final : public s3api::BodyReader {
 public:
  ParserBodyReader(PollStream& stream, beast::flat_buffer& buffer, Parser& parser,
                   bool expect_continue, ChunkLimits limits)
      : stream_(stream),
        buffer_(buffer),
        parser_(parser),
        expect_continue_(expect_continue),
        limits_(limits),
        at_line_(parser.chunked()) {
    parser_.on_chunk_header(on_chunk_header_);
  }

  s3api::ReadResult Read(char* buf, size_t n) override {
    if (error_ != ErrorCode::kNone) return {0, error_};
    // "100 Continue" goes out on the first read even when the body is empty (Content-Length: 0),
    // as S3 does: botocore treats a final response that arrives while it waits for 100 as the
    // answer to a body it never sent, and keeps that status line for the connection's next
    // request, whose real response it then misparses and waits on until its read timeout.
    if (expect_continue_ && !sent_continue_ && n > 0) {
      sent_continue_ = true;
      auto ec = stream_.WriteAll(kContinue.data(), kContinue.size());
      if (ec) return Fail(IsTimeout(ec) ? ErrorCode::kRequestTimeout : ErrorCode::kIncompleteBody);
    }
    if (parser_.is_done() || n == 0) return {0, ErrorCode::kNone};
    auto& body = parser_.get().body();
    body.data = buf;
    body.size = n;
    body.more = true;
    boost::system::error_code ec = Pull(n);
    const size_t got = n - body.size;
    body.data = nullptr;
    body.size = 0;
    consumed_ += got;
    if (ec) {
      ErrorCode code = IsTimeout(ec) ? ErrorCode::kRequestTimeout : ErrorCode::kIncompleteBody;
      if (framing_ != ChunkFraming::kOk) code = ErrorCode::kInvalidRequest;
      Fail(code);
      // Bytes that did arrive are delivered; the error follows on the next Read.
      if (got > 0) return {got, ErrorCode::kNone};
      return {0, error_};
    }
    return {got, ErrorCode::kNone};
  }

  // Reads and drops the rest of the body, up to `limit` bytes. True if the body ended.
  bool Drain(uint64_t limit) {
    char scratch[16 << 10];
    uint64_t dropped = 0;
    while (!parser_.is_done() && error_ == ErrorCode::kNone && dropped <= limit) {
      dropped += Read(scratch, sizeof scratch).n;
    }
    return parser_.is_done() && error_ == ErrorCode::kNone;
  }

  bool failed() const { return error_ != ErrorCode::kNone; }
  bool continue_pending() const { return expect_continue_ && !sent_continue_; }
  uint64_t consumed() const { return consumed_; }
  // kOk unless the body failed because its chunked framing broke the limits.
  ChunkFraming framing() const { return framing_; }

 private:
  // Feeds the parser until it delivered body bytes into the body buffer (sized `n`), the body
  // ended, or an error. The parser is not eager: each put handles one chunk line or one piece
  // of data, so every chunk line is checked before the parser sees it. Beast would buffer a
  // chunk line or a trailer section whole, however long (bug: a 256 MiB extension was read
  // into memory), so the bytes it has not consumed at a chunk line are judged first.
  boost::system::error_code Pull(size_t n) {
    auto& body = parser_.get().body();
    while (!parser_.is_done()) {
      boost::system::error_code ec = http::error::need_more;
      if (buffer_.size() > 0) {
        if (at_line_) {
          const auto* data = static_cast<const char*>(buffer_.data().data());
          framing_ = CheckChunkFraming({data, buffer_.size()}, after_data_, limits_);
          if (framing_ != ChunkFraming::kOk) return http::error::bad_chunk;
        }
        const size_t room = body.size;
        ec = {};
        try {
          buffer_.consume(parser_.put(buffer_.data(), ec));
        } catch (const std::length_error&) {
          // Beast's fields hold at most 65533 bytes per name or value; only a trailer field
          // can reach that here (with a header limit above 64 KiB).
          framing_ = ChunkFraming::kTrailerTooLarge;
          return http::error::bad_chunk;
        }
        Delivered(room - body.size);
        if (ec == http::error::need_buffer) return {};
        if (!ec && (body.size < n || parser_.is_done())) return {};
      }
      if (ec && ec != http::error::need_more) return ec;
      if (ec) {
        ec = ReadMore(stream_, buffer_, parser_);
        if (ec) return ec;
      }
    }
    return {};
  }

  // `n` bytes of chunk data reached the body buffer: at the end of the chunk, a line follows.
  void Delivered(uint64_t n) {
    if (chunk_left_ == 0) return;
    chunk_left_ -= n;
    if (chunk_left_ == 0) at_line_ = after_data_ = true;
  }

  s3api::ReadResult Fail(ErrorCode code) {
    error_ = code;
    return {0, code};
  }

  struct OnChunkHeader {
    ParserBodyReader* reader;
    void operator()(uint64_t size, std::string_view, boost::system::error_code&) {
      reader->chunk_left_ = size;
      reader->at_line_ = false;
    }
  };

  PollStream& stream_;
  beast::flat_buffer& buffer_;
  Parser& parser_;
  const bool expect_continue_;
  const ChunkLimits limits_;
  bool sent_continue_ = false;
  ErrorCode error_ = ErrorCode::kNone;
  uint64_t consumed_ = 0;
  // Chunked framing: whether the parser stands at a chunk line, whether chunk data preceded it
  // (its CRLF comes first), and the data left in the current chunk.
  bool at_line_;
  bool after_data_ = false;
  uint64_t chunk_left_ = 0;
  ChunkFraming framing_ = ChunkFraming::kOk;
  OnChunkHeader on_chunk_header_{this};
};

bool HeaderEquals(const http::request_header<>& header, http::field field,
                  std::string_view value) {
  auto it = header.find(field);
  if (it == header.end()) return false;
  return beast::iequals(it->value(), value);
}

// Reads and drops whatever the client still sends, for a bounded time, after our side of the
// connection was shut down. See kLingerTime.
void LingerBeforeClose(int fd) {
  ::shutdown(fd, SHUT_WR);
  auto end = std::chrono::steady_clock::now() + kLingerTime;
  char scratch[16 << 10];
  while (true) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return;
    pollfd pfd{fd, POLLIN, 0};
    int rc = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) return;
    ssize_t n = ::recv(fd, scratch, sizeof scratch, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return;
  }
}

// How a streamed response body ended.
enum class BodyOutcome { kSent, kSourceFailed, kWriteFailed };

// A streamed body whose bytes are produced (BodySource::ProducedBytes: an encrypted object's
// plaintext) is read ahead on a second thread (ReadAhead) once this much of it is left: below,
// a thread and four pieces cost more than the overlap gains.
constexpr uint64_t kReadAheadMinBytes = 4 << 20;
constexpr size_t kReadAheadPieces = 4;

// Sends `to_send` bytes of `source` after the head (already out). With `file_spans` (plain TCP),
// the source's file spans go out with sendfile(2), each asked for in one piece as large as
// what is left; bytes outside files are read in pieces of up to `piece_size` and written, read
// ahead on a second thread when they are produced and at least kReadAheadMinBytes are left.
// *sent counts the body bytes that left.
BodyOutcome SendSourceBody(PollStream& stream, s3api::BodySource& source, uint64_t to_send,
                           size_t piece_size, bool file_spans, uint64_t* sent) {
  std::vector<char> piece;
  while (*sent < to_send) {
    const uint64_t left = to_send - *sent;
    if (file_spans) {
      s3api::FileSpanResult span =
          source.NextFileSpan(static_cast<size_t>(std::min<uint64_t>(left, SIZE_MAX)));
      if (span.error != ErrorCode::kNone) return BodyOutcome::kSourceFailed;
      if (span.span) {
        if (span.span->length == 0 || span.span->length > left) return BodyOutcome::kSourceFailed;
        size_t n = 0;
        auto ec = stream.SendFile(span.span->fd, span.span->offset, span.span->length, &n);
        *sent += n;
        // The file ending early is the source's fault, like a short Read; either way the
        // client sees a short body and a close.
        if (ec == asio::error::eof) return BodyOutcome::kSourceFailed;
        if (ec) return BodyOutcome::kWriteFailed;
        continue;
      }
    }
    if (source.ProducedBytes() && left >= kReadAheadMinBytes) {
      // Many produced bytes: produce the next pieces while this thread sends.
      ReadAhead ahead(source, left, piece_size, kReadAheadPieces);
      if (ahead.started()) {
        std::string_view ready;
        while (ahead.Next(&ready)) {
          if (stream.WriteAll(ready.data(), ready.size())) return BodyOutcome::kWriteFailed;
          *sent += ready.size();
        }
        return ahead.failed() ? BodyOutcome::kSourceFailed : BodyOutcome::kSent;
      }
    }
    if (piece.empty()) piece.resize(static_cast<size_t>(std::min<uint64_t>(piece_size, left)));
    size_t want = static_cast<size_t>(std::min<uint64_t>(piece.size(), left));
    s3api::ReadResult r = source.Read(piece.data(), want);
    if (r.error != ErrorCode::kNone || r.n == 0 || r.n > want) return BodyOutcome::kSourceFailed;
    if (stream.WriteAll(piece.data(), r.n)) return BodyOutcome::kWriteFailed;
    *sent += r.n;
  }
  return BodyOutcome::kSent;
}

// Reads a small streamed body whole into `out` (for sending with its head). False if the
// source failed or ended early; `out` then holds what it gave.
bool ReadSmallBody(s3api::BodySource& source, uint64_t size, std::string* out) {
  const size_t start = out->size();
  out->resize(start + size);
  size_t got = 0;
  while (got < size) {
    s3api::ReadResult r = source.Read(out->data() + start + got, size - got);
    if (r.error != ErrorCode::kNone || r.n == 0 || r.n > size - got) {
      out->resize(start + got);
      return false;
    }
    got += r.n;
  }
  return true;
}

// Answers a connection over the limit without a thread: one non-blocking send of a 503 (a
// fresh socket's send buffer takes it whole), then a close.
void RefuseBusy(tcp::socket& socket) {
  static constexpr std::string_view kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nServer: cubby\r\nRetry-After: 1\r\n"
      "Content-Length: 0\r\nConnection: close\r\n\r\n";
  ::send(socket.native_handle(), kBusy.data(), kBusy.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  boost::system::error_code ec;
  socket.close(ec);
}

// Blocks SIGPIPE for the calling thread. sendfile(2) has no MSG_NOSIGNAL, and OpenSSL writes
// with write(2): a peer that went away must be an EPIPE, never a process-killing SIGPIPE, even
// where the process does not ignore it. Blocked, a SIGPIPE raised by this thread's writes stays
// pending on this thread (the connection then closes) and is discarded when the thread exits.
void BlockSigpipe() {
  sigset_t sigpipe;
  sigemptyset(&sigpipe);
  sigaddset(&sigpipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &sigpipe, nullptr);
}

// "host:port" of the peer, or "-".
std::string RemoteAddress(const tcp::socket& socket) {
  boost::system::error_code ec;
  auto ep = socket.remote_endpoint(ec);
  return ec ? "-" : FormatAddress(ep.address().to_string(), ep.port());
}

// A failed header read that is the client going away (or stalling), not a malformed request.
bool ClientGone(const boost::system::error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof ||
         ec == http::error::partial_message || IsTimeout(ec) ||
         ec == asio::error::operation_aborted || ec == asio::error::connection_reset;
}

// What a session uses of its server.
struct SessionEnv {
  const HttpServerOptions& options;
  const HttpHandler& handler;
  Logger& logger;
  RequestIdGenerator& request_ids;
  const std::atomic<bool>& stopping;
  int stop_fd;  // readable once the server stops
};

// How a response is to end its connection's turn.
struct Ending {
  bool close = false;  // announce Connection: close and end the connection
  bool drain = false;  // read and drop the unread request body afterwards, to keep the connection
};

// A response on its way out: the head, with a small body appended, and the body bytes after it.
struct Outgoing {
  std::string head;
  uint64_t to_send = 0;    // body bytes still to send after the head
  uint64_t sent = 0;       // body bytes that left (before sending: those riding with the head)
  bool source_ok = true;   // false once the body's source failed
};

// One connection: reads each request's head and body, hands them to the handler and writes its
// answer, one request after another. Only I/O happens here; the handler decides the answers.
class Session {
 public:
  Session(const SessionEnv& env, int fd, std::string remote)
      : env_(env), stream_(fd, env.stop_fd), remote_(std::move(remote)) {}

  // TCP_NODELAY, non-blocking mode and, with TLS, the handshake. False if the connection is
  // unusable (nothing is to be sent on it).
  bool Open(tcp::socket& socket) {
    boost::system::error_code ec;
    // Responses go out as head + body writes; without TCP_NODELAY, Nagle plus the client's
    // delayed ACK can hold the second write back for ~40 ms.
    socket.set_option(tcp::no_delay(true), ec);
    socket.non_blocking(true, ec);
    if (ec) return false;
    if (env_.options.tls == nullptr) return true;
    // TLS: the SSL object lives as long as the connection; the handshake must finish within the
    // header timeout, like a request header.
    ssl_.reset(env_.options.tls->NewSsl());
    if (!ssl_ || SSL_set_fd(ssl_.get(), stream_.fd()) != 1) return false;
    SSL_set_accept_state(ssl_.get());
    stream_.set_ssl(ssl_.get());
    stream_.set_stall_timeout(env_.options.header_timeout);
    stream_.set_deadline(PollStream::Clock::now() + env_.options.header_timeout);
    stream_.set_watch_stop(true);
    ec = stream_.Handshake();
    if (!ec) return true;
    env_.logger.Debug("tls handshake failed", {{"remote", remote_}, {"error", ec.message()}});
    ssl_.reset();  // nothing to shut down on a failed handshake
    stream_.set_ssl(nullptr);
    return false;
  }

  // Serves requests until the connection is to close. True if request bytes may still be
  // unread, to be dropped before close (LingerBeforeClose).
  bool ServeRequests() {
    // Beast sizes each read by the buffer's spare capacity (at least 512 bytes): without room
    // reserved, a large PUT body arrives in 512-byte recv calls.
    buffer_.reserve(kReadBufferBytes);
    bool first_request = true;
    while (!env_.stopping) {
      if (!AwaitRequest(first_request)) return false;
      first_request = false;
      Parser parser;
      boost::system::error_code ec = ReadHead(parser);
      const auto start = std::chrono::steady_clock::now();
      if (ec) {
        if (ClientGone(ec)) return false;
        AnswerBadRequest(ec);
        return true;
      }
      bool linger = false;
      if (!Exchange(parser, start, &linger)) return linger;
    }
    return false;
  }

  // Sends a TLS close_notify after a successful handshake; no-op otherwise.
  void ShutdownTls() { stream_.ShutdownTls(); }

 private:
  // Between requests: waits for the first byte (idle timeout, the header timeout before the
  // first request; a stop ends the wait). False if none comes.
  bool AwaitRequest(bool first_request) {
    stream_.set_watch_stop(true);
    stream_.set_stall_timeout(env_.options.idle_timeout);
    stream_.set_deadline(std::nullopt);
    if (buffer_.size() > 0) return true;
    if (first_request) stream_.set_stall_timeout(env_.options.header_timeout);
    return !stream_.WaitReadable();
  }

  // Reads a request head into `parser`: the whole head within the header timeout, and at most
  // header_limit bytes from the request line to the empty line's CRLF, exactly. (Beast's own
  // header_limit applies to each put, and a head is consumed field by field, so alone it let
  // through heads about twice the limit.) The body is left to the handler.
  boost::system::error_code ReadHead(Parser& parser) {
    stream_.set_stall_timeout(env_.options.header_timeout);
    stream_.set_deadline(PollStream::Clock::now() + env_.options.header_timeout);
    const size_t limit = env_.options.header_limit;
    parser.header_limit(static_cast<uint32_t>(limit));
    parser.body_limit(boost::none);  // bodies stream; S3Service enforces S3's size limits
    parser.eager(false);             // the head only; ParserBodyReader relies on it for the body
    size_t consumed = 0;
    while (true) {
      boost::system::error_code ec = http::error::need_more;
      if (buffer_.size() > 0) {
        ec = {};
        try {
          const size_t used = parser.put(buffer_.data(), ec);
          buffer_.consume(used);
          consumed += used;
        } catch (const std::length_error&) {
          // A field name or value over Beast's 65533 bytes (a header limit above 64 KiB).
          return http::error::header_limit;
        }
        if (parser.is_header_done()) return consumed > limit ? http::error::header_limit : ec;
      }
      if (ec != http::error::need_more) return ec;
      // The head is not complete in what arrived, so it is at least one byte longer.
      if (consumed + buffer_.size() >= limit) return http::error::header_limit;
      ec = ReadMore(stream_, buffer_, parser);
      if (ec) return ec;
    }
  }

  // A malformed request head: 400, and the connection closes.
  void AnswerBadRequest(const boost::system::error_code& ec) {
    s3api::HttpResponse bad;
    bad.status = 400;
    std::string head = SerializeResponseHead(
        bad, {.head_request = false, .close = true,
              .date = text::FormatHttpDate(std::chrono::system_clock::now())});
    stream_.set_deadline(std::nullopt);
    stream_.set_watch_stop(false);
    stream_.set_stall_timeout(env_.options.write_stall_timeout);
    // Counted before the answer leaves, so a client that saw it also sees it counted.
    RecordRequest("BadRequest", 400, 0, 0, 0);
    stream_.WriteAll(head.data(), head.size()).clear();
    env_.logger.Info("bad request", {{"request_id", "-"},
                                     {"remote", remote_},
                                     {"status", 400},
                                     {"error", ec.message()}});
  }

  // One request whose head `parser` holds: the handler, the answer, the drain, the log line and
  // the count. False if the connection ends here; *linger then says whether request bytes may
  // still be unread.
  bool Exchange(Parser& parser, std::chrono::steady_clock::time_point start,
                bool* linger) {
    stream_.set_deadline(std::nullopt);
    stream_.set_watch_stop(false);
    stream_.set_stall_timeout(env_.options.body_stall_timeout);

    const auto& header = parser.get().base();
    std::optional<uint64_t> content_length;
    if (auto cl = parser.content_length()) content_length = *cl;
    s3api::HttpRequest request =
        ToHttpRequest(header, content_length, remote_, env_.request_ids.Next());
    request.secure = ssl_ != nullptr;
    if (ssl_) request.tls_version = TlsVersionOf(ssl_.get());
    const bool is_head = header.method() == http::verb::head;
    ParserBodyReader body(stream_, buffer_, parser,
                          HeaderEquals(header, http::field::expect, "100-continue"),
                          {.max_trailer = env_.options.header_limit});
    s3api::RequestSummary summary;
    s3api::HttpResponse response = CallHandler(request, body, &summary);
    // Broken framing is the HTTP layer's to explain, whatever the handler made of the failed
    // read (it sees only kInvalidRequest).
    if (body.framing() != ChunkFraming::kOk) {
      response = FramingError(request, body.framing(), is_head, &summary);
    }
    // Every answer a handler made carries the request's id, whichever front door made it.
    response.Set("x-amz-request-id", request.request_id);
    response.Set("x-amz-id-2", text::Base64Encode(request.request_id));
    Ending ending = DecideEnding(response, parser, body);

    Outgoing out = PrepareResponse(response, is_head, ending.close);
    // An in-memory response is counted before it is written, so a client that has the answer
    // finds it in a scrape; its duration ends when it is handed to the socket. A streamed body
    // is counted after its last byte, with the bytes actually sent.
    const bool count_first = !response.source;
    if (count_first) {
      RecordRequest(summary.operation, response.status,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                    body.consumed(), out.sent + out.to_send);
    }
    const bool write_ok = SendResponse(response, out, is_head, request.request_id);
    if (write_ok && ending.drain) {
      stream_.set_stall_timeout(env_.options.body_stall_timeout);
      if (!body.Drain(env_.options.drain_limit)) ending.close = true;
    }
    auto duration =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start);
    LogRequest(request, summary, response.status, body.consumed(), out.sent, duration.count());
    if (!count_first) {
      RecordRequest(summary.operation, response.status, duration.count() / 1000.0,
                    body.consumed(), out.sent);
    }
    if (!write_ok) return false;
    if (!ending.close) return true;
    *linger = !parser.is_done();
    return false;
  }

  s3api::HttpResponse CallHandler(const s3api::HttpRequest& request, s3api::BodyReader& body,
                                  s3api::RequestSummary* summary) {
    try {
      return env_.handler(request, body, summary);
    } catch (const std::exception& e) {
      // Handlers must not throw; if one does anyway, the client still gets an answer.
      env_.logger.Error("handler threw", {{"request_id", request.request_id}, {"error", e.what()}});
      s3api::HttpResponse response;
      response.status = 500;
      response.close_connection = true;
      return response;
    }
  }

  // 400 InvalidRequest for a chunked body whose framing broke the limits; the connection closes
  // (the rest of the body cannot be found).
  s3api::HttpResponse FramingError(const s3api::HttpRequest& request, ChunkFraming framing,
                                   bool is_head, s3api::RequestSummary* summary) const {
    std::string message;
    switch (framing) {
      case ChunkFraming::kOk:
      case ChunkFraming::kLineTooLong:
        message = "A chunk line of the chunked request body (size and extensions) is longer "
                  "than " + std::to_string(ChunkLimits{}.max_line) + " bytes.";
        break;
      case ChunkFraming::kTrailerTooLarge:
        message = "The trailer section of the chunked request body is longer than " +
                  std::to_string(env_.options.header_limit) + " bytes.";
        break;
    }
    s3api::HttpResponse response;
    response.status = s3api::Info(ErrorCode::kInvalidRequest).http_status;
    response.Set("Content-Type", "application/xml");
    const std::string_view path = std::string_view(request.target).substr(
        0, std::min(request.target.find('?'), request.target.size()));
    if (!is_head) {
      response.body = s3api::ErrorXml(ErrorCode::kInvalidRequest, path, request.request_id,
                                      message);
    }
    response.close_connection = true;
    summary->error = std::string(s3api::Info(ErrorCode::kInvalidRequest).code);
    summary->error_detail = message;
    return response;
  }

  // Keep the connection only if the next request can be found on it.
  Ending DecideEnding(const s3api::HttpResponse& response, const Parser& parser,
                      const ParserBodyReader& body) const {
    // A client still waiting for "100 Continue" gets the final answer on a connection that
    // then closes: it may never send the body, and botocore would carry this answer's status
    // line over to the connection's next request.
    const bool close = response.close_connection || !parser.keep_alive() || env_.stopping ||
                       body.failed() || body.continue_pending();
    if (close || parser.is_done()) return {.close = close};
    auto remaining = parser.content_length_remaining();
    if (!remaining || *remaining > env_.options.drain_limit) return {.close = true};
    return {.drain = true};
  }

  // The response head and, for a small body, the body with it.
  Outgoing PrepareResponse(s3api::HttpResponse& response, bool is_head, bool close) {
    Outgoing out;
    out.head = SerializeResponseHead(
        response, {.head_request = is_head, .close = close,
                   .date = text::FormatHttpDate(std::chrono::system_clock::now())});
    stream_.set_stall_timeout(env_.options.write_stall_timeout);
    out.to_send = ResponseBodySize(response, is_head);
    // A small body (XML, errors, small objects) leaves in the same packet as its head: one
    // send instead of two. A streamed one is read first; that is a copy from memory for
    // bodies this small, so the head is not held back noticeably.
    if (out.to_send == 0 || out.to_send > kCoalesceLimit) return out;
    if (!response.source) {
      out.head += response.body;
    } else {
      const size_t head_size = out.head.size();
      out.source_ok = ReadSmallBody(*response.source, out.to_send, &out.head);
      if (!out.source_ok) out.to_send = out.head.size() - head_size;
    }
    out.sent = out.to_send;
    out.to_send = 0;
    return out;
  }

  // Writes `out` and then the rest of the body: from memory, or from the source (file spans by
  // sendfile(2) on plain TCP). True if all of it left. Releases the body's source.
  bool SendResponse(s3api::HttpResponse& response, Outgoing& out, bool is_head,
                    const std::string& request_id) {
    bool write_ok = !stream_.WriteAll(out.head.data(), out.head.size());
    if (!write_ok) out.sent = 0;
    if (write_ok && out.to_send > 0) {
      if (!response.source) {
        write_ok = !stream_.WriteAll(response.body.data(), response.body.size());
        if (write_ok) out.sent = out.to_send;
      } else {
        // sendfile(2) bypasses TLS, so file spans are for plain TCP only.
        BodyOutcome outcome = SendSourceBody(stream_, *response.source, out.to_send,
                                             env_.options.response_chunk, !ssl_, &out.sent);
        write_ok = outcome == BodyOutcome::kSent;
        out.source_ok = outcome != BodyOutcome::kSourceFailed;
      }
    }
    if (!out.source_ok) {
      // Headers are out; the only honest signal left is a short body and a close.
      env_.logger.Error("response body source failed",
                       {{"request_id", request_id},
                        {"sent", out.sent},
                        {"expected", ResponseBodySize(response, is_head)}});
      write_ok = false;
    }
    response.source.reset();
    return write_ok;
  }

  void RecordRequest(std::string_view operation, int status, double seconds, uint64_t bytes_in,
                     uint64_t bytes_out) {
    if (env_.options.metrics == nullptr) return;
    env_.options.metrics->RecordRequest(operation, status, seconds, bytes_in, bytes_out);
  }

  void LogRequest(const s3api::HttpRequest& request, const s3api::RequestSummary& summary,
                  int status, uint64_t bytes_in, uint64_t bytes_out, double duration_ms) {
    // A 5xx is the server's failure (storage, data that fails to authenticate): an error line.
    env_.logger.Log(status >= 500 ? LogLevel::kError : LogLevel::kInfo, "request",
                     {{"request_id", request.request_id},
                      {"remote", remote_},
                      {"method", request.method},
                      {"operation", summary.operation.empty() ? "-" : summary.operation},
                      {"bucket", summary.bucket},
                      {"key", summary.key},
                      {"status", status},
                      {"bytes_in", bytes_in},
                      {"bytes_out", bytes_out},
                      {"duration_ms", duration_ms},
                      {"access_key", summary.access_key_id},
                      {"error", summary.error},
                      {"error_detail", summary.error_detail}});
  }

  const SessionEnv env_;
  PollStream stream_;
  const std::string remote_;
  std::unique_ptr<SSL, void (*)(SSL*)> ssl_{nullptr, SSL_free};
  beast::flat_buffer buffer_;
};

}  // namespace

HttpServer::HttpServer(HttpServerOptions options, HttpHandler handler, Logger* logger)
    : options_(std::move(options)),
      handler_(std::move(handler)),
      logger_(logger),
      acceptor_(io_) {}

HttpServer::~HttpServer() {
  Stop(std::chrono::milliseconds(0));
  for (int fd : stop_pipe_) {
    if (fd >= 0) ::close(fd);
  }
}

storage::Status HttpServer::Start() {
  auto fail = [](std::string what, const boost::system::error_code& ec) {
    return storage::Status(storage::Code::kIOError, what + ": " + ec.message());
  };
  if (::pipe2(stop_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
    return storage::Status(storage::Code::kIOError,
                           std::string("pipe: ") + std::strerror(errno));
  }
  boost::system::error_code ec;
  auto address = asio::ip::make_address(options_.host, ec);
  if (ec) return fail("invalid listen address " + options_.host, ec);
  tcp::endpoint endpoint(address, options_.port);
  std::string where = FormatAddress(options_.host, options_.port);
  acceptor_.open(endpoint.protocol(), ec);
  if (ec) return fail("socket for " + where, ec);
  acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) {
    return fail("SO_REUSEADDR on " + where, ec);
  }
  acceptor_.bind(endpoint, ec);
  if (ec) return fail("bind " + where, ec);
  acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return fail("listen on " + where, ec);
  }
  // Non-blocking: the acceptor thread waits in poll(2) on the listener and the stop pipe.
  acceptor_.non_blocking(true, ec);
  if (ec) return fail("non-blocking listener", ec);
  port_ = acceptor_.local_endpoint(ec).port();
  if (ec) return fail("local endpoint", ec);
  acceptor_thread_ = std::thread([this] { AcceptLoop(); });
  return storage::Status::Ok();
}

std::string HttpServer::EndpointUrl() const {
  std::string host = options_.host;
  if (host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  return (options_.tls != nullptr ? "https://" : "http://") + FormatAddress(host, port_);
}

void HttpServer::AcceptLoop() {
  while (true) {
    pollfd fds[2] = {{acceptor_.native_handle(), POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    int rc = ::poll(fds, 2, -1);
    if (rc < 0 && errno == EINTR) continue;
    if (fds[1].revents & POLLIN) return;
    boost::system::error_code ec;
    tcp::socket socket = acceptor_.accept(ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again ||
        ec == asio::error::connection_aborted) {
      continue;
    }
    if (ec) {
      // E.g. EMFILE. The listener stays readable, so back off instead of spinning; the stop
      // pipe still ends the wait at once.
      logger_->Warn("accept failed", {{"error", ec.message()}});
      pollfd stop{stop_pipe_[0], POLLIN, 0};
      ::poll(&stop, 1, 100);
      continue;
    }
    bool over_limit = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      over_limit = slots_ >= options_.max_connections;
      if (!over_limit) {
        ++slots_;
        ++active_;
      }
    }
    if (over_limit) {
      if (options_.tls == nullptr) {
        RefuseBusy(socket);
      } else {
        socket.close(ec);
      }
      if (options_.metrics != nullptr) options_.metrics->RecordRequest("Other", 503, 0, 0, 0);
      continue;
    }
    try {
      std::thread([this, s = std::move(socket)]() mutable { Serve(std::move(s)); }).detach();
    } catch (const std::system_error& e) {
      // Thread creation failed (resource limits): the socket was moved into the lambda and is
      // closed with it; give the slot back.
      logger_->Warn("cannot start connection thread", {{"error", e.what()}});
      ReleaseSlot();
      ConnectionDone(-1);
    }
  }
}

void HttpServer::ReleaseSlot() {
  std::lock_guard<std::mutex> lock(mutex_);
  --slots_;
}

void HttpServer::ConnectionDone(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd >= 0) connection_fds_.erase(fd);
  --active_;
  // Notify under the lock: once active_ reaches 0, Stop may return and destroy *this.
  idle_cv_.notify_all();
}

size_t HttpServer::active_connections() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return active_;
}

size_t HttpServer::Stop(std::chrono::milliseconds grace) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) return 0;
    stopped_ = true;
  }
  stopping_ = true;
  if (stop_pipe_[1] >= 0) {
    char byte = 1;
    while (::write(stop_pipe_[1], &byte, 1) < 0 && errno == EINTR) {
    }
  }
  if (acceptor_thread_.joinable()) acceptor_thread_.join();
  boost::system::error_code ec;
  acceptor_.close(ec);

  std::unique_lock<std::mutex> lock(mutex_);
  size_t aborted = 0;
  if (!idle_cv_.wait_for(lock, grace, [this] { return active_ == 0; })) {
    aborted = active_;
    // Still registered means not yet closed (a connection leaves the set before close), so
    // these fds are the connections' own.
    for (int fd : connection_fds_) ::shutdown(fd, SHUT_RDWR);
    idle_cv_.wait(lock, [this] { return active_ == 0; });
  }
  return aborted;
}

void HttpServer::Serve(tcp::socket socket) {
  BlockSigpipe();
  const int fd = socket.native_handle();
  Session session({options_, handler_, *logger_, request_ids_, stopping_, stop_pipe_[0]}, fd,
                  RemoteAddress(socket));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    connection_fds_.insert(fd);
  }
  const bool linger = session.Open(socket) && session.ServeRequests();
  // Leave the set before the fd is closed, so Stop never shuts down a reused descriptor.
  {
    std::lock_guard<std::mutex> lock(mutex_);
    connection_fds_.erase(fd);
  }
  session.ShutdownTls();
  if (linger) LingerBeforeClose(fd);
  ReleaseSlot();
  boost::system::error_code ec;
  socket.close(ec);
  ConnectionDone(-1);
}

}  // namespace cubby::server
