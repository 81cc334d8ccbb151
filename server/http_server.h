// HttpServer: HTTP/1.1 for the S3 endpoint, one thread per connection with blocking I/O.
//
// Why threads and not coroutines: a request body streams straight from the socket into storage
// through a plain synchronous handler (S3Service::Handle), and the durable commit at the end of a
// write blocks in RocksDB, where group commit lets the blocked connection threads share fsyncs.
// Every wait is bounded (PollStream), so a slow or stalled client costs a thread for at most a
// timeout.
//
// Per connection: read a header (Beast request_parser<buffer_body>), hand the handler an
// HttpRequest and a BodyReader that pulls the body through the parser (Content-Length or chunked;
// "100 Continue" is sent lazily on the first Read), write the HttpResponse, then keep the
// connection alive per HTTP/1.1 or close it. Malformed requests get 400 and a close. A body of
// up to 64 KiB leaves with its head in one send; a larger streamed one follows the head, its
// file spans by sendfile(2) unless the connection is TLS.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "s3api/http.h"
#include "s3api/service.h"
#include "server/http_wire.h"
#include "server/log.h"
#include "server/metrics.h"
#include "storage/status.h"

namespace cubby::server {

class ServerTls;

struct HttpServerOptions {
  std::string host = "0.0.0.0";  // IP literal
  uint16_t port = 9000;          // 0: the kernel picks one; see HttpServer::port()

  // Timeouts. 60 s each, like common S3 front ends: long enough for slow links and large
  // headers, short enough that stalled clients release their threads. (Flags may come later.)
  std::chrono::milliseconds header_timeout{60'000};      // whole request header, once started
  std::chrono::milliseconds idle_timeout{60'000};        // keep-alive wait for the next request
  std::chrono::milliseconds body_stall_timeout{60'000};  // no request body byte for this long
  std::chrono::milliseconds write_stall_timeout{60'000}; // client reads no response byte

  // S3 allows 8 KiB of user metadata, and SigV4 headers are long; 64 KiB leaves ample room.
  // Bounds the whole request head (request line to the empty line's CRLF) exactly, and a chunked
  // body's trailer section; a chunk line is bounded by ChunkLimits::max_line.
  uint32_t header_limit = 64 << 10;
  // A body the handler left unread is drained (to keep the connection) up to this size.
  uint64_t drain_limit = 1 << 20;
  // A streamed response body is pulled in pieces this big, except the bytes its source has in
  // files (BodySource::NextFileSpan), which go out with sendfile(2) on plain TCP connections.
  size_t response_chunk = 256 << 10;
  // Connection threads at most. A connection over the limit is answered 503 (best effort,
  // without reading its request) and closed, so a flood cannot exhaust threads or memory.
  size_t max_connections = 1024;

  // Every answered request is counted here when set (must outlive the server).
  Metrics* metrics = nullptr;
  // When set, connections speak TLS (handshake within header_timeout) on the context current
  // when each starts, and EndpointUrl says https. Over max_connections a TLS connection is
  // closed without an answer (a 503 would need a handshake on the acceptor thread). Must
  // outlive the server.
  const ServerTls* tls = nullptr;
};

// The request handler: S3Service::Handle's shape. Must not throw.
using HttpHandler = std::function<s3api::HttpResponse(
    const s3api::HttpRequest&, s3api::BodyReader&, s3api::RequestSummary*)>;

class HttpServer {
 public:
  // `logger` must outlive the server; the handler must be callable from many threads at once.
  HttpServer(HttpServerOptions options, HttpHandler handler, Logger* logger);
  // Stops with no grace period if still running.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds (SO_REUSEADDR), listens and starts the acceptor thread. kIOError with the reason if
  // the address cannot be bound. REQUIRES: called once.
  storage::Status Start();

  // The bound port (after Start).
  uint16_t port() const { return port_; }
  // "http://<host>:<port>" ("https://" with TLS), with 127.0.0.1 for 0.0.0.0 and [::1] for :: (an address a client
  // on this machine can use).
  std::string EndpointUrl() const;

  // Stops accepting, closes idle connections, lets requests in flight finish for up to
  // `grace`, then aborts the I/O of those still running and waits for their threads to exit.
  // Returns the number of connections that had to be aborted. Safe to call more than once.
  size_t Stop(std::chrono::milliseconds grace);

  // Connection threads currently running.
  size_t active_connections() const;
  // True once Stop has begun: responses from then on say Connection: close.
  bool stopping() const { return stopping_; }

 private:
  void AcceptLoop();
  void Serve(boost::asio::ip::tcp::socket socket);
  void ConnectionDone(int fd);
  void ReleaseSlot();

  const HttpServerOptions options_;
  const HttpHandler handler_;
  Logger* const logger_;
  RequestIdGenerator request_ids_;

  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  std::thread acceptor_thread_;
  // Written once on Stop and never drained: readable from then on, it wakes every poll that
  // watches it (the acceptor, and connections between requests).
  int stop_pipe_[2] = {-1, -1};
  std::atomic<bool> stopping_{false};

  mutable std::mutex mutex_;
  std::condition_variable idle_cv_;
  size_t active_ = 0;                // connection threads alive (Stop waits for 0); mutex_
  // Connections counted against max_connections; mutex_. Released just before a connection's
  // socket closes, so a client that reconnects once it sees the close finds the slot free.
  size_t slots_ = 0;
  std::set<int> connection_fds_;     // guarded by mutex_; shut down when the grace runs out
  bool stopped_ = false;             // guarded by mutex_
};

}  // namespace cubby::server
