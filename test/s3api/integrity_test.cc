// PutObject's integrity checks through S3Service::Handle: additional checksums (header,
// trailer, computed), aws-chunked bodies in the three streaming modes, and that a failed upload
// leaves nothing behind. Then ReceiveBody's large-body path (MD5 on a worker thread), through the
// service and called directly with scripted bodies and sinks.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "s3api/auth/checksum.h"
#include "test/s3api/service_fixture.h"
#include "text/encoding.h"

namespace cubby::s3api {
namespace {

using namespace test_support;  // NOLINT: the fixture

class IntegrityTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    MakeBucket("bkt");
  }
  Reply PutChunked(std::string key, auth::ChunkedBodyInput in, std::vector<Header> headers = {},
                   std::function<void(std::string*)> tamper = nullptr) {
    Req r;
    r.method = "PUT";
    r.path = "/bkt/" + key;
    r.headers = std::move(headers);
    r.chunked = std::move(in);
    r.tamper = std::move(tamper);
    return Send(std::move(r));
  }
  const std::string data_ = std::string(9000, 'q') + "end";
};

TEST_F(IntegrityTest, ChecksumHeaderPerAlgorithm) {
  for (auth::ChecksumAlgorithm a : auth::kAllChecksumAlgorithms) {
    const std::string header(auth::ChecksumHeaderName(a));
    SCOPED_TRACE(header);
    const std::string good = auth::ComputeChecksum(a, data_);
    Reply put = Put("/bkt/k", data_, {{header, good}});
    ASSERT_EQ(put.status(), 200) << put.body;
    EXPECT_EQ(put.Header(header), good);
    Reply with_mode = Get("/bkt/k", {{"x-amz-checksum-mode", "ENABLED"}});
    EXPECT_EQ(with_mode.Header(header), good);
    EXPECT_EQ(with_mode.Header("x-amz-checksum-type"), "FULL_OBJECT");
    EXPECT_EQ(Get("/bkt/k").Header(header), "<absent>");
    Reply ranged = Get("/bkt/k", {{"x-amz-checksum-mode", "ENABLED"}, {"range", "bytes=0-9"}});
    EXPECT_EQ(ranged.status(), 206);
    EXPECT_EQ(ranged.Header(header), "<absent>");

    ASSERT_EQ(Do("DELETE", "/bkt/k").status(), 204);
    Reply bad = Put("/bkt/k", data_, {{header, auth::ComputeChecksum(a, "other")}});
    EXPECT_EQ(bad.status(), 400);
    EXPECT_EQ(bad.Code(), "BadDigest");
    EXPECT_FALSE(ObjectExists("bkt", "k"));
    EXPECT_EQ(Put("/bkt/k", data_, {{header, "not base64!"}}).Code(), "InvalidRequest");
    EXPECT_EQ(Put("/bkt/k", data_, {{header, text::Base64Encode("short")}}).Code(),
              "InvalidRequest");
    EXPECT_FALSE(ObjectExists("bkt", "k"));
  }
}

TEST_F(IntegrityTest, MoreThanOneChecksumIsInvalid) {
  Reply r = Put("/bkt/k", data_,
                {{"x-amz-checksum-crc32", auth::ComputeChecksum(auth::ChecksumAlgorithm::kCrc32, data_)},
                 {"x-amz-checksum-sha1", auth::ComputeChecksum(auth::ChecksumAlgorithm::kSha1, data_)}});
  EXPECT_EQ(r.Code(), "InvalidRequest");
  EXPECT_FALSE(ObjectExists("bkt", "k"));
}

TEST_F(IntegrityTest, AlgorithmWithoutValueIsComputed) {
  Reply r = Put("/bkt/k", data_, {{"x-amz-sdk-checksum-algorithm", "CRC32C"}});
  ASSERT_EQ(r.status(), 200) << r.body;
  std::string expected = auth::ComputeChecksum(auth::ChecksumAlgorithm::kCrc32c, data_);
  EXPECT_EQ(r.Header("x-amz-checksum-crc32c"), expected);
  Req head;
  head.method = "HEAD";
  head.path = "/bkt/k";
  head.headers = {{"x-amz-checksum-mode", "ENABLED"}};
  EXPECT_EQ(Send(head).Header("x-amz-checksum-crc32c"), expected);
}

