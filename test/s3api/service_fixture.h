// The S3Service test fixture: a real Store in a temp folder, requests signed with
// auth::SignV4 and a fixed clock. Shared by the handler test files.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "s3api/auth/auth.h"
#include "s3api/auth/crypto.h"
#include "s3api/auth/signer.h"
#include "s3api/auth/sigv4.h"
#include "s3api/handlers.h"
#include "s3api/service.h"
#include "storage/store.h"
#include "text/encoding.h"
#include "text/time.h"

namespace cubby::s3api::test_support {

using std::chrono::system_clock;

inline constexpr char kRootId[] = "CBROOTKEY00000000000";
inline constexpr char kRootSecret[] = "rootsecretrootsecretrootsecretrootsecret";
inline constexpr char kReaderId[] = "CBREADER000000000000";  // kReadOnly on "shared"
inline constexpr char kWriterId[] = "CBWRITER000000000000";  // kWriteOnly on "shared"
inline constexpr char kOtherId[] = "CBOTHER0000000000000";   // kReadWrite on "other"
inline constexpr char kKeySecret[] = "keysecretkeysecretkeysecretkeysecret0000";
inline constexpr char kAnonymous[] = "";

inline bool Contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

inline const std::string* FindHeader(const HttpResponse& r, std::string_view name) {
  for (const Header& h : r.headers) {
    if (h.name == name) return &h.value;
  }
  return nullptr;
}

inline std::string HeaderOr(const HttpResponse& r, std::string_view name) {
  const std::string* v = FindHeader(r, name);
  return v ? *v : "<absent>";
}

// The text of the first <tag> element in `body`, with &quot; and &amp; decoded; "<absent>".
inline std::string Tag(const std::string& body, std::string_view tag) {
  std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
  size_t a = body.find(open);
  if (a == std::string::npos) return "<absent>";
  a += open.size();
  std::string raw = body.substr(a, body.find(close, a) - a), out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw.compare(i, 6, "&quot;") == 0) {
      out += '"';
      i += 5;
    } else if (raw.compare(i, 5, "&amp;") == 0) {
      out += '&';
      i += 4;
    } else {
      out += raw[i];
    }
  }
  return out;
}

inline size_t Count(const std::string& body, std::string_view needle) {
  size_t n = 0;
  for (size_t p = body.find(needle); p != std::string::npos; p = body.find(needle, p + 1)) ++n;
  return n;
}

struct Req {
  std::string method = "GET";
  std::string path = "/";  // URI-encoded
  std::string query;       // encoded, without '?'
  std::vector<Header> headers;
  std::string body;
  std::string key_id = kRootId;      // kAnonymous for unsigned requests
  std::string service = "s3";        // the SigV4 scope's service ("iam" for the IAM API)
  std::string region = "us-east-1";  // the SigV4 scope's region
  std::optional<std::optional<uint64_t>> content_length;  // override; default body.size()
  std::optional<std::string> payload_sha256;              // override what is signed
  // Send `chunked->data` aws-chunked in chunked->mode (signing fields are filled in by Send);
  // `tamper` may then change the encoded body.
  std::optional<auth::ChunkedBodyInput> chunked;
  std::function<void(std::string*)> tamper;
};

struct Reply {
  HttpResponse response;
  std::string body;  // response.body or everything the source produced
  size_t file_spans = 0;  // pieces of `body` the source gave as file spans
  RequestSummary summary;
  int status() const { return response.status; }
  std::string Header(std::string_view name) const { return HeaderOr(response, name); }
  // The <Code> of an error document.
  std::string Code() const {
    size_t a = body.find("<Code>"), b = body.find("</Code>");
    if (a == std::string::npos || b == std::string::npos) return "<none>";
    return body.substr(a + 6, b - a - 6);
  }
};

