#include "server/poll_stream.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <thread>

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

}  // namespace
}  // namespace cubby::server