TEST_F(IntegrityTest, StreamingModes) {
  const std::string crc = auth::ComputeChecksum(auth::ChecksumAlgorithm::kCrc32, data_);
  struct Case {
    auth::PayloadMode mode;
    std::vector<Header> trailers;
  };
  for (const Case& c : std::vector<Case>{
           {auth::PayloadMode::kStreamingSigned, {}},
           {auth::PayloadMode::kStreamingSignedTrailer, {{"x-amz-checksum-crc32", crc}}},
           {auth::PayloadMode::kStreamingUnsignedTrailer, {{"x-amz-checksum-crc32", crc}}},
       }) {
    SCOPED_TRACE(std::string(ModeName(c.mode)));
    auth::ChunkedBodyInput in{.mode = c.mode, .data = data_, .chunk_size = 4096,
                              .trailers = c.trailers};
    Reply r = PutChunked("k", in, {{"content-encoding", "gzip"}});
    ASSERT_EQ(r.status(), 200) << r.body;
    EXPECT_EQ(r.Header("ETag"), "\"" + Md5Hex(data_) + "\"");
    Reply got = Get("/bkt/k", {{"x-amz-checksum-mode", "ENABLED"}});
    EXPECT_EQ(got.body, data_);
    // "aws-chunked" is framing, not an encoding of the stored object.
    EXPECT_EQ(got.Header("Content-Encoding"), "gzip");
    EXPECT_EQ(got.Header("x-amz-checksum-crc32"), c.trailers.empty() ? "<absent>" : crc);
    ASSERT_EQ(Do("DELETE", "/bkt/k").status(), 204);

    if (!c.trailers.empty()) {
      auth::ChunkedBodyInput wrong = in;
      wrong.trailers = {{"x-amz-checksum-crc32",
                         auth::ComputeChecksum(auth::ChecksumAlgorithm::kCrc32, "x")}};
      EXPECT_EQ(PutChunked("k", wrong).Code(), "BadDigest");
      EXPECT_FALSE(ObjectExists("bkt", "k"));
    }
    Reply truncated =
        PutChunked("k", in, {}, [](std::string* body) { body->resize(body->size() / 2); });
    EXPECT_EQ(truncated.Code(), "IncompleteBody");
    EXPECT_FALSE(ObjectExists("bkt", "k"));
  }
}

TEST_F(IntegrityTest, BadChunkSignatureStoresNothing) {
  auth::ChunkedBodyInput in{.data = data_, .chunk_size = 4096};
  Reply r = PutChunked("k", in, {}, [](std::string* body) { (*body)[body->size() - 40] ^= 1; });
  EXPECT_EQ(r.status(), 403);
  EXPECT_EQ(r.Code(), "SignatureDoesNotMatch");
  EXPECT_FALSE(ObjectExists("bkt", "k"));
  storage::Result<uint64_t> chunks = store_->DebugCountDataPieces();
  ASSERT_TRUE(chunks.ok());
  EXPECT_EQ(*chunks, 0u);
}

TEST_F(IntegrityTest, ContentEncodingListDropsOnlyAwsChunked) {
  auth::ChunkedBodyInput in{.data = "small"};
  ASSERT_EQ(PutChunked("a", in, {{"content-encoding", "aws-chunked"}}).status(), 200);
  EXPECT_EQ(Get("/bkt/a").Header("Content-Encoding"), "<absent>");
  ASSERT_EQ(PutChunked("b", in, {{"content-encoding", "aws-chunked, br"}}).status(), 200);
  EXPECT_EQ(Get("/bkt/b").Header("Content-Encoding"), "br");
}

TEST_F(IntegrityTest, DecodedLengthIsTheObjectSize) {
  Req r;
  r.method = "PUT";
  r.path = "/bkt/huge";
  r.chunked = auth::ChunkedBodyInput{.data = "x"};
  r.tamper = nullptr;
  // The fixture declares the real decoded size; claim more than 5 GiB instead.
  r.headers = {{"x-amz-decoded-content-length", std::to_string((5ull << 30) + 1)}};
  Reply reply = Send(r);
  EXPECT_EQ(reply.Code(), "EntityTooLarge");
  EXPECT_FALSE(ObjectExists("bkt", "huge"));
}


