// WrapBody: the x-amz-content-sha256 check runs while the body streams and reports a mismatch
// on the Read that would return end of body, after every byte has been handed on.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "s3api/auth/auth.h"
#include "s3api/auth/crypto.h"
#include "text/encoding.h"

namespace cubby::s3api::auth {
namespace {

// Hands out `data` at most `piece` bytes per Read, then end of body, or `error` after
// `fail_after` bytes.
class PieceReader : public BodyReader {
 public:
  PieceReader(std::string data, size_t piece, size_t fail_after = std::string::npos,
              ErrorCode error = ErrorCode::kNone)
      : data_(std::move(data)), piece_(piece), fail_after_(fail_after), error_(error) {}

  ReadResult Read(char* buf, size_t n) override {
    if (pos_ >= fail_after_) return {0, error_};
    const size_t limit = std::min({n, piece_, data_.size() - pos_, fail_after_ - pos_});
    std::copy_n(data_.data() + pos_, limit, buf);
    pos_ += limit;
    return {limit, ErrorCode::kNone};
  }

 private:
  std::string data_;
  size_t piece_;
  size_t pos_ = 0;
  size_t fail_after_;
  ErrorCode error_;
};

struct Drained {
  std::string bytes;
  ErrorCode final_error = ErrorCode::kNone;
  int reads = 0;
};

// Reads until a zero-byte result; records what came out and how it ended.
Drained Drain(BodyReader& reader, size_t buf_size) {
  Drained d;
  std::vector<char> buf(buf_size);
  while (true) {
    ++d.reads;
    const ReadResult r = reader.Read(buf.data(), buf.size());
    if (r.n > 0) {
      EXPECT_EQ(r.error, ErrorCode::kNone);
    }
    d.bytes.append(buf.data(), r.n);
    if (r.n == 0 || r.error != ErrorCode::kNone) {
      d.final_error = r.error;
      return d;
    }
  }
}

AuthResult Sha256Auth(std::string_view body) {
  AuthResult a;
  a.anonymous = false;
  a.payload = PayloadMode::kSha256;
  a.payload_sha256 = text::HexEncode(Sha256(body));
  return a;
}

std::string Body() {
  std::string body;
  for (int i = 0; i < 5000; ++i) body.push_back(static_cast<char>(i * 31 + 7));
  return body;
}

TEST(WrapBodyTest, CorrectSha256PassesEveryByteInAnyPieceSize) {
  const std::string body = Body();
  for (size_t piece : {1u, 3u, 64u, 4096u, 100000u}) {
    for (size_t buf : {1u, 7u, 65536u}) {
      SCOPED_TRACE(testing::Message() << "piece=" << piece << " buf=" << buf);
      auto reader = WrapBody(Sha256Auth(body), std::make_unique<PieceReader>(body, piece));
      const Drained d = Drain(*reader, buf);
      EXPECT_EQ(d.bytes, body);
      EXPECT_EQ(d.final_error, ErrorCode::kNone);
      // End of body stays end of body.
      char c;
      const ReadResult again = reader->Read(&c, 1);
      EXPECT_EQ(again.n, 0u);
      EXPECT_EQ(again.error, ErrorCode::kNone);
    }
  }
}

TEST(WrapBodyTest, WrongSha256FailsOnlyOnTheFinalRead) {
  const std::string body = Body();
  AuthResult auth = Sha256Auth(body);
  auth.payload_sha256 = text::HexEncode(Sha256(body + "x"));
  for (size_t piece : {1u, 100u, 100000u}) {
    SCOPED_TRACE(piece);
    auto reader = WrapBody(auth, std::make_unique<PieceReader>(body, piece));
    const Drained d = Drain(*reader, 4096);
    EXPECT_EQ(d.bytes, body);  // nothing lost or withheld before the verdict
    EXPECT_EQ(d.final_error, ErrorCode::kXAmzContentSHA256Mismatch);
    char c;
    EXPECT_EQ(reader->Read(&c, 1).error, ErrorCode::kXAmzContentSHA256Mismatch);
  }
}

TEST(WrapBodyTest, EmptyBody) {
  auto ok = WrapBody(Sha256Auth(""), std::make_unique<PieceReader>("", 10));
  EXPECT_EQ(Drain(*ok, 10).final_error, ErrorCode::kNone);
  auto bad = WrapBody(Sha256Auth("a"), std::make_unique<PieceReader>("", 10));
  const Drained d = Drain(*bad, 10);
  EXPECT_EQ(d.reads, 1);
  EXPECT_EQ(d.final_error, ErrorCode::kXAmzContentSHA256Mismatch);
}

TEST(WrapBodyTest, TruncatedBodyIsAMismatch) {
  const std::string body = Body();
  auto reader =
      WrapBody(Sha256Auth(body), std::make_unique<PieceReader>(body.substr(0, 4999), 512));
  EXPECT_EQ(Drain(*reader, 512).final_error, ErrorCode::kXAmzContentSHA256Mismatch);
}

TEST(WrapBodyTest, UnderlyingErrorPassesThrough) {
  const std::string body = Body();
  auto reader = WrapBody(Sha256Auth(body), std::make_unique<PieceReader>(
                                               body, 100, 1000, ErrorCode::kIncompleteBody));
  const Drained d = Drain(*reader, 4096);
  EXPECT_EQ(d.bytes, body.substr(0, 1000));
  EXPECT_EQ(d.final_error, ErrorCode::kIncompleteBody);
}

TEST(WrapBodyTest, UnsignedPassesTheRawBytesWithoutTrailers) {
  AuthResult auth;
  auth.payload = PayloadMode::kUnsigned;
  auto reader = WrapBody(auth, std::make_unique<PieceReader>("abc", 1));
  EXPECT_EQ(Drain(*reader, 8).bytes, "abc");
  EXPECT_TRUE(reader->trailers().empty());
  EXPECT_EQ(reader->error_message(), "");
}

}  // namespace
}  // namespace cubby::s3api::auth
