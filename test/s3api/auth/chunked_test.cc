// aws-chunked decoding through WrapBody: AWS's published STREAMING-AWS4-HMAC-SHA256-PAYLOAD
// example end to end, round trips of all three modes at many read sizes, and one case per
// error path (signatures, trailers, framing, truncation at every byte, lengths).
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "s3api/auth/auth.h"
#include "s3api/auth/checksum.h"
#include "s3api/auth/crypto.h"
#include "s3api/auth/signer.h"
#include "s3api/auth/sigv4.h"
#include "text/encoding.h"

namespace cubby::s3api::auth {
namespace {

constexpr std::string_view kSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
constexpr std::string_view kAmzDate = "20130524T000000Z";
constexpr std::string_view kScope = "20130524/us-east-1/s3/aws4_request";
// From the AWS example: seed signature and the three chunk signatures.
constexpr std::string_view kSeed =
    "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9";
constexpr std::string_view kSig1 =
    "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648";
constexpr std::string_view kSig2 =
    "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497";
constexpr std::string_view kSigFinal =
    "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9";

// Hands out `data` at most `piece` bytes per Read; then end of body, or `error`.
class PieceReader : public BodyReader {
 public:
  PieceReader(std::string data, size_t piece, ErrorCode error = ErrorCode::kNone)
      : data_(std::move(data)), piece_(piece), error_(error) {}
  ReadResult Read(char* buf, size_t n) override {
    if (pos_ == data_.size()) return {0, error_};
    const size_t k = std::min({n, piece_, data_.size() - pos_});
    std::copy_n(data_.data() + pos_, k, buf);
    pos_ += k;
    return {k, ErrorCode::kNone};
  }