// ---- Large bodies: MD5 on a worker thread while the caller receives and stores.

// Bytes that differ from piece to piece, so that pieces hashed out of order or twice change
// the MD5.
std::string Pattern(size_t n, uint32_t seed = 1) {
  std::string out(n, '\0');
  uint32_t x = seed;
  for (char& c : out) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<char>(x >> 24);
  }
  return out;
}

// The calling process's thread count, from /proc/self/status.
int ThreadCount() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return -1;
}

// The thread count once a joined thread has left the process. pthread_join returns when the
// kernel clears the thread's id, which is before the kernel removes the thread from the group
// that /proc counts, so right after a join the count can still include it for a moment. A
// thread that was not joined (still running, or leaked) keeps the count up past the deadline.
int ThreadCountSettlingAt(int expected) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  int count = ThreadCount();
  while (count > expected && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
    count = ThreadCount();
  }
  return count;
}

constexpr uint64_t kOverlap = kReceiveOverlapBytes;
constexpr uint64_t kPiece = kReceivePieceBytes;

// Sizes around the overlap threshold, around piece and ring boundaries, and odd ones.
const std::vector<uint64_t> kLargeSizes = {
    kOverlap - 1,         kOverlap,         kOverlap + 1,   kOverlap + kPiece - 1,
    kOverlap + kPiece,    kOverlap + kPiece + 1,  9 * kPiece + 1, kOverlap + 3 * kPiece + 12345,
};

TEST_F(IntegrityTest, LargeBodiesThroughTheService) {
  for (uint64_t size : kLargeSizes) {
    SCOPED_TRACE(size);
    const std::string data = Pattern(size, static_cast<uint32_t>(size));
    // Signed payload (the fixture signs the body's SHA-256), Content-MD5 and a checksum.
    const std::string crc = auth::ComputeChecksum(auth::ChecksumAlgorithm::kCrc32c, data);
    Reply put = Put("/bkt/big", data,
                    {{"content-md5", text::Base64Encode(auth::Md5(data))},
                     {"x-amz-checksum-crc32c", crc}});
    ASSERT_EQ(put.status(), 200) << put.body;
    EXPECT_EQ(put.Header("ETag"), "\"" + Md5Hex(data) + "\"");
    EXPECT_EQ(put.Header("x-amz-checksum-crc32c"), crc);
    Reply got = Get("/bkt/big");
    EXPECT_EQ(got.body.size(), data.size());
    EXPECT_TRUE(got.body == data);
  }
}

TEST_F(IntegrityTest, LargeBodyErrorsStoreNothing) {
  const std::string data = Pattern(kOverlap + 2 * kPiece + 7);
  Reply bad_md5 = Put("/bkt/k", data, {{"content-md5", text::Base64Encode(auth::Md5("x"))}});
  EXPECT_EQ(bad_md5.Code(), "BadDigest");
  Reply bad_crc = Put("/bkt/k", data,
                      {{"x-amz-checksum-crc32",
                        auth::ComputeChecksum(auth::ChecksumAlgorithm::kCrc32, "x")}});
  EXPECT_EQ(bad_crc.Code(), "BadDigest");

  Req short_body;
  short_body.method = "PUT";
  short_body.path = "/bkt/k";
  short_body.body = data;
  short_body.content_length = std::optional<uint64_t>(data.size() + kPiece);
  short_body.payload_sha256 = "UNSIGNED-PAYLOAD";
  EXPECT_EQ(Send(short_body).Code(), "IncompleteBody");

  Req wrong_sha = short_body;
  wrong_sha.content_length.reset();
  wrong_sha.payload_sha256 = text::HexEncode(auth::Sha256("x"));
  EXPECT_EQ(Send(wrong_sha).Code(), "XAmzContentSHA256Mismatch");

  auth::ChunkedBodyInput in{.data = data, .chunk_size = 300000};
  Reply truncated =
      PutChunked("k", in, {}, [](std::string* body) { body->resize(body->size() - 100); });
  EXPECT_EQ(truncated.Code(), "IncompleteBody");

  EXPECT_FALSE(ObjectExists("bkt", "k"));
  storage::Result<uint64_t> chunks = store_->DebugCountDataPieces();
  ASSERT_TRUE(chunks.ok());
  EXPECT_EQ(*chunks, 0u);
}

