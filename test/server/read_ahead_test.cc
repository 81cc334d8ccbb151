// ReadAhead over scripted BodySources: every byte in order whatever the piece and read sizes,
// a failing or short source ends the pieces after the good ones, and destroying it while the
// reader waits for a free piece (the client went away) joins cleanly.
#include "server/read_ahead.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

namespace cubby::server {
namespace {

// Produces bytes i % 251 for i in [0, size), at most `max_read` per call; fails (or, with
// `short_end`, ends) at `fail_at`. Counts its calls and notes which threads made them.
class PatternSource : public s3api::BodySource {
 public:
  PatternSource(uint64_t size, size_t max_read, uint64_t fail_at = UINT64_MAX,
                bool short_end = false)
      : size_(size), max_read_(max_read), fail_at_(fail_at), short_end_(short_end) {}

  s3api::ReadResult Read(char* buf, size_t n) override {
    reader_thread = std::this_thread::get_id();
    ++calls;
    if (pos_ >= fail_at_) {
      if (short_end_) return {0, s3api::ErrorCode::kNone};
      return {0, s3api::ErrorCode::kInternalError};
    }
    const uint64_t end = std::min<uint64_t>({pos_ + n, pos_ + max_read_, size_, fail_at_});
    const size_t got = static_cast<size_t>(end - pos_);
    for (size_t i = 0; i < got; ++i) buf[i] = static_cast<char>((pos_ + i) % 251);
    pos_ = end;
    return {got, s3api::ErrorCode::kNone};
  }

  std::atomic<int> calls{0};
  std::thread::id reader_thread;

 private:
  uint64_t size_, pos_ = 0;
  size_t max_read_;
  uint64_t fail_at_;
  bool short_end_;
};

std::string Expected(uint64_t from, uint64_t to) {
  std::string out;
  for (uint64_t i = from; i < to; ++i) out.push_back(static_cast<char>(i % 251));
  return out;
}

std::string Drain(ReadAhead& ahead, size_t* pieces = nullptr) {
  std::string out;
  std::string_view piece;
  size_t n = 0;
  while (ahead.Next(&piece)) {
    EXPECT_FALSE(piece.empty());
    out.append(piece);
    ++n;
  }
  if (pieces) *pieces = n;
  return out;
}

TEST(ReadAheadTest, EveryByteInOrder) {
  struct Case {
    uint64_t size;
    size_t max_read, piece_size, pieces;
  } cases[] = {
      {1, 1, 4096, 2},           {4096, 4096, 4096, 2},    {4097, 4096, 4096, 2},
      {1 << 20, 1000, 65536, 4}, {(1 << 20) + 3, 1 << 20, 65536, 3}, {10'000'019, 333'333, 262144, 4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("size " + std::to_string(c.size) + " max_read " + std::to_string(c.max_read));
    PatternSource source(c.size, c.max_read);
    size_t pieces = 0;
    std::string got;
    {
      ReadAhead ahead(source, c.size, c.piece_size, c.pieces);
      ASSERT_TRUE(ahead.started());
      got = Drain(ahead, &pieces);
      EXPECT_FALSE(ahead.failed());
    }
    EXPECT_EQ(got.size(), c.size);
    EXPECT_TRUE(got == Expected(0, c.size));
    EXPECT_EQ(pieces, (c.size + c.piece_size - 1) / c.piece_size);
    EXPECT_NE(source.reader_thread, std::this_thread::get_id());
  }
}

TEST(ReadAheadTest, FailureEndsAfterTheGoodBytes) {
  for (bool short_end : {false, true}) {
    SCOPED_TRACE(short_end ? "source ends early" : "source fails");
    const uint64_t fail_at = 300'000;
    PatternSource source(1 << 20, 50'000, fail_at, short_end);
    ReadAhead ahead(source, 1 << 20, 65536, 2);
    ASSERT_TRUE(ahead.started());
    const std::string got = Drain(ahead);
    EXPECT_TRUE(ahead.failed());
    EXPECT_EQ(got.size(), fail_at);  // every byte before the failure, nothing after it
    EXPECT_TRUE(got == Expected(0, fail_at));
    std::string_view piece;
    EXPECT_FALSE(ahead.Next(&piece));  // and it stays ended
  }
}

TEST(ReadAheadTest, DestroyedWhileTheReaderWaitsForAPiece) {
  PatternSource source(64 << 20, 1 << 20);
  {
    ReadAhead ahead(source, 64 << 20, 65536, 2);
    ASSERT_TRUE(ahead.started());
    std::string_view piece;
    ASSERT_TRUE(ahead.Next(&piece));  // the consumer takes one piece and goes away
    EXPECT_EQ(piece.size(), 65536u);
  }
  // The reader stopped at the ring's size: it read at most the pieces it had room for, not the
  // 64 MiB a runaway reader would have.
  EXPECT_LE(source.calls.load(), 3);
}

}  // namespace
}  // namespace cubby::server
