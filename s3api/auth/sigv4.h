// The canonicalization of AWS Signature Version 4, each step a small pure function, shared by
// the verifiers (sigv4_header.cc, sigv4_presigned.cc, chunked.cc) and the client-side signer
// (signer.cc, bench/) so that both build the canonical request the same way. Encodings and dates
// come from cubby::text (UriEncode, PercentDecodeLenient, FormatIso8601Basic, ...).
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
//   https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "s3api/http.h"
#include "text/uri.h"

namespace cubby::s3api::auth::sigv4 {

inline constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
inline constexpr std::string_view kChunkAlgorithm = "AWS4-HMAC-SHA256-PAYLOAD";
inline constexpr std::string_view kTrailerAlgorithm = "AWS4-HMAC-SHA256-TRAILER";
inline constexpr std::string_view kService = "s3";
// The IAM query API on the S3 port (kIamHeaderRules): its service, and the region the aws cli
// and SDKs sign IAM requests for whatever the endpoint. IAM is a global service: a scope with
// this region, or with none, is accepted whatever the server's region (as is the server's own).
inline constexpr std::string_view kIamService = "iam";
inline constexpr std::string_view kIamSigningRegion = "us-east-1";
// The KMS JSON API on the S3 port (kKmsHeaderRules): signed for the server's
// region, as KMS is a regional service.
inline constexpr std::string_view kKmsService = "kms";
inline constexpr std::string_view kTerminator = "aws4_request";
inline constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";
inline constexpr std::string_view kStreamingSignedPayload = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
inline constexpr std::string_view kStreamingUnsignedTrailer = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
inline constexpr std::string_view kStreamingSignedTrailer =
    "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";
inline constexpr std::string_view kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// Header and query names (headers lowercase, as HttpRequest stores them).
inline constexpr std::string_view kAuthorization = "authorization";
inline constexpr std::string_view kAmzDate = "x-amz-date";
inline constexpr std::string_view kDate = "date";
inline constexpr std::string_view kHost = "host";
inline constexpr std::string_view kAmzContentSha256 = "x-amz-content-sha256";
inline constexpr std::string_view kQueryAlgorithm = "X-Amz-Algorithm";
inline constexpr std::string_view kQueryCredential = "X-Amz-Credential";
inline constexpr std::string_view kQueryDate = "X-Amz-Date";
inline constexpr std::string_view kQueryExpires = "X-Amz-Expires";
inline constexpr std::string_view kQuerySignedHeaders = "X-Amz-SignedHeaders";
inline constexpr std::string_view kQuerySignature = "X-Amz-Signature";
inline constexpr std::string_view kQueryContentSha256 = "X-Amz-Content-Sha256";

// How far a request's date may be from the server's clock, and the longest presign validity.
inline constexpr std::chrono::seconds kMaxSkew{15 * 60};
inline constexpr int64_t kMaxPresignExpiresSeconds = 7 * 24 * 3600;

// ---- Canonical request

// The path part of a request-target as the client encoded it, normalised: each '/'-separated
// segment is decoded and UriEncoded again, so "!" and "%21" (or "~" and "%7E") give the same
// canonical URI, while an encoded slash "%2F" stays distinct from a real '/'. S3 does not
// encode twice. "" becomes "/".
std::string CanonicalUri(std::string_view raw_path);

// The decoded parameters of a raw query ("a=1&b&c=x%20y", no '?'), in order: '+' is a space,
// a malformed escape stays literal, empty pieces are skipped.
std::vector<text::NameValue> SplitQuery(std::string_view raw_query);

// Each name and value UriEncoded (slashes too), sorted by name then value, joined as
// "k=v&k2=v2". Parameters named `exclude` (X-Amz-Signature for presigned URLs) are left out.
std::string CanonicalQueryString(const std::vector<text::NameValue>& params,
                                 std::string_view exclude = {});

// A header value with leading/trailing spaces removed and inner runs of spaces collapsed.
std::string CanonicalHeaderValue(std::string_view value);

// "name:value\n" for each name in `signed_names` (in that order), the values of repeated
// headers joined by ','. `headers` names must be lowercase. A signed header that is absent
// contributes "name:\n" (and so, in practice, a signature mismatch).
std::string CanonicalHeaders(const std::vector<Header>& headers,
                             const std::vector<std::string>& signed_names);

// "a;b;c"
std::string JoinSignedHeaders(const std::vector<std::string>& names);

std::string CanonicalRequest(std::string_view method, std::string_view canonical_uri,
                             std::string_view canonical_query,
                             std::string_view canonical_headers, std::string_view signed_headers,
                             std::string_view hashed_payload);

// "AWS4-HMAC-SHA256\n<amz_date>\n<scope>\n<hex sha256(canonical_request)>"
std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request);

// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request").
// Raw 32 bytes: secret material.
std::string SigningKey(std::string_view secret, std::string_view date, std::string_view region,
                       std::string_view service);

// SigningKey, memoised per thread: the thread's last few derivations are kept, keyed by all
// four inputs, so the requests of one connection (one thread) derive once per key and day
// instead of four HMACs each. Same result as SigningKey. The kept secrets and keys are wiped
// when evicted and when the thread exits. Nothing about access keys is cached here: callers
// still look the key record up (and so see a revoked key) on every request.
std::string CachedSigningKey(std::string_view secret, std::string_view date,
                             std::string_view region, std::string_view service);

// Lowercase hex HMAC-SHA256(signing_key, string_to_sign).
std::string Signature(std::string_view signing_key, std::string_view string_to_sign);

// ---- aws-chunked (STREAMING-AWS4-HMAC-SHA256-PAYLOAD and the trailer forms)
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming-trailers.html

inline constexpr std::string_view kChunkSignatureKey = "chunk-signature=";  // chunk extension
inline constexpr std::string_view kTrailerSignature = "x-amz-trailer-signature";

// "AWS4-HMAC-SHA256-PAYLOAD\n<amz_date>\n<scope>\n<previous_signature>\n<sha256("")>\n<chunk hash>"
std::string ChunkStringToSign(std::string_view amz_date, std::string_view scope,
                              std::string_view previous_signature,
                              std::string_view chunk_sha256_hex);

// The chunk-signature of `chunk_data` chained from `previous_signature` (the seed signature
// for the first chunk).
std::string ChunkSignature(std::string_view signing_key, std::string_view amz_date,
                           std::string_view scope, std::string_view previous_signature,
                           std::string_view chunk_data);

// The trailer signature's string to sign:
// "AWS4-HMAC-SHA256-TRAILER\n<amz_date>\n<scope>\n<previous>\n<hex sha256(canonical)>", where
// canonical is "name:value\n" for each trailer (other than x-amz-trailer-signature), sorted by
// name.
std::string TrailerStringToSign(std::string_view amz_date, std::string_view scope,
                                std::string_view previous_signature,
                                const std::vector<Header>& trailers);

// ---- Credential

struct Credential {
  std::string access_key_id;
  std::string date;        // YYYYMMDD
  std::string region;
  std::string service;
  std::string terminator;  // "aws4_request"

  // "<date>/<region>/<service>/<terminator>"
  std::string Scope() const;
};

// "AKID/20130524/us-east-1/s3/aws4_request". The four scope parts are taken from the right;
// none but the region may be empty (botocore signs a global service's request with an empty
// region when it has none; CheckScope decides whether the region fits). Only the shape is
// checked here.
std::optional<Credential> ParseCredential(std::string_view text);

// Why a credential's scope does not fit this server, or "" if it does: date must equal
// `request_date` (YYYYMMDD), region `region`, service `service` ("s3" but for the IAM API's
// "iam"), terminator "aws4_request".
std::string CheckScope(const Credential& credential, std::string_view request_date,
                       std::string_view region, std::string_view service = kService);

// "a;b;c" → {"a","b","c"}; nullopt if empty or any name is empty.
std::optional<std::vector<std::string>> ParseSignedHeaders(std::string_view text);

}  // namespace cubby::s3api::auth::sigv4
