#include "server/poll_stream.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio/error.hpp>

namespace cubby::server {
namespace {

using namespace std::chrono_literals;

// A connected, non-blocking socket pair plus a stop pipe.
class PollStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sockets_), 0);
    ASSERT_EQ(::pipe2(stop_, O_NONBLOCK), 0);
  }
  void TearDown() override {
    for (int fd : {sockets_[0], sockets_[1], stop_[0], stop_[1]}) {
      if (fd >= 0) ::close(fd);
    }
  }
  int sockets_[2] = {-1, -1};
  int stop_[2] = {-1, -1};
};

TEST_F(PollStreamTest, ReadsAvailableBytes) {
  PollStream stream(sockets_[0], stop_[0]);
  ASSERT_EQ(::write(sockets_[1], "hello", 5), 5);
  char buf[16];
  boost::system::error_code ec;
  size_t n = stream.read_some(boost::asio::buffer(buf), ec);
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_EQ(std::string(buf, n), "hello");
}

TEST_F(PollStreamTest, StallTimeout) {
  PollStream stream(sockets_[0], stop_[0]);
  stream.set_stall_timeout(50ms);
  char buf[16];
  boost::system::error_code ec;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(stream.read_some(boost::asio::buffer(buf), ec), 0u);
  EXPECT_EQ(ec, boost::asio::error::timed_out);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 50ms);
}

TEST_F(PollStreamTest, DeadlineInThePastTimesOutAtOnce) {
  PollStream stream(sockets_[0], stop_[0]);
  stream.set_stall_timeout(60s);
  stream.set_deadline(PollStream::Clock::now() - 1ms);
  char buf[16];
  boost::system::error_code ec;
  stream.read_some(boost::asio::buffer(buf), ec);
  EXPECT_EQ(ec, boost::asio::error::timed_out);
}

TEST_F(PollStreamTest, StopAbortsOnlyWhenWatched) {
  PollStream stream(sockets_[0], stop_[0]);
  stream.set_stall_timeout(50ms);
  ASSERT_EQ(::write(stop_[1], "x", 1), 1);
  char buf[16];
  boost::system::error_code ec;
  stream.read_some(boost::asio::buffer(buf), ec);
  EXPECT_EQ(ec, boost::asio::error::timed_out) << "not watching: the stop is ignored";
  stream.set_watch_stop(true);
  stream.set_stall_timeout(60s);
  stream.read_some(boost::asio::buffer(buf), ec);
  EXPECT_EQ(ec, boost::asio::error::operation_aborted);
  EXPECT_EQ(stream.WaitReadable(), boost::asio::error::operation_aborted);
}

TEST_F(PollStreamTest, PeerCloseIsEof) {
  PollStream stream(sockets_[0], stop_[0]);
  ::close(sockets_[1]);
  sockets_[1] = -1;
  char buf[16];
  boost::system::error_code ec;
  stream.read_some(boost::asio::buffer(buf), ec);
  EXPECT_EQ(ec, boost::asio::error::eof);
}

TEST_F(PollStreamTest, WriteToClosedPeerIsAnErrorNotASignal) {
  PollStream stream(sockets_[0], stop_[0]);
  ::close(sockets_[1]);
  sockets_[1] = -1;
  EXPECT_TRUE(stream.WriteAll("x", 1));
}

TEST_F(PollStreamTest, WriteStallTimeoutWhenPeerDoesNotRead) {
  PollStream stream(sockets_[0], stop_[0]);
  stream.set_stall_timeout(50ms);
  std::string big(8 << 20, 'x');  // far more than the socket buffers hold
  EXPECT_EQ(stream.WriteAll(big.data(), big.size()), boost::asio::error::timed_out);
}

TEST_F(PollStreamTest, ScatterRead) {
  PollStream stream(sockets_[0], stop_[0]);
  ASSERT_EQ(::write(sockets_[1], "abcdef", 6), 6);
  char a[2], b[10];
  std::array<boost::asio::mutable_buffer, 2> buffers = {boost::asio::buffer(a),
                                                        boost::asio::buffer(b)};
  boost::system::error_code ec;
  size_t n = stream.read_some(buffers, ec);
  ASSERT_FALSE(ec);
  ASSERT_EQ(n, 6u);
  EXPECT_EQ(std::string(a, 2) + std::string(b, 4), "abcdef");
}

// sendfile(2) from a temp file: the bytes from the given offset, across partial sends while
// the peer drains; a file shorter than asked is eof with what was sent; a peer that stops
// reading is the stall timeout.
class SendFileTest : public PollStreamTest {
 protected:
  void SetUp() override {
    PollStreamTest::SetUp();
    char path[] = "/tmp/poll_stream_test.XXXXXX";
    file_ = ::mkstemp(path);
    ASSERT_GE(file_, 0);
    ::unlink(path);
    data_.resize(3 << 20);
    for (size_t i = 0; i < data_.size(); ++i) data_[i] = static_cast<char>(i * 131 + i / 7);
    ASSERT_EQ(::pwrite(file_, data_.data(), data_.size(), 0), static_cast<ssize_t>(data_.size()));
  }
  void TearDown() override {
    ::close(file_);
    PollStreamTest::TearDown();
  }
  // Everything that arrives on the peer socket until it has `n` bytes or 5 s pass.
  std::string Drain(size_t n) {
    std::string got;
    auto end = std::chrono::steady_clock::now() + 5s;
    char buf[65536];
    while (got.size() < n && std::chrono::steady_clock::now() < end) {
      ssize_t r = ::recv(sockets_[1], buf, sizeof buf, 0);
      if (r > 0) got.append(buf, static_cast<size_t>(r));
      if (r < 0 && errno != EAGAIN) break;
      if (r < 0) std::this_thread::sleep_for(1ms);
    }
    return got;
  }
  int file_ = -1;
  std::string data_;
};