 private:
  std::string data_;
  size_t piece_;
  ErrorCode error_;
  size_t pos_ = 0;
};

AuthResult StreamingAuth(PayloadMode mode, uint64_t decoded_length,
                         std::vector<std::string> trailer_names = {}) {
  AuthResult a;
  a.anonymous = mode == PayloadMode::kStreamingUnsignedTrailer;
  a.payload = mode;
  a.decoded_content_length = decoded_length;
  a.trailer_names = std::move(trailer_names);
  if (mode != PayloadMode::kStreamingUnsignedTrailer) {
    a.signing_key = sigv4::SigningKey(kSecret, "20130524", "us-east-1", "s3");
    a.amz_date = std::string(kAmzDate);
    a.scope = std::string(kScope);
    a.seed_signature = std::string(kSeed);
  }
  return a;
}

struct Decoded {
  std::string bytes;
  ErrorCode error = ErrorCode::kNone;
  std::string message;
  std::vector<Header> trailers;
};

Decoded Decode(const AuthResult& auth, std::string body, size_t piece = 1 << 20,
               size_t buf_size = 64 * 1024, ErrorCode raw_error = ErrorCode::kNone) {
  std::unique_ptr<PayloadReader> reader =
      WrapBody(auth, std::make_unique<PieceReader>(std::move(body), piece, raw_error));
  Decoded d;
  std::vector<char> buf(buf_size);
  for (int guard = 0; guard < 10'000'000; ++guard) {
    const ReadResult r = reader->Read(buf.data(), buf.size());
    EXPECT_LE(r.n, buf.size());
    if (r.n > 0) {
      EXPECT_EQ(r.error, ErrorCode::kNone);
    }
    d.bytes.append(buf.data(), r.n);
    if (r.n == 0 || r.error != ErrorCode::kNone) {
      d.error = r.error;
      d.message = std::string(reader->error_message());
      d.trailers = reader->trailers();
      // The outcome repeats.
      const ReadResult again = reader->Read(buf.data(), buf.size());
      EXPECT_EQ(again.n, 0u);
      EXPECT_EQ(again.error, d.error);
      return d;
    }
  }
  ADD_FAILURE() << "reader never ended";
  return d;
}

// The AWS example body, written out by hand from the published signatures.
std::string AwsExampleBody() {
  std::string body;
  body += "10000;chunk-signature=" + std::string(kSig1) + "\r\n";
  body += std::string(65536, 'a') + "\r\n";
  body += "400;chunk-signature=" + std::string(kSig2) + "\r\n";
  body += std::string(1024, 'a') + "\r\n";
  body += "0;chunk-signature=" + std::string(kSigFinal) + "\r\n\r\n";
  return body;
}

TEST(ChunkedTest, AwsExampleDecodesAtEveryReadSize) {
  const AuthResult auth = StreamingAuth(PayloadMode::kStreamingSigned, 66560);
  const std::string expected(66560, 'a');
  for (size_t piece : {1u, 13u, 4096u, 1u << 20}) {
    for (size_t buf : {1u, 7u, 1000u, 65536u, 70000u, 1u << 20}) {
      if (piece == 1 && buf < 1000) continue;  // slow and adds nothing over piece=13
      SCOPED_TRACE(testing::Message() << "piece=" << piece << " buf=" << buf);
      const Decoded d = Decode(auth, AwsExampleBody(), piece, buf);
      EXPECT_EQ(d.error, ErrorCode::kNone) << d.message;
      EXPECT_TRUE(d.bytes == expected);
      EXPECT_TRUE(d.trailers.empty());
    }
  }
}

TEST(ChunkedTest, EncoderReproducesTheAwsExample) {
  ChunkedBodyInput in;
  in.mode = PayloadMode::kStreamingSigned;
  in.data = std::string(66560, 'a');
  in.chunk_size = 65536;
  in.signing_key = sigv4::SigningKey(kSecret, "20130524", "us-east-1", "s3");
  in.amz_date = std::string(kAmzDate);
  in.scope = std::string(kScope);
  in.seed_signature = std::string(kSeed);
  EXPECT_TRUE(EncodeChunkedBody(in) == AwsExampleBody());
}

ChunkedBodyInput Input(PayloadMode mode, std::string data, size_t chunk_size,
                       std::vector<Header> trailers = {}) {
  const AuthResult auth = StreamingAuth(mode, 0);
  ChunkedBodyInput in;
  in.mode = mode;
  in.data = std::move(data);
  in.chunk_size = chunk_size;
  in.trailers = std::move(trailers);
  in.signing_key = auth.signing_key;
  in.amz_date = auth.amz_date;
  in.scope = auth.scope;
  in.seed_signature = auth.seed_signature;
  return in;
}

std::string RandomData(size_t n, unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

constexpr PayloadMode kModes[] = {PayloadMode::kStreamingSigned,
                                  PayloadMode::kStreamingUnsignedTrailer,
                                  PayloadMode::kStreamingSignedTrailer};

std::string Render(const std::vector<Header>& headers) {
  std::string out;
  for (const Header& h : headers) out += h.name + ":" + h.value + "\n";
  return out;
}

bool HasTrailer(PayloadMode mode) { return mode != PayloadMode::kStreamingSigned; }

TEST(ChunkedTest, RoundTripsInEveryModeAndReadSize) {
  const std::string data = RandomData(20000);
  for (PayloadMode mode : kModes) {
    for (size_t chunk : {1u, 100u, 8192u, 65536u}) {
      const std::vector<Header> trailers =
          HasTrailer(mode)
              ? std::vector<Header>{{"x-amz-checksum-crc32", ComputeChecksum(
                                                                  ChecksumAlgorithm::kCrc32, data)}}
              : std::vector<Header>{};
      const std::string body = EncodeChunkedBody(Input(mode, data, chunk, trailers));
      const AuthResult auth =
          StreamingAuth(mode, data.size(),
                        HasTrailer(mode) ? std::vector<std::string>{"x-amz-checksum-crc32"}
                                         : std::vector<std::string>{});
      for (size_t piece : {7u, 4096u, 1u << 20}) {
        for (size_t buf : {1u, 5000u, 1u << 20}) {
          if (chunk == 1 && buf == 1 && piece == 7) continue;
          SCOPED_TRACE(testing::Message() << "mode=" << static_cast<int>(mode) << " chunk="
                                          << chunk << " piece=" << piece << " buf=" << buf);
          const Decoded d = Decode(auth, body, piece, buf);
          ASSERT_EQ(d.error, ErrorCode::kNone) << d.message;
          EXPECT_TRUE(d.bytes == data);
          EXPECT_EQ(Render(d.trailers), Render(trailers));
        }
      }
    }
  }
}

TEST(ChunkedTest, EmptyBody) {
  for (PayloadMode mode : kModes) {
    SCOPED_TRACE(static_cast<int>(mode));
    const Decoded d = Decode(StreamingAuth(mode, 0), EncodeChunkedBody(Input(mode, "", 10)));
    EXPECT_EQ(d.error, ErrorCode::kNone) << d.message;
    EXPECT_EQ(d.bytes, "");
  }
}

// Flips the first hex digit of the n-th occurrence of `key` + 64 hex digits.
std::string CorruptSignature(std::string body, std::string_view key, int nth) {
  size_t pos = 0;
  for (int i = 0; i <= nth; ++i) {
    pos = body.find(key, i == 0 ? 0 : pos + 1);
    if (pos == std::string::npos) {
      ADD_FAILURE() << "no occurrence " << nth << " of " << key;
      return body;
    }
  }
  char& c = body[pos + key.size()];
  c = c == '0' ? '1' : '0';
  return body;
}

TEST(ChunkedTest, WrongChunkSignatureStopsBeforeTheBadChunksData) {
  const std::string data = RandomData(3000);
  for (PayloadMode mode : {PayloadMode::kStreamingSigned, PayloadMode::kStreamingSignedTrailer}) {
    const std::vector<Header> trailers =
        HasTrailer(mode) ? std::vector<Header>{{"x-amz-checksum-crc32", "AAAAAA=="}}
                         : std::vector<Header>{};
    const std::vector<std::string> names =
        HasTrailer(mode) ? std::vector<std::string>{"x-amz-checksum-crc32"}
                         : std::vector<std::string>{};
    const std::string body = EncodeChunkedBody(Input(mode, data, 1000, trailers));
    // Chunks 0..2 carry data; chunk 3 is the final zero-length one.
    for (int bad = 0; bad <= 3; ++bad) {
      for (size_t buf : {1u, 999u, 1000u, 4096u}) {
        SCOPED_TRACE(testing::Message() << "bad chunk " << bad << " buf=" << buf);
        const Decoded d = Decode(StreamingAuth(mode, data.size(), names),
                                 CorruptSignature(body, "chunk-signature=", bad), 333, buf);
        EXPECT_EQ(d.error, ErrorCode::kSignatureDoesNotMatch);
        EXPECT_EQ(d.bytes, data.substr(0, 1000 * bad));
        EXPECT_FALSE(d.message.empty());
      }
    }
  }
}

TEST(ChunkedTest, TrailerErrors) {
  const std::string data = RandomData(2500);
  const std::string crc = ComputeChecksum(ChecksumAlgorithm::kCrc32, data);
  const std::vector<std::string> crc_name = {"x-amz-checksum-crc32"};
  struct Case {
    std::string name;
    PayloadMode mode;
    std::vector<Header> sent;
    std::vector<std::string> declared;
    ErrorCode expected;
  };
  const std::vector<Case> cases = {
      {"declared trailer missing (signed)", PayloadMode::kStreamingSignedTrailer, {}, crc_name,
       ErrorCode::kInvalidRequest},
      {"declared trailer missing (unsigned)", PayloadMode::kStreamingUnsignedTrailer, {},
       crc_name, ErrorCode::kInvalidRequest},
      {"undeclared trailer", PayloadMode::kStreamingUnsignedTrailer,
       {{"x-amz-checksum-crc32", crc}}, {}, ErrorCode::kInvalidRequest},
      {"other trailer than declared", PayloadMode::kStreamingSignedTrailer,
       {{"x-amz-checksum-sha1", "2jmj7l5rSw0yVb/vlWAYkK/YBwk="}}, crc_name,
       ErrorCode::kInvalidRequest},
      {"repeated trailer", PayloadMode::kStreamingUnsignedTrailer,
       {{"x-amz-checksum-crc32", crc}, {"x-amz-checksum-crc32", crc}}, crc_name,
       ErrorCode::kInvalidRequest},
      {"no trailers at all, none declared", PayloadMode::kStreamingSignedTrailer, {}, {},
       ErrorCode::kNone},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Decoded d = Decode(StreamingAuth(c.mode, data.size(), c.declared),
                             EncodeChunkedBody(Input(c.mode, data, 1000, c.sent)));
    EXPECT_EQ(d.error, c.expected) << d.message;
    EXPECT_EQ(d.bytes, data);  // the chunks themselves were fine
  }
}

TEST(ChunkedTest, TrailerSignature) {
  const std::string data = RandomData(2500);
  const std::vector<Header> trailers = {
      {"x-amz-checksum-crc32", ComputeChecksum(ChecksumAlgorithm::kCrc32, data)}};
  const AuthResult auth =
      StreamingAuth(PayloadMode::kStreamingSignedTrailer, data.size(), {"x-amz-checksum-crc32"});
  const std::string body =
      EncodeChunkedBody(Input(PayloadMode::kStreamingSignedTrailer, data, 1000, trailers));

  // The signature covers the trailer as the string to sign says, chained from the final chunk.
  const std::string final_chunk_sig = body.substr(body.rfind("0;chunk-signature=") + 18, 64);
  const std::string expected_sig = sigv4::Signature(
      auth.signing_key,
      "AWS4-HMAC-SHA256-TRAILER\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n" +
          final_chunk_sig + "\n" +
          text::HexEncode(Sha256("x-amz-checksum-crc32:" + trailers[0].value + "\n")));
  EXPECT_NE(body.find("x-amz-trailer-signature:" + expected_sig + "\r\n\r\n"), std::string::npos);

  Decoded d = Decode(auth, CorruptSignature(body, "x-amz-trailer-signature:", 0));
  EXPECT_EQ(d.error, ErrorCode::kSignatureDoesNotMatch);
  EXPECT_EQ(d.bytes, data);

  // A changed trailer value with the original signature.
  std::string tampered = body;
  const size_t value_pos = tampered.find("x-amz-checksum-crc32:") + 21;
  tampered[value_pos] = tampered[value_pos] == 'A' ? 'B' : 'A';
  d = Decode(auth, tampered);
  EXPECT_EQ(d.error, ErrorCode::kSignatureDoesNotMatch);

  // No signature line at all.
  std::string unsigned_trailer = body;
  const size_t sig_line = unsigned_trailer.find("x-amz-trailer-signature:");
  unsigned_trailer.erase(sig_line, unsigned_trailer.size() - 2 - sig_line);
  d = Decode(auth, unsigned_trailer);
  EXPECT_EQ(d.error, ErrorCode::kSignatureDoesNotMatch) << d.message;

  // A trailer after the signature.
  std::string late = body;
  late.insert(late.size() - 2, "x-amz-checksum-crc32:AAAAAA==\r\n");
  EXPECT_EQ(Decode(auth, late).error, ErrorCode::kInvalidRequest);

  // A trailer signature in the unsigned mode.
  const AuthResult unsigned_auth = StreamingAuth(PayloadMode::kStreamingUnsignedTrailer,
                                                 data.size(), {"x-amz-checksum-crc32"});
  std::string with_sig =
      EncodeChunkedBody(Input(PayloadMode::kStreamingUnsignedTrailer, data, 1000, trailers));
  with_sig.insert(with_sig.size() - 2, "x-amz-trailer-signature:" + expected_sig + "\r\n");
  EXPECT_EQ(Decode(unsigned_auth, with_sig).error, ErrorCode::kInvalidRequest);
}

TEST(ChunkedTest, TruncationAtEveryByteIsIncompleteBody) {
  const std::string data = RandomData(25);
  for (PayloadMode mode : kModes) {
    const std::vector<Header> trailers =
        HasTrailer(mode) ? std::vector<Header>{{"x-amz-checksum-crc32", "AAAAAA=="}}
                         : std::vector<Header>{};
    const std::vector<std::string> names =
        HasTrailer(mode) ? std::vector<std::string>{"x-amz-checksum-crc32"}
                         : std::vector<std::string>{};
    const std::string body = EncodeChunkedBody(Input(mode, data, 10, trailers));
    const AuthResult auth = StreamingAuth(mode, data.size(), names);
    ASSERT_EQ(Decode(auth, body).error, ErrorCode::kNone);
    for (size_t len = 0; len < body.size(); ++len) {
      SCOPED_TRACE(testing::Message() << "mode=" << static_cast<int>(mode) << " len=" << len);
      for (size_t buf : {1u, 4096u}) {
        const Decoded d = Decode(auth, body.substr(0, len), 3, buf);
        EXPECT_EQ(d.error, ErrorCode::kIncompleteBody) << d.message;
        EXPECT_EQ(d.bytes, data.substr(0, d.bytes.size()));
      }
    }
  }
}

TEST(ChunkedTest, FramingErrors) {
  const std::string sig(64, 'a');
  std::string signed_with_trailer =
      EncodeChunkedBody(Input(PayloadMode::kStreamingSigned, "", 10));
  signed_with_trailer.insert(signed_with_trailer.size() - 2, "x-amz-checksum-crc32:AAAAAA==\r\n");
  struct Case {
    std::string name;
    PayloadMode mode;
    uint64_t decoded_length;
    std::string body;
    ErrorCode expected;
  };
  using P = PayloadMode;
  const std::vector<Case> cases = {
      {"size not hex", P::kStreamingUnsignedTrailer, 3, "zz\r\nabc\r\n0\r\n\r\n",
       ErrorCode::kInvalidRequest},
      {"empty size", P::kStreamingUnsignedTrailer, 3, "\r\nabc\r\n0\r\n\r\n",
       ErrorCode::kInvalidRequest},
      {"size with 17 digits", P::kStreamingUnsignedTrailer, 3,
       "00000000000000003\r\nabc\r\n0\r\n\r\n", ErrorCode::kInvalidRequest},
      {"size with a sign", P::kStreamingUnsignedTrailer, 3, "+3\r\nabc\r\n0\r\n\r\n",
       ErrorCode::kInvalidRequest},
      {"chunk over the cap", P::kStreamingUnsignedTrailer, 1ull << 40,
       "1000001\r\nabc", ErrorCode::kInvalidRequest},
      {"line ends in bare LF", P::kStreamingUnsignedTrailer, 3, "3\nabc\r\n0\r\n\r\n",
       ErrorCode::kInvalidRequest},
      {"data not followed by CRLF", P::kStreamingUnsignedTrailer, 3, "3\r\nabcX\n0\r\n\r\n",
       ErrorCode::kInvalidRequest},
      {"chunk header line too long", P::kStreamingUnsignedTrailer, 3,
       "3;" + std::string(5000, 'x') + "\r\nabc\r\n0\r\n\r\n", ErrorCode::kInvalidRequest},
      {"bytes after the end", P::kStreamingUnsignedTrailer, 3, "3\r\nabc\r\n0\r\n\r\nextra",
       ErrorCode::kInvalidRequest},
      {"trailer line without colon", P::kStreamingUnsignedTrailer, 3,
       "3\r\nabc\r\n0\r\nnocolon\r\n\r\n", ErrorCode::kInvalidRequest},
      {"trailer in a mode without trailers", P::kStreamingSigned, 0, signed_with_trailer,
       ErrorCode::kInvalidRequest},
      {"signed chunk without signature", P::kStreamingSigned, 3, "3\r\nabc\r\n",
       ErrorCode::kInvalidRequest},
      {"signature too short", P::kStreamingSigned, 3, "3;chunk-signature=abc\r\nabc\r\n",
       ErrorCode::kInvalidRequest},
      {"signature in uppercase hex", P::kStreamingSigned, 3,
       "3;chunk-signature=" + std::string(64, 'A') + "\r\nabc\r\n", ErrorCode::kInvalidRequest},
      {"other chunk extension", P::kStreamingSigned, 3, "3;foo=" + sig + "\r\nabc\r\n",
       ErrorCode::kInvalidRequest},
      {"more data than decoded length", P::kStreamingUnsignedTrailer, 2,
       "3\r\nabc\r\n0\r\n\r\n", ErrorCode::kIncompleteBody},
      {"less data than decoded length", P::kStreamingUnsignedTrailer, 4,
       "3\r\nabc\r\n0\r\n\r\n", ErrorCode::kIncompleteBody},
      {"unsigned chunk extension is ignored", P::kStreamingUnsignedTrailer, 3,
       "3;ext=1\r\nabc\r\n0\r\n\r\n", ErrorCode::kNone},
      {"uppercase hex size", P::kStreamingUnsignedTrailer, 10,
       "A\r\n0123456789\r\n0\r\n\r\n", ErrorCode::kNone},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Decoded d = Decode(StreamingAuth(c.mode, c.decoded_length), c.body, 5, 64);
    EXPECT_EQ(d.error, c.expected) << d.message;
    if (c.expected != ErrorCode::kNone) {
      EXPECT_FALSE(d.message.empty());
    }
  }
}

TEST(ChunkedTest, RawErrorsPassThrough) {
  const std::string data = RandomData(100);
  const std::string body =
      EncodeChunkedBody(Input(PayloadMode::kStreamingSigned, data, 10)).substr(0, 120);
  const Decoded d = Decode(StreamingAuth(PayloadMode::kStreamingSigned, data.size()), body, 7,
                           64, ErrorCode::kRequestTimeout);
  EXPECT_EQ(d.error, ErrorCode::kRequestTimeout);
}

TEST(ChunkedTest, LargeSignedChunkIsBufferedWhenTheReadBufferIsSmaller) {
  const std::string data = RandomData(3 << 20);
  const std::string body = EncodeChunkedBody(Input(PayloadMode::kStreamingSigned, data, 1 << 20));
  const AuthResult auth = StreamingAuth(PayloadMode::kStreamingSigned, data.size());
  for (size_t buf : {64u << 10, 2u << 20}) {
    const Decoded d = Decode(auth, body, 64 << 10, buf);
    EXPECT_EQ(d.error, ErrorCode::kNone);
    EXPECT_TRUE(d.bytes == data);
  }
}

TEST(ChunkedTest, ChecksumReaderUsesTheTrailer) {
  const std::string data = RandomData(5000);
  for (PayloadMode mode : {PayloadMode::kStreamingUnsignedTrailer,
                           PayloadMode::kStreamingSignedTrailer}) {
    for (bool right : {true, false}) {
      SCOPED_TRACE(testing::Message() << static_cast<int>(mode) << " right=" << right);
      const std::string value =
          ComputeChecksum(ChecksumAlgorithm::kCrc64Nvme, right ? data : data + "x");
      const std::string body = EncodeChunkedBody(
          Input(mode, data, 1024, {{"x-amz-checksum-crc64nvme", value}}));
      std::unique_ptr<PayloadReader> payload =
          WrapBody(StreamingAuth(mode, data.size(), {"x-amz-checksum-crc64nvme"}),
                   std::make_unique<PieceReader>(body, 100));
      const PayloadReader* source = payload.get();
      ChecksumReader reader(std::move(payload), ChecksumAlgorithm::kCrc64Nvme, std::nullopt,
                            source);
      std::string out;
      char buf[300];
      ReadResult r;
      while ((r = reader.Read(buf, sizeof(buf))).n > 0) out.append(buf, r.n);
      EXPECT_TRUE(out == data);
      EXPECT_EQ(r.error, right ? ErrorCode::kNone : ErrorCode::kBadDigest);
      EXPECT_EQ(reader.computed(), ComputeChecksum(ChecksumAlgorithm::kCrc64Nvme, data));
    }
  }
}

}  // namespace
}  // namespace cubby::s3api::auth