TEST_F(IntegrityTest, LargeChunkedBodies) {
  const std::string data = Pattern(kOverlap + 3 * kPiece + 12345);
  const std::string crc = auth::ComputeChecksum(auth::ChecksumAlgorithm::kCrc32, data);
  for (auth::PayloadMode mode : {auth::PayloadMode::kStreamingSigned,
                                 auth::PayloadMode::kStreamingSignedTrailer,
                                 auth::PayloadMode::kStreamingUnsignedTrailer}) {
    SCOPED_TRACE(std::string(ModeName(mode)));
    std::vector<Header> trailers;
    if (mode != auth::PayloadMode::kStreamingSigned) trailers = {{"x-amz-checksum-crc32", crc}};
    auth::ChunkedBodyInput in{.mode = mode, .data = data, .chunk_size = 65536 + 3,
                              .trailers = trailers};
    Reply r = PutChunked("k", in);
    ASSERT_EQ(r.status(), 200) << r.body;
    EXPECT_EQ(r.Header("ETag"), "\"" + Md5Hex(data) + "\"");
    EXPECT_TRUE(Get("/bkt/k").body == data);
  }
}

// ReceiveBody called directly: a scripted body and a sink that records what it gets.
class ReceiveBodyTest : public ::testing::Test {
 protected:
  // Delivers `data` at most `step` bytes per Read; with `fail`, answers `fail` instead of the
  // bytes from `fail_at` on.
  class ScriptedBody : public BodyReader {
   public:
    ScriptedBody(std::string data, size_t step, ErrorCode fail = ErrorCode::kNone,
                 size_t fail_at = 0)
        : data_(std::move(data)), step_(step), fail_(fail), fail_at_(fail_at) {}
    ReadResult Read(char* buf, size_t n) override {
      size_t end = fail_ != ErrorCode::kNone ? fail_at_ : data_.size();
      if (pos_ >= end && fail_ != ErrorCode::kNone) return {0, fail_};
      size_t count = std::min({n, step_, end - pos_});
      std::copy_n(data_.data() + pos_, count, buf);
      pos_ += count;
      return {count, ErrorCode::kNone};
    }
    size_t delivered() const { return pos_; }

   private:
    std::string data_;
    size_t step_;
    ErrorCode fail_;
    size_t fail_at_;
    size_t pos_ = 0;
  };

  struct Outcome {
    Failure error;
    ReceivedBody out;
    std::string stored;        // everything the sink got, in order
    size_t largest_piece = 0;
    bool saw_worker = false;   // a thread more than before the call, seen from the sink
    int threads_before = 0;
    int threads_after = 0;
  };

  // `length`: the declared Content-Length (nullopt: chunked transfer-encoding). The sink fails
  // (IOError) on the piece that would take it past `sink_limit` bytes.
  Outcome Receive(ScriptedBody& body, std::optional<uint64_t> length,
                  uint64_t max_size = kMaxObjectBytes, uint64_t sink_limit = UINT64_MAX) {
    HttpRequest request;
    request.method = "PUT";
    request.target = "/bkt/k";
    request.request_id = "REQ1";
    request.content_length = length;
    if (!length) request.headers.push_back({"transfer-encoding", "chunked"});
    Route route;
    route.op = Operation::kPutObject;
    route.bucket = "bkt";
    route.key = "k";
    route.path = "/bkt/k";
    auth::AuthResult auth;  // UNSIGNED-PAYLOAD
    ServiceOptions options;
    CountingBodyReader counted(body);
    Context ctx{request, counted, route, auth, nullptr, options, system_clock::now(), &summary_};
    Outcome o;
    o.threads_before = ThreadCount();
    BodySink sink = [&](std::string_view piece) {
      if (ThreadCount() > o.threads_before) o.saw_worker = true;
      if (o.stored.size() + piece.size() > sink_limit) {
        return storage::Status(storage::Code::kIOError, "disk full");
      }
      o.stored.append(piece);
      o.largest_piece = std::max(o.largest_piece, piece.size());
      return storage::Status::Ok();
    };
    o.error = ReceiveBody(ctx, max_size, std::nullopt, sink, &o.out);
    o.threads_after = ThreadCountSettlingAt(o.threads_before);
    return o;
  }