inline std::string_view ModeName(auth::PayloadMode mode) {
  switch (mode) {
    case auth::PayloadMode::kStreamingSigned: return "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
    case auth::PayloadMode::kStreamingUnsignedTrailer: return "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
    case auth::PayloadMode::kStreamingSignedTrailer:
      return "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";
    case auth::PayloadMode::kUnsigned: return "UNSIGNED-PAYLOAD";
    case auth::PayloadMode::kSha256: break;
  }
  return "";
}

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/s3api_service_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    storage::StoreOptions options;
    options.path = dir_;
    options.sync = false;
    options.inline_limit = 1024;  // exercise chunked objects with small bodies
    options.chunk_size = 4096;
    auto store = storage::Store::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();

    AddKey(kRootId, kRootSecret, true, {});
    AddKey(kReaderId, kKeySecret, false, {{"shared", storage::AccessMode::kReadOnly}});
    AddKey(kWriterId, kKeySecret, false, {{"shared", storage::AccessMode::kWriteOnly}});
    AddKey(kOtherId, kKeySecret, false, {{"other", storage::AccessMode::kReadWrite}});

    ServiceOptions service_options;
    service_options.region = "us-east-1";
    service_options.domain = "s3.test";
    service_options.clock = [this] { return now_; };
    service_ = std::make_unique<S3Service>(store_.get(), service_options);
  }

  void TearDown() override {
    service_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  void AddKey(const std::string& id, const std::string& secret, bool all,
              std::map<std::string, storage::AccessMode> grants) {
    storage::AccessKeyRecord key;
    key.access_key_id = id;
    key.secret = storage::SecretKey(secret);
    key.all_buckets = all;
    key.grants = std::move(grants);
    ASSERT_TRUE(store_->PutAccessKey(key).ok());
  }

  Reply Send(Req req) {
    HttpRequest request;
    request.method = req.method;
    request.target = req.path + (req.query.empty() ? "" : "?" + req.query);
    request.request_id = "REQ" + std::to_string(++request_counter_);
    if (req.chunked) {
      req.payload_sha256 = std::string(ModeName(req.chunked->mode));
      req.headers.push_back({"content-encoding", "aws-chunked"});
      req.headers.push_back(
          {"x-amz-decoded-content-length", std::to_string(req.chunked->data.size())});
      if (!req.chunked->trailers.empty()) {
        std::string names;
        for (const Header& t : req.chunked->trailers) names += (names.empty() ? "" : ",") + t.name;
        req.headers.push_back({"x-amz-trailer", names});
      }
    }
    request.headers = req.headers;
    if (req.key_id.empty()) {
      request.headers.push_back({"host", "localhost:9000"});
    } else {
      auth::SignInput in;
      in.method = req.method;
      in.host = "localhost:9000";
      in.path = req.path;
      in.query = req.query;
      in.extra_headers = req.headers;
      in.payload_sha256 = req.payload_sha256 ? *req.payload_sha256
                                             : text::HexEncode(auth::Sha256(req.body));
      in.access_key_id = req.key_id;
      in.secret_key = req.key_id == std::string(kRootId) ? kRootSecret : kKeySecret;
      in.region = req.region;
      in.service = req.service;
      in.now = now_;
      for (Header& h : auth::SignV4(in)) {
        bool replaced = false;
        for (Header& existing : request.headers) {
          if (existing.name == h.name) {
            existing.value = h.value;
            replaced = true;
          }
        }
        if (!replaced) request.headers.push_back(h);
      }
    }
    if (req.chunked) {
      auth::ChunkedBodyInput& in = *req.chunked;
      std::string date = text::FormatIso8601Basic(now_);
      in.amz_date = date;
      in.scope = date.substr(0, 8) + "/us-east-1/s3/aws4_request";
      in.signing_key = auth::sigv4::SigningKey(
          req.key_id == std::string(kRootId) ? kRootSecret : kKeySecret, date.substr(0, 8),
          "us-east-1", "s3");
      const std::string* authorization = nullptr;
      for (const Header& h : request.headers) {
        if (h.name == "authorization") authorization = &h.value;
      }
      if (authorization != nullptr) {
        in.seed_signature = authorization->substr(authorization->rfind('=') + 1);
      }
      req.body = auth::EncodeChunkedBody(in);
      if (req.tamper) req.tamper(&req.body);
    }
    request.content_length =
        req.content_length ? *req.content_length : std::optional<uint64_t>(req.body.size());
    StringBodyReader body(req.body);
    Reply reply;
    reply.response = service_->Handle(request, body, &reply.summary);
    if (reply.response.source) {
      EXPECT_TRUE(reply.response.body.empty());
      // As the server pulls a body over plain TCP: file spans where the source has them
      // (read here with pread), Read for the rest. Odd sizes straddle chunk boundaries.
      char buf[1000];
      for (;;) {
        FileSpanResult span = reply.response.source->NextFileSpan(sizeof(buf) + 3);
        EXPECT_EQ(span.error, ErrorCode::kNone);
        if (span.error != ErrorCode::kNone) break;
        if (span.span) {
          std::string piece(span.span->length, '\0');
          ssize_t n = ::pread(span.span->fd, piece.data(), piece.size(),
                              static_cast<off_t>(span.span->offset));
          EXPECT_EQ(n, static_cast<ssize_t>(piece.size()));
          if (n != static_cast<ssize_t>(piece.size())) break;
          reply.body += piece;
          ++reply.file_spans;
          continue;
        }
        ReadResult r = reply.response.source->Read(buf, sizeof(buf));
        EXPECT_EQ(r.error, ErrorCode::kNone);
        if (r.n == 0 || r.error != ErrorCode::kNone) break;
        reply.body.append(buf, r.n);
      }
      EXPECT_EQ(reply.body.size(), reply.response.content_length);
    } else {
      reply.body = reply.response.body;
    }
    // KMS answers in JSON (kms_front.h; kms_front_test.cc checks its errors).
    if (reply.status() >= 300 && reply.status() != 304 && req.method != "HEAD" &&
        !reply.summary.operation.starts_with("kms:")) {
      // IAM answers its errors as text/xml (iam_front.h); S3 as application/xml.
      EXPECT_EQ(reply.Header("Content-Type"),
                reply.summary.operation.starts_with("iam:") ? "text/xml" : "application/xml");
      EXPECT_TRUE(Contains(reply.body, "<RequestId>" + request.request_id + "</RequestId>"));
    }
    return reply;
  }

  Reply Do(std::string method, std::string path, std::string query = "",
           std::string key_id = kRootId) {
    Req r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.query = std::move(query);
    r.key_id = std::move(key_id);
    return Send(std::move(r));
  }

  Reply Put(std::string path, std::string body, std::vector<Header> headers = {},
            std::string key_id = kRootId) {
    Req r;
    r.method = "PUT";
    r.path = std::move(path);
    r.body = std::move(body);
    r.headers = std::move(headers);
    r.key_id = std::move(key_id);
    return Send(std::move(r));
  }

  Reply Get(std::string path, std::vector<Header> headers = {}, std::string key_id = kRootId) {
    Req r;
    r.path = std::move(path);
    r.headers = std::move(headers);
    r.key_id = std::move(key_id);
    return Send(std::move(r));
  }

  void MakeBucket(const std::string& name) {
    Reply r = Do("PUT", "/" + name);
    ASSERT_EQ(r.status(), 200) << r.body;
  }

  bool ObjectExists(const std::string& bucket, const std::string& key) {
    return store_->HeadObject(bucket, key).ok();
  }

  static std::string Md5Hex(std::string_view data) { return text::HexEncode(auth::Md5(data)); }

  std::string dir_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<S3Service> service_;
  system_clock::time_point now_ = system_clock::time_point(std::chrono::seconds(1767225600));
  int request_counter_ = 0;
};

}  // namespace cubby::s3api::test_support
