// Writes the seeds of fuzz/corpus/ that need signatures: realistic request heads, SigV4 and
// SigV2 headers and presigned queries signed with fuzz/keys.h's key at its clock, aws-chunked
// bodies chained from their request's signature, and the payload target's inputs. Run once
// from the repository root after changing the fixed key, clock or input formats:
//   build-fuzz/fuzz/fuzz_make_seeds fuzz/corpus
// The XML seeds are plain files written by hand.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "fuzz/keys.h"
#include "fuzz/payload.h"
#include "s3api/auth/crypto.h"
#include "s3api/auth/signer.h"
#include "s3api/auth/sigv2.h"
#include "s3api/auth/sigv4.h"
#include "text/encoding.h"
#include "text/uri.h"

namespace {

using namespace cubby;
using s3api::Header;
using s3api::auth::PayloadMode;

std::filesystem::path root;

void Write(const std::string& dir, const std::string& name, const std::string& content) {
  std::filesystem::create_directories(root / dir);
  std::ofstream(root / dir / name, std::ios::binary) << content;
}

std::string Head(const std::string& method, const std::string& target,
                 const std::vector<Header>& headers, const std::string& body = "") {
  std::string out = method + " " + target + " HTTP/1.1\r\n";
  for (const Header& h : headers) out += h.name + ": " + h.value + "\r\n";
  return out + "\r\n" + body;
}

std::string Sha256Hex(std::string_view data) { return text::HexEncode(s3api::auth::Sha256(data)); }

s3api::auth::SignInput Input(std::string method, std::string path, std::string payload) {
  s3api::auth::SignInput in;
  in.method = std::move(method);
  in.host = "127.0.0.1:9000";
  in.path = std::move(path);
  in.payload_sha256 = std::move(payload);
  in.access_key_id = std::string(fuzz::kAccessKeyId);
  in.secret_key = std::string(fuzz::kSecretKey);
  in.region = std::string(fuzz::kRegion);
  in.now = fuzz::Now();
  return in;
}

// A signed request: the signer's headers, then the extra ones, then the body.
std::string Signed(const s3api::auth::SignInput& in, const std::string& body,
                   std::string* signature = nullptr) {
  std::vector<Header> headers = s3api::auth::SignV4(in);
  for (const Header& h : headers) {
    size_t at = h.value.find("Signature=");
    if (signature && at != std::string::npos) *signature = h.value.substr(at + 10);
  }
  headers.insert(headers.end(), in.extra_headers.begin(), in.extra_headers.end());
  headers.push_back({"content-length", std::to_string(body.size())});
  std::string target = in.path + (in.query.empty() ? "" : "?" + in.query);
  return Head(in.method, target, headers, body);
}

void RequestSeeds() {
  Write("request", "list_v2",
        Head("GET", "/bucket?list-type=2&prefix=a%2Fb&max-keys=10", {{"Host", "127.0.0.1:9000"}}));
  Write("request", "put",
        Head("PUT", "/bucket/key%20x", {{"Host", "h"}, {"Content-Length", "5"}}, "hello"));
  Write("request", "vhost_part",
        Head("GET", "/photos/2024/x.jpg?partNumber=1&response-content-type=a",
             {{"Host", "bucket.s3.fuzz.example"}}));
  Write("request", "chunked",
        Head("PUT", "/b/k", {{"Host", "h"}, {"Transfer-Encoding", "chunked"}},
             "5;ext=1\r\nhello\r\n3\r\nabc\r\n0\r\nx-trailer: v\r\n\r\n"));
  const std::string xml = "<Delete><Object><Key>a</Key></Object><Quiet>true</Quiet></Delete>";
  Write("request", "delete",
        Head("POST", "/bucket?delete",
             {{"Host", "h"}, {"Content-Length", std::to_string(xml.size())}}, xml));
  Write("request", "upload_part_copy",
        Head("PUT", "/b/k?partNumber=2&uploadId=abc",
             {{"Host", "h"}, {"x-amz-copy-source", "/src/k"}, {"Content-Length", "0"}}));
  Write("request", "list_uploads",
        Head("GET", "/b?uploads&key-marker=k&upload-id-marker=u&max-uploads=2&encoding-type=url",
             {{"Host", "h"}}));
  Write("request", "list_parts",
        Head("GET", "/b/k?uploadId=u&part-number-marker=3&max-parts=5",
             {{"Host", "h"}, {"Connection", "keep-alive"}}));
}

void SignedAuthSeeds() {
  Write("auth", "v4_get", Signed(Input("GET", "/bucket/key", "UNSIGNED-PAYLOAD"), ""));
  Write("auth", "v4_put_sha256", Signed(Input("PUT", "/bucket/key", Sha256Hex("hello")), "hello"));
  auto list = Input("GET", "/bucket", "UNSIGNED-PAYLOAD");
  list.query = "list-type=2&prefix=a";
  Write("auth", "v4_list", Signed(list, ""));
  auto vhost = Input("GET", "/key", "UNSIGNED-PAYLOAD");
  vhost.host = "bucket.s3.fuzz.example";
  Write("auth", "v4_vhost", Signed(vhost, ""));
  Write("auth", "v4_presigned",
        Head("GET", s3api::auth::PresignV4(Input("GET", "/bucket/key", "UNSIGNED-PAYLOAD"), 3600),
             {{"Host", "127.0.0.1:9000"}}));
}

void StreamingAuthSeeds() {
  const std::string data(100, 'x');
  struct Mode {
    const char* name;
    PayloadMode mode;
    const char* sha;
  };
  for (const Mode& m :
       {Mode{"v4_streaming", PayloadMode::kStreamingSigned, "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"},
        Mode{"v4_streaming_trailer", PayloadMode::kStreamingSignedTrailer,
             "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"}}) {
    auto in = Input("PUT", "/bucket/key", m.sha);
    in.extra_headers = {{"content-encoding", "aws-chunked"},
                        {"x-amz-decoded-content-length", std::to_string(data.size())}};
    if (m.mode == PayloadMode::kStreamingSignedTrailer) {
      in.extra_headers.push_back({"x-amz-trailer", "x-amz-checksum-crc32"});
    }
    std::string seed;
    Signed(in, "", &seed);
    s3api::auth::ChunkedBodyInput body;
    body.mode = m.mode;
    body.data = data;
    body.chunk_size = 37;
    body.trailers = {{"x-amz-checksum-crc32", "DUoRhQ=="}};
    body.signing_key =
        s3api::auth::sigv4::SigningKey(fuzz::kSecretKey, "20130524", fuzz::kRegion, "s3");
    body.amz_date = std::string(fuzz::kAmzDate);
    body.scope = std::string(fuzz::kScope);
    body.seed_signature = seed;
    Write("auth", m.name, Signed(in, s3api::auth::EncodeChunkedBody(body)));
  }
  s3api::auth::ChunkedBodyInput body;
  body.mode = PayloadMode::kStreamingUnsignedTrailer;
  body.data = "hello world";
  body.chunk_size = 5;
  body.trailers = {{"x-amz-checksum-crc32", "DUoRhQ=="}};
  std::string encoded = s3api::auth::EncodeChunkedBody(body);
  Write("auth", "anonymous_unsigned_trailer",
        Head("PUT", "/bucket/key",
             {{"Host", "h"},
              {"x-amz-content-sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER"},
              {"x-amz-decoded-content-length", "11"},
              {"x-amz-trailer", "x-amz-checksum-crc32"},
              {"Content-Length", std::to_string(encoded.size())}},
             encoded));
}

void SigV2Seeds() {
  namespace v2 = s3api::auth::sigv2;
  const std::string date = "Fri, 24 May 2013 00:00:00 GMT";
  std::string sts = v2::StringToSign("GET", "", "", date, "", "/bucket/key");
  Write("auth", "v2_header",
        Head("GET", "/bucket/key",
             {{"Host", "h"},
              {"Date", date},
              {"Authorization", "AWS " + std::string(fuzz::kAccessKeyId) + ":" +
                                    v2::Signature(fuzz::kSecretKey, sts)}}));
  const std::string expires = "1369357200";
  sts = v2::StringToSign("GET", "", "", expires, "", "/bucket/key");
  std::string signature =
      text::UriEncode(v2::Signature(fuzz::kSecretKey, sts), text::Slash::kEncode);
  Write("auth", "v2_query",
        Head("GET",
             "/bucket/key?AWSAccessKeyId=" + std::string(fuzz::kAccessKeyId) +
                 "&Expires=" + expires + "&Signature=" + signature,
             {{"Host", "h"}}));
}

void PayloadSeeds() {
  const std::string key =
      s3api::auth::sigv4::SigningKey(fuzz::kSecretKey, "20130524", fuzz::kRegion, "s3");
  Write("payload", "unsigned", "0 0 4096 - -\nhello");
  Write("payload", "sha256", "1 0 3 - " + Sha256Hex("hello") + "\nhello");
  const std::string data = "The quick brown fox jumps over the lazy dog, twice over.";
  struct Mode {
    const char* name;
    PayloadMode mode;
    int digit;
  };
  for (const Mode& m : {Mode{"signed", PayloadMode::kStreamingSigned, 2},
                        Mode{"unsigned_trailer", PayloadMode::kStreamingUnsignedTrailer, 3},
                        Mode{"signed_trailer", PayloadMode::kStreamingSignedTrailer, 4}}) {
    s3api::auth::ChunkedBodyInput body;
    body.mode = m.mode;
    body.data = data;
    body.chunk_size = 16;
    if (m.mode != PayloadMode::kStreamingSigned) {
      body.trailers = {{"x-amz-checksum-crc32", "AAAAAA=="}, {"x-amz-checksum-sha256", "x"}};
    }
    body.signing_key = key;
    body.amz_date = std::string(fuzz::kAmzDate);
    body.scope = std::string(fuzz::kScope);
    body.seed_signature = std::string(fuzz::kSeedSignature);
    std::string names = body.trailers.empty() ? "-" : "x-amz-checksum-crc32,x-amz-checksum-sha256";
    Write("payload", m.name,
          std::to_string(m.digit) + " " + std::to_string(data.size()) + " 5 " + names + " -\n" +
              s3api::auth::EncodeChunkedBody(body));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_make_seeds <corpus folder>\n";
    return 2;
  }
  root = argv[1];
  RequestSeeds();
  SignedAuthSeeds();
  StreamingAuthSeeds();
  SigV2Seeds();
  PayloadSeeds();
  return 0;
}