  RequestSummary summary_;
};

TEST_F(ReceiveBodyTest, Md5AcrossPieceBoundaries) {
  for (uint64_t size : kLargeSizes) {
    for (size_t step : {size_t{65536}, size_t{7919}}) {
      for (bool declared : {true, false}) {
        SCOPED_TRACE(testing::Message() << "size " << size << " step " << step
                                        << (declared ? " declared" : " chunked"));
        const std::string data = Pattern(size, static_cast<uint32_t>(size + step));
        ScriptedBody body(data, step);
        Outcome o = Receive(body, declared ? std::optional<uint64_t>(size) : std::nullopt);
        ASSERT_FALSE(o.error) << o.error.response().body;
        EXPECT_EQ(o.out.size, size);
        EXPECT_EQ(o.out.md5, auth::Md5(data));
        EXPECT_TRUE(o.stored == data);
        EXPECT_LE(o.largest_piece, kPiece);
        // The worker runs when the body is above the threshold (the sink sees it from the
        // second piece on), and is gone after. A body of unknown size switches at the first read
        // that crosses the threshold (at most 64 KiB later).
        if (declared) {
          EXPECT_EQ(o.saw_worker, size > kOverlap);
        }
        if (size <= kOverlap) {
          EXPECT_FALSE(o.saw_worker);
        }
        if (size > kOverlap + 65536 + kPiece) {
          EXPECT_TRUE(o.saw_worker);
        }
        EXPECT_EQ(o.threads_after, o.threads_before);
      }
    }
  }
}

TEST_F(ReceiveBodyTest, ReadErrorMidBodyStopsTheWorker) {
  const std::string data = Pattern(kOverlap + 4 * kPiece);
  for (bool declared : {true, false}) {
    SCOPED_TRACE(declared ? "declared" : "chunked");
    const size_t fail_at = kOverlap + 2 * kPiece + kPiece / 2;
    ScriptedBody body(data, 65536, ErrorCode::kRequestTimeout, fail_at);
    Outcome o = Receive(body, declared ? std::optional<uint64_t>(data.size()) : std::nullopt);
    ASSERT_TRUE(o.error);
    EXPECT_EQ(o.error.response().status, 400);
    EXPECT_EQ(summary_.error, "RequestTimeout");
    EXPECT_EQ(body.delivered(), fail_at);
    EXPECT_TRUE(o.saw_worker);
    EXPECT_EQ(o.threads_after, o.threads_before);
    // The sink got (at most) what was read before the failure; the caller commits nothing.
    EXPECT_LE(o.stored.size(), fail_at);
    EXPECT_TRUE(data.compare(0, o.stored.size(), o.stored) == 0);
  }
}

TEST_F(ReceiveBodyTest, SinkErrorOnTheLargePath) {
  const std::string data = Pattern(kOverlap + 4 * kPiece);
  ScriptedBody body(data, 65536);
  Outcome o =
      Receive(body, std::nullopt, kMaxObjectBytes, /*sink_limit=*/kOverlap + 2 * kPiece + 1);
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error.response().status, 500);
  EXPECT_EQ(summary_.error, "InternalError");
  EXPECT_TRUE(Contains(summary_.error_detail, "disk full")) << summary_.error_detail;
  EXPECT_TRUE(o.saw_worker);
  EXPECT_EQ(o.threads_after, o.threads_before);
  EXPECT_LT(body.delivered(), data.size());
}

TEST_F(ReceiveBodyTest, TooLargeOnTheLargePath) {
  const std::string data = Pattern(kOverlap + 4 * kPiece);
  ScriptedBody body(data, 65536);
  const uint64_t max_size = kOverlap + 2 * kPiece + 5;
  Outcome o = Receive(body, std::nullopt, max_size);
  ASSERT_TRUE(o.error);
  EXPECT_EQ(summary_.error, "EntityTooLarge");
  EXPECT_TRUE(o.saw_worker);
  EXPECT_EQ(o.threads_after, o.threads_before);
  EXPECT_LE(o.stored.size(), max_size);
}

}  // namespace
}  // namespace cubby::s3api