TEST_F(SendFileTest, SendsTheSpanAcrossPartialSends) {
  PollStream stream(sockets_[0], stop_[0]);
  const uint64_t offset = 12345;
  const size_t length = (2 << 20) + 77;  // more than the socket pair buffers at once
  std::string got;
  std::thread reader([&] { got = Drain(length); });
  size_t sent = 0;
  EXPECT_FALSE(stream.SendFile(file_, offset, length, &sent));
  reader.join();
  EXPECT_EQ(sent, length);
  EXPECT_TRUE(got == data_.substr(offset, length));
}

TEST_F(SendFileTest, FileShorterThanTheSpanIsEof) {
  PollStream stream(sockets_[0], stop_[0]);
  const uint64_t offset = data_.size() - 1000;
  size_t sent = 0;
  EXPECT_EQ(stream.SendFile(file_, offset, 5000, &sent), boost::asio::error::eof);
  EXPECT_EQ(sent, 1000u);
  EXPECT_EQ(Drain(1000), data_.substr(offset));
}

TEST_F(SendFileTest, StallTimeoutWhenPeerDoesNotRead) {
  PollStream stream(sockets_[0], stop_[0]);
  stream.set_stall_timeout(50ms);
  size_t sent = 0;
  EXPECT_EQ(stream.SendFile(file_, 0, data_.size(), &sent), boost::asio::error::timed_out);
  EXPECT_LT(sent, data_.size());
}

// TLS over the socket pair: sockets_[0] the server, sockets_[1] the client, both PollStreams,
// with an in-memory self-signed P-256 certificate.
class TlsPollStreamTest : public PollStreamTest {
 protected:
  void SetUp() override {
    PollStreamTest::SetUp();
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), 0);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_set_issuer_name(cert, X509_get_subject_name(cert));
    X509_sign(cert, key, EVP_sha256());
    server_ctx_ = SSL_CTX_new(TLS_server_method());
    client_ctx_ = SSL_CTX_new(TLS_client_method());
    ASSERT_EQ(SSL_CTX_use_certificate(server_ctx_, cert), 1);
    ASSERT_EQ(SSL_CTX_use_PrivateKey(server_ctx_, key), 1);
    X509_free(cert);
    EVP_PKEY_free(key);
    server_ssl_ = SSL_new(server_ctx_);
    client_ssl_ = SSL_new(client_ctx_);
    SSL_set_fd(server_ssl_, sockets_[0]);
    SSL_set_fd(client_ssl_, sockets_[1]);
    SSL_set_accept_state(server_ssl_);
    SSL_set_connect_state(client_ssl_);
    server_stream_.emplace(sockets_[0], stop_[0]);
    client_stream_.emplace(sockets_[1], -1);
    for (PollStream* stream : {&*server_stream_, &*client_stream_}) stream->set_stall_timeout(5s);
    server_stream_->set_ssl(server_ssl_);
    client_stream_->set_ssl(client_ssl_);
    boost::system::error_code server_ec;
    std::thread accept([&] { server_ec = server_stream_->Handshake(); });
    ASSERT_FALSE(client_stream_->Handshake());
    accept.join();
    ASSERT_FALSE(server_ec) << server_ec.message();
  }
  void TearDown() override {
    SSL_free(server_ssl_);
    SSL_free(client_ssl_);
    SSL_CTX_free(server_ctx_);
    SSL_CTX_free(client_ctx_);
    PollStreamTest::TearDown();
  }
  // What the server's read gets after the client sent "request" and then `finish` ran.
  boost::system::error_code ReadAfter(const std::function<void()>& finish) {
    EXPECT_FALSE(client_stream_->WriteAll("request", 7));
    char buf[16];
    boost::system::error_code ec;
    EXPECT_EQ(server_stream_->read_some(boost::asio::buffer(buf), ec), 7u);
    finish();
    server_stream_->read_some(boost::asio::buffer(buf), ec);
    return ec;
  }

  SSL_CTX* server_ctx_ = nullptr;
  SSL_CTX* client_ctx_ = nullptr;
  SSL* server_ssl_ = nullptr;
  SSL* client_ssl_ = nullptr;
  // Made in SetUp, once the sockets exist.
  std::optional<PollStream> server_stream_;
  std::optional<PollStream> client_stream_;
};

// Issue 12, bug 7: a client that closes without close_notify (Python's ssl, pgbackrest) is a
// peer leaving, as on a plain socket, not a TLS failure (the server answered 400).
TEST_F(TlsPollStreamTest, CloseWithoutCloseNotifyIsEof) {
  // A FIN: shutdown rather than close, which with the server's unread session tickets in the
  // client's buffer would be a reset.
  EXPECT_EQ(ReadAfter([&] { ::shutdown(sockets_[1], SHUT_WR); }), boost::asio::error::eof);
}

TEST_F(TlsPollStreamTest, CloseNotifyIsEof) {
  EXPECT_EQ(ReadAfter([&] { client_stream_->ShutdownTls(); }), boost::asio::error::eof);
}

TEST_F(TlsPollStreamTest, BytesThatAreNotTlsAreAnError) {
  EXPECT_EQ(ReadAfter([&] {
              ASSERT_EQ(::write(sockets_[1], "GET / HTTP/1.1\r\n\r\n", 18), 18);
            }),
            boost::asio::error::no_protocol_option);
}

}  // namespace
}  // namespace cubby::server
