// Fuzzes the body decoders behind auth::WrapBody, every payload mode (a whole-body sha256, and
// aws-chunked with signed chunks, signed trailers or unsigned trailers), reading from memory in
// pieces of a size the input picks. The input format is in fuzz/payload.h. The decoders must
// never read past what they were given, never return more than asked, and never go on
// producing bytes after an error.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/keys.h"
#include "fuzz/payload.h"
#include "s3api/auth/payload.h"
#include "s3api/auth/sigv4.h"
#include "text/ascii.h"

namespace {

using namespace cubby;
using s3api::auth::PayloadMode;

// Hands the body over at most `piece` bytes at a time.
class PieceReader : public s3api::BodyReader {
 public:
  PieceReader(std::string_view data, size_t piece) : data_(data), piece_(piece) {}
  s3api::ReadResult Read(char* buf, size_t n) override {
    size_t k = std::min({n, piece_, data_.size()});
    std::copy_n(data_.data(), k, buf);
    data_.remove_prefix(k);
    return {k, s3api::ErrorCode::kNone};
  }

 private:
  std::string_view data_;
  size_t piece_;
};

// The next space- or newline-separated field of the settings line.
std::string_view Field(std::string_view* line) {
  size_t end = line->find(' ');
  std::string_view field = line->substr(0, end);
  line->remove_prefix(end == std::string_view::npos ? line->size() : end + 1);
  return field;
}

s3api::auth::AuthResult Settings(std::string_view line, size_t* piece) {
  s3api::auth::AuthResult auth;
  auth.anonymous = false;
  uint64_t mode = 0, decoded = 0, k = 1;
  (void)text::ParseUint64(Field(&line), &mode);
  (void)text::ParseUint64(Field(&line), &decoded);
  (void)text::ParseUint64(Field(&line), &k);
  auth.payload = static_cast<PayloadMode>(mode % 5);
  auth.decoded_content_length = decoded;
  *piece = std::clamp<uint64_t>(k, 1, 1 << 20);
  std::string_view names = Field(&line);
  while (!names.empty() && names != "-") {
    size_t comma = names.find(',');
    auth.trailer_names.emplace_back(names.substr(0, comma));
    names.remove_prefix(comma == std::string_view::npos ? names.size() : comma + 1);
  }
  auth.payload_sha256 = std::string(Field(&line));
  auth.amz_date = std::string(fuzz::kAmzDate);
  auth.scope = std::string(fuzz::kScope);
  auth.seed_signature = std::string(fuzz::kSeedSignature);
  static const std::string signing_key = s3api::auth::sigv4::SigningKey(
      fuzz::kSecretKey, fuzz::kAmzDate.substr(0, 8), fuzz::kRegion, "s3");
  auth.signing_key = signing_key;
  return auth;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t newline = input.find('\n');
  if (newline == std::string_view::npos) return 0;
  size_t piece = 1;
  s3api::auth::AuthResult auth = Settings(input.substr(0, newline), &piece);
  std::string_view body = input.substr(newline + 1);
  auto reader = s3api::auth::WrapBody(auth, std::make_unique<PieceReader>(body, piece));
  // Read sizes vary too, so a decoded chunk is split across calls.
  static constexpr size_t kSizes[] = {1, 3, 64, 4096, 7};
  std::vector<char> buf(4096);
  uint64_t total = 0;
  bool clean_end = false;
  for (size_t i = 0;; ++i) {
    size_t want = kSizes[i % std::size(kSizes)];
    s3api::ReadResult r = reader->Read(buf.data(), want);
    if (r.n > want) std::abort();  // more bytes than asked for
    if (r.error != s3api::ErrorCode::kNone) {
      // An error is sticky: the next Read repeats it and produces nothing.
      s3api::ReadResult again = reader->Read(buf.data(), want);
      if (again.n != 0 || again.error != r.error) std::abort();
      (void)reader->error_message();
      break;
    }
    if (r.n == 0) {
      clean_end = true;
      break;
    }
    total += r.n;
  }
  // A body that ended cleanly in a streaming mode has exactly the declared decoded length.
  const bool streaming =
      auth.payload != PayloadMode::kUnsigned && auth.payload != PayloadMode::kSha256;
  if (clean_end && streaming && total != auth.decoded_content_length) std::abort();
  for (const auto& t : reader->trailers()) (void)t;
  return 0;
}
