// CORS: the pure evaluation of cors.h (tables), then Put/Get/DeleteBucketCors, the preflight and
// the headers of actual requests through S3Service::Handle with a real Store in a temp folder.
#include "s3api/cors.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "s3api/auth/crypto.h"
#include "test/s3api/service_fixture.h"
#include "text/encoding.h"

namespace cubby::s3api {
namespace {

using namespace test_support;  // NOLINT: the fixture
using storage::CorsConfig;
using storage::CorsRule;

CorsRule Rule(std::vector<std::string> origins, std::vector<std::string> methods,
              std::vector<std::string> headers = {}) {
  CorsRule r;
  r.allowed_origins = std::move(origins);
  r.allowed_methods = std::move(methods);
  r.allowed_headers = std::move(headers);
  return r;
}

HttpRequest Request(std::string method, std::vector<Header> headers) {
  HttpRequest r;
  r.method = std::move(method);
  r.headers = std::move(headers);
  return r;
}

// Headers as "name: value" lines, for one comparison per case.
std::string Lines(const std::vector<Header>& headers) {
  std::string out;
  for (const Header& h : headers) out += h.name + ": " + h.value + "\n";
  return out;
}

const std::string kVaryLine = "Vary: " + std::string(kCorsVary) + "\n";

TEST(CorsMatchTest, Origins) {
  struct Case {
    std::string pattern, origin;
    bool matches;
  };
  const std::vector<Case> cases = {
      {"*", "https://example.com", true},
      {"*", "null", true},
      {"https://example.com", "https://example.com", true},
      {"https://example.com", "http://example.com", false},
      {"https://example.com", "https://example.com:8443", false},
      {"https://example.com", "https://example.com/", false},
      {"https://*.example.com", "https://www.example.com", true},
      {"https://*.example.com", "https://a.b.example.com", true},
      {"https://*.example.com", "https://example.com", false},
      {"https://*.example.com", "https://www.example.com.evil", false},
      {"https://*.example.com", "https://WWW.example.com", true},  // the wildcard's part
      {"https://example.com:*", "https://example.com:8443", true},
      {"https://example.com:*", "https://example.com", false},
      {"http*", "https://example.com", true},
      {"https://a*a", "https://aa", true},
      {"https://a*a", "https://a", false},  // the text around '*' does not overlap
      {"https://example.com", "https://EXAMPLE.com", false},  // case-sensitive
      {"HTTPS://example.com", "https://example.com", false},
      {"", "", true},
      {"", "https://example.com", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(CorsOriginMatches(c.pattern, c.origin), c.matches) << c.pattern << " " << c.origin;
  }
}

TEST(CorsMatchTest, Headers) {
  struct Case {
    std::string pattern, name;
    bool matches;
  };
  const std::vector<Case> cases = {
      {"content-type", "content-type", true},
      {"Content-Type", "content-type", true},
      {"CONTENT-TYPE", "cOnTeNt-TyPe", true},
      {"x-amz-*", "X-AMZ-DATE", true},
      {"x-amz-*", "x-amz-", true},
      {"x-amz-*", "x-amz", false},
      {"x-amz-*", "x-amzn-trace-id", false},
      {"x-amz-*", "my-x-amz-date", false},
      {"*", "anything", true},
      {"*-type", "content-type", true},
      {"x-*-id", "x-request-id", true},
      {"x-*-id", "x-id", false},
      {"content.type", "contentXtype", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(CorsHeaderMatches(c.pattern, c.name), c.matches) << c.pattern << " " << c.name;
  }
}

TEST(CorsMatchTest, RequestHeaderNames) {
  EXPECT_EQ(CorsRequestHeaderNames("Content-Type,X-Amz-Date ,  x-amz-meta-Name"),
            (std::vector<std::string>{"content-type", "x-amz-date", "x-amz-meta-name"}));
  EXPECT_EQ(CorsRequestHeaderNames(" , ,"), std::vector<std::string>{});
  EXPECT_EQ(CorsRequestHeaderNames(""), std::vector<std::string>{});
  EXPECT_EQ(CorsRequestHeaderNames("A"), std::vector<std::string>{"a"});
}

// The first rule matching origin, method and (for a preflight) every header answers.
TEST(CorsMatchTest, FirstMatchingRule) {
  CorsRule exact = Rule({"https://example.com"}, {"GET", "PUT"});
  exact.id = "exact";
  CorsRule pattern = Rule({"https://*.com"}, {"GET"}, {"*"});
  pattern.id = "pattern";
  CorsRule any = Rule({"*"}, {"GET", "HEAD"});
  any.id = "any";
  const CorsConfig config{{exact, pattern, any}};
  struct Case {
    std::string name, origin, method;
    std::optional<std::vector<std::string>> headers;  // nullopt: an actual request
    std::string id;                                   // "": no match
  };
  const std::vector<Case> cases = {
      {"first of three", "https://example.com", "GET", std::nullopt, "exact"},
      {"method only in the third", "https://example.com", "HEAD", std::nullopt, "any"},
      {"a header not in the first", "https://example.com", "GET",
       std::vector<std::string>{"x-amz-date"}, "pattern"},
      {"a preflight naming no header", "https://example.com", "GET", std::vector<std::string>{},
       "exact"},
      {"PUT from elsewhere", "https://example.org", "PUT", std::nullopt, ""},
      {"lowercase method", "https://example.com", "get", std::nullopt, ""},
      {"OPTIONS", "https://example.com", "OPTIONS", std::nullopt, ""},
      {"header no rule allows for HEAD", "https://example.com", "HEAD",
       std::vector<std::string>{"content-type"}, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const CorsRule* got =
        MatchCorsRule(config, c.origin, c.method, c.headers ? &*c.headers : nullptr);
    if (c.id.empty()) {
      EXPECT_EQ(got, nullptr);
    } else {
      ASSERT_NE(got, nullptr);
      EXPECT_EQ(got->id, c.id);
    }
  }
  EXPECT_EQ(MatchCorsRule(CorsConfig{}, "https://example.com", "GET", nullptr), nullptr);
}

TEST(CorsMatchTest, Preflight) {
  CorsRule site = Rule({"https://example.com", "https://*.example.com"}, {"GET", "PUT", "DELETE"},
                       {"Content-Type", "x-amz-*"});
  site.expose_headers = {"ETag", "x-amz-request-id"};
  site.max_age_seconds = 3000;
  const CorsConfig config{{site, Rule({"*"}, {"GET", "HEAD"})}};
  const std::string site_lines =
      "Access-Control-Allow-Origin: https://example.com\n"
      "Access-Control-Allow-Methods: GET, PUT, DELETE\n";
  const std::string site_tail =
      "Access-Control-Expose-Headers: ETag, x-amz-request-id\n"
      "Access-Control-Max-Age: 3000\n"
      "Access-Control-Allow-Credentials: true\n" +
      kVaryLine;
  const std::string everyone =
      "Access-Control-Allow-Origin: *\nAccess-Control-Allow-Methods: GET, HEAD\n" + kVaryLine;
  const std::string not_allowed =
      "CORSResponse: This CORS request is not allowed. This is usually because the evalution of "
      "Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers "
      "are not whitelisted by the resource's CORS spec.";
  const std::string no_origin = "Insufficient information. Origin request header needed.";
  struct Case {
    std::string name;
    CorsBucket bucket;
    std::vector<Header> headers;
    ErrorCode error;
    std::string message_or_lines;
  };
  const std::vector<Case> cases = {
      {"no request headers",
       CorsBucket::kConfigured,
       {{"origin", "https://example.com"}, {"access-control-request-method", "PUT"}},
       ErrorCode::kNone,
       site_lines + site_tail},
      {"with request headers",
       CorsBucket::kConfigured,
       {{"origin", "https://example.com"},
        {"access-control-request-method", "PUT"},
        {"access-control-request-headers", "Content-Type,X-Amz-Date"}},
       ErrorCode::kNone,
       site_lines + "Access-Control-Allow-Headers: content-type, x-amz-date\n" + site_tail},
      {"a pattern origin",
       CorsBucket::kConfigured,
       {{"origin", "https://app.example.com"}, {"access-control-request-method", "DELETE"}},
       ErrorCode::kNone,
       "Access-Control-Allow-Origin: https://app.example.com\n"
       "Access-Control-Allow-Methods: GET, PUT, DELETE\n" +
           site_tail},
      {"only the literal * allows",
       CorsBucket::kConfigured,
       {{"origin", "https://example.org"}, {"access-control-request-method", "GET"}},
       ErrorCode::kNone,
       everyone},
      {"empty request headers",
       CorsBucket::kConfigured,
       {{"origin", "https://example.org"},
        {"access-control-request-method", "GET"},
        {"access-control-request-headers", " , "}},
       ErrorCode::kNone,
       everyone},
      {"no origin",
       CorsBucket::kConfigured,
       {{"access-control-request-method", "GET"}},
       ErrorCode::kBadRequest,
       no_origin},
      {"empty origin",
       CorsBucket::kMissing,
       {{"origin", ""}, {"access-control-request-method", "GET"}},
       ErrorCode::kBadRequest,
       no_origin},
      {"no method",
       CorsBucket::kNoConfig,
       {{"origin", "https://example.com"}},
       ErrorCode::kBadRequest,
       "Invalid Access-Control-Request-Method: null"},
      {"PATCH",
       CorsBucket::kConfigured,
       {{"origin", "https://example.com"}, {"access-control-request-method", "PATCH"}},
       ErrorCode::kBadRequest,
       "Invalid Access-Control-Request-Method: PATCH"},
      {"missing bucket",
       CorsBucket::kMissing,
       {{"origin", "https://example.com"}, {"access-control-request-method", "GET"}},
       ErrorCode::kAccessForbidden,
       "CORSResponse: Bucket not found"},
      {"no configuration",
       CorsBucket::kNoConfig,
       {{"origin", "https://example.com"}, {"access-control-request-method", "GET"}},
       ErrorCode::kAccessForbidden,
       "CORSResponse: CORS is not enabled for this bucket."},
      {"origin in another case",
       CorsBucket::kConfigured,
       {{"origin", "https://EXAMPLE.com"}, {"access-control-request-method", "PUT"}},
       ErrorCode::kAccessForbidden,
       not_allowed},
      {"a header no rule allows",
       CorsBucket::kConfigured,
       {{"origin", "https://example.com"},
        {"access-control-request-method", "PUT"},
        {"access-control-request-headers", "content-type, authorization"}},
       ErrorCode::kAccessForbidden,
       not_allowed},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PreflightAnswer a = AnswerPreflight(c.bucket, config, Request("OPTIONS", c.headers));
    EXPECT_EQ(a.error, c.error);
    if (c.error == ErrorCode::kNone) {
      EXPECT_EQ(Lines(a.headers), c.message_or_lines);
    } else {
      EXPECT_EQ(a.message, c.message_or_lines);
      EXPECT_TRUE(a.headers.empty());
    }
  }
}

TEST(CorsMatchTest, ActualRequests) {
  CorsRule site = Rule({"https://example.com"}, {"GET", "PUT"}, {"x-amz-*"});
  site.expose_headers = {"ETag"};
  const CorsConfig config{{site, Rule({"*"}, {"HEAD"})}};
  const std::string site_lines =
      "Access-Control-Allow-Origin: https://example.com\n"
      "Access-Control-Allow-Methods: GET, PUT\n"
      "Access-Control-Expose-Headers: ETag\n"
      "Access-Control-Allow-Credentials: true\n" +
      kVaryLine;
  struct Case {
    std::string name, method;
    std::vector<Header> headers;
    std::string lines;
  };
  const std::vector<Case> cases = {
      {"GET from the site", "GET", {{"origin", "https://example.com"}}, site_lines},
      {"HEAD from anywhere",
       "HEAD",
       {{"origin", "https://example.org"}},
       "Access-Control-Allow-Origin: *\nAccess-Control-Allow-Methods: HEAD\n" + kVaryLine},
      {"GET from elsewhere", "GET", {{"origin", "https://example.org"}}, ""},
      {"no origin", "GET", {}, ""},
      {"empty origin", "GET", {{"origin", ""}}, ""},
      {"DELETE not allowed", "DELETE", {{"origin", "https://example.com"}}, ""},
      // S3 takes the method from Access-Control-Request-Method when a request carries it.
      {"DELETE asking for GET",
       "DELETE",
       {{"origin", "https://example.com"}, {"access-control-request-method", "GET"}},
       site_lines},
      {"GET asking for DELETE",
       "GET",
       {{"origin", "https://example.com"}, {"access-control-request-method", "DELETE"}},
       ""},
      // AllowedHeader is a preflight's question only.
      {"request headers not consulted",
       "PUT",
       {{"origin", "https://example.com"}, {"access-control-request-headers", "authorization"}},
       site_lines},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Lines(ActualRequestCorsHeaders(config, Request(c.method, c.headers))), c.lines);
  }
}

// ---- Through the service.

class CorsServiceTest : public ServiceTest {
 protected:
  Reply PutCors(const std::string& bucket, const std::string& xml, std::vector<Header> headers,
                std::string key_id = kRootId) {
    Req r;
    r.method = "PUT";
    r.path = "/" + bucket;
    r.query = "cors";
    r.body = xml;
    r.headers = std::move(headers);
    r.key_id = std::move(key_id);
    return Send(std::move(r));
  }
  Reply PutCors(const std::string& bucket, const std::string& xml) {
    return PutCors(bucket, xml, Md5Of(xml));
  }
  static std::vector<Header> Md5Of(const std::string& body) {
    return {{"content-md5", text::Base64Encode(auth::Md5(body))}};
  }
  Reply Preflight(const std::string& path, std::vector<Header> headers) {
    Req r;
    r.method = "OPTIONS";
    r.path = path;
    r.headers = std::move(headers);
    r.key_id = kAnonymous;
    return Send(std::move(r));
  }
  static std::string Config(const std::string& rules) {
    return "<CORSConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">" + rules +
           "</CORSConfiguration>";
  }
  const std::string kSite = Config(
      "<CORSRule><ID>site</ID><AllowedOrigin>https://app.example.com</AllowedOrigin>"
      "<AllowedMethod>GET</AllowedMethod><AllowedMethod>PUT</AllowedMethod>"
      "<AllowedHeader>*</AllowedHeader><ExposeHeader>ETag</ExposeHeader>"
      "<MaxAgeSeconds>600</MaxAgeSeconds></CORSRule>");
};

TEST_F(CorsServiceTest, PutGetDeleteRoundTrip) {
  MakeBucket("bkt");
  Reply none = Do("GET", "/bkt", "cors");
  EXPECT_EQ(none.status(), 404);
  EXPECT_EQ(none.Code(), "NoSuchCORSConfiguration");
  EXPECT_TRUE(Contains(none.body, "The CORS configuration does not exist"));

  Reply put = PutCors("bkt", kSite);
  EXPECT_EQ(put.status(), 200) << put.body;
  EXPECT_EQ(put.summary.operation, "PutBucketCors");
  storage::Result<storage::BucketRecord> stored = store_->GetBucket("bkt");
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->cors.rules.size(), 1u);
  EXPECT_EQ(stored->cors.rules[0].allowed_methods, (std::vector<std::string>{"GET", "PUT"}));

  Reply get = Do("GET", "/bkt", "cors");
  EXPECT_EQ(get.status(), 200);
  EXPECT_EQ(get.summary.operation, "GetBucketCors");
  EXPECT_TRUE(Contains(get.body, "<CORSRule><ID>site</ID><AllowedMethod>GET</AllowedMethod>"));
  EXPECT_TRUE(Contains(get.body, "<MaxAgeSeconds>600</MaxAgeSeconds>"));

  Reply deleted = Do("DELETE", "/bkt", "cors");
  EXPECT_EQ(deleted.status(), 204);
  EXPECT_EQ(deleted.summary.operation, "DeleteBucketCors");
  EXPECT_EQ(Do("GET", "/bkt", "cors").Code(), "NoSuchCORSConfiguration");
  EXPECT_EQ(Do("DELETE", "/bkt", "cors").status(), 204);  // none: still 204
  EXPECT_EQ(Do("GET", "/nope", "cors").Code(), "NoSuchBucket");
}

TEST_F(CorsServiceTest, PutErrors) {
  MakeBucket("bkt");
  struct Case {
    std::string name, xml;
    std::vector<Header> headers;  // empty: Content-MD5 of xml
    std::string key_id;
    int status;
    std::string code;
  };
  const std::vector<Case> cases = {
      {"malformed", "<CORSConfiguration><CORSRule>", {}, kRootId, 400, "MalformedXML"},
      {"no rule", Config(""), {}, kRootId, 400, "MalformedXML"},
      {"bad method",
       Config("<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>PATCH</AllowedMethod>"
              "</CORSRule>"),
       {},
       kRootId,
       400,
       "InvalidRequest"},
      {"no integrity header", kSite, {{"x-amz-meta-x", "1"}}, kRootId, 400, "InvalidRequest"},
      {"wrong md5", kSite, Md5Of("other"), kRootId, 400, "BadDigest"},
      {"a COSI key", kSite, {}, kOtherId, 403, "AccessDenied"},
      {"anonymous", kSite, {}, kAnonymous, 403, "AccessDenied"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Reply r = PutCors("bkt", c.xml, c.headers.empty() ? Md5Of(c.xml) : c.headers, c.key_id);
    EXPECT_EQ(r.status(), c.status) << r.body;
    EXPECT_EQ(r.Code(), c.code);
  }
  EXPECT_TRUE(Contains(PutCors("bkt", kSite, {{"x-amz-meta-x", "1"}}).body,
                       "Missing required header for this request: Content-Md5"));
  EXPECT_TRUE(store_->GetBucket("bkt")->cors.rules.empty()) << "a refused PUT stored something";
}

TEST_F(CorsServiceTest, PreflightIsAnsweredWithoutAuthentication) {
  MakeBucket("bkt");
  MakeBucket("plain");
  ASSERT_EQ(PutCors("bkt", kSite).status(), 200);
  const Header origin{"origin", "https://app.example.com"};
  const Header put{"access-control-request-method", "PUT"};

  Reply ok =
      Preflight("/bkt/some/key", {origin, put, {"access-control-request-headers", "Content-Type"}});
  EXPECT_EQ(ok.status(), 200) << ok.body;
  EXPECT_EQ(ok.summary.operation, "OptionsObject");
  EXPECT_TRUE(ok.body.empty());
  EXPECT_EQ(ok.Header("Access-Control-Allow-Origin"), "https://app.example.com");
  EXPECT_EQ(ok.Header("Access-Control-Allow-Methods"), "GET, PUT");
  EXPECT_EQ(ok.Header("Access-Control-Allow-Headers"), "content-type");
  EXPECT_EQ(ok.Header("Access-Control-Expose-Headers"), "ETag");
  EXPECT_EQ(ok.Header("Access-Control-Max-Age"), "600");
  EXPECT_EQ(ok.Header("Access-Control-Allow-Credentials"), "true");
  EXPECT_EQ(ok.Header("Vary"), kCorsVary);
  // Exactly once, though the service adds CORS headers to other answers.
  EXPECT_EQ(Count(Lines(ok.response.headers), "Access-Control-Allow-Origin"), 1u);

  struct Case {
    std::string name, path;
    std::vector<Header> headers;
    int status;
    std::string code, message_part, resource_type;
  };
  const std::vector<Case> cases = {
      {"no rule for DELETE",
       "/bkt/k",
       {origin, {"access-control-request-method", "DELETE"}},
       403,
       "AccessForbidden",
       "This CORS request is not allowed",
       "OBJECT"},
      {"another origin",
       "/bkt",
       {{"origin", "https://evil.example"}, put},
       403,
       "AccessForbidden",
       "This CORS request is not allowed",
       "BUCKET"},
      {"no configuration",
       "/plain/k",
       {origin, put},
       403,
       "AccessForbidden",
       "CORSResponse: CORS is not enabled for this bucket.",
       "OBJECT"},
      {"missing bucket",
       "/missing/k",
       {origin, put},
       403,
       "AccessForbidden",
       "CORSResponse: Bucket not found",
       "OBJECT"},
      {"no bucket",
       "/",
       {origin, put},
       403,
       "AccessForbidden",
       "CORSResponse: Bucket not found",
       "BUCKET"},
      {"no origin",
       "/bkt/k",
       {put},
       400,
       "BadRequest",
       "Insufficient information. Origin request header needed.",
       ""},
      {"no method",
       "/bkt/k",
       {origin},
       400,
       "BadRequest",
       "Invalid Access-Control-Request-Method: null",
       ""},
      {"bad method",
       "/bkt/k",
       {origin, {"access-control-request-method", "PATCH"}},
       400,
       "BadRequest",
       "Invalid Access-Control-Request-Method: PATCH",
       ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Reply r = Preflight(c.path, c.headers);
    EXPECT_EQ(r.status(), c.status);
    EXPECT_EQ(r.Code(), c.code);
    EXPECT_TRUE(Contains(r.body, c.message_part)) << r.body;
    EXPECT_EQ(r.Header("Access-Control-Allow-Origin"), "<absent>");
    if (!c.resource_type.empty()) {
      EXPECT_EQ(Tag(r.body, "ResourceType"), c.resource_type);
      EXPECT_EQ(Tag(r.body, "Method"), c.headers.back().value);
    }
  }
}

// Every answer to a request with an Origin gets the headers of the rule that matches it, errors
// included; without an Origin, or without a matching rule, none.
TEST_F(CorsServiceTest, ActualRequestsGetHeaders) {
  MakeBucket("bkt");
  ASSERT_EQ(PutCors("bkt", kSite).status(), 200);
  const Header origin{"origin", "https://app.example.com"};
  ASSERT_EQ(Put("/bkt/k", "data").status(), 200);

  Reply signed_get = Get("/bkt/k", {origin});
  EXPECT_EQ(signed_get.status(), 200);
  EXPECT_EQ(signed_get.Header("Access-Control-Allow-Origin"), "https://app.example.com");
  EXPECT_EQ(signed_get.Header("Access-Control-Expose-Headers"), "ETag");
  EXPECT_EQ(signed_get.Header("Access-Control-Allow-Headers"), "<absent>");
  EXPECT_EQ(signed_get.Header("Vary"), kCorsVary);

  Reply put = Put("/bkt/k2", "x", {origin});
  EXPECT_EQ(put.status(), 200);
  EXPECT_EQ(put.Header("Access-Control-Allow-Methods"), "GET, PUT");

  // An anonymous GET of a private object: AccessDenied, with the headers.
  Reply denied = Get("/bkt/k", {origin}, kAnonymous);
  EXPECT_EQ(denied.status(), 403);
  EXPECT_EQ(denied.Header("Access-Control-Allow-Origin"), "https://app.example.com");
  Reply missing = Get("/bkt/none", {origin});
  EXPECT_EQ(missing.status(), 404);
  EXPECT_EQ(missing.Header("Access-Control-Allow-Origin"), "https://app.example.com");

  EXPECT_EQ(Get("/bkt/k").Header("Access-Control-Allow-Origin"), "<absent>");
  EXPECT_EQ(Get("/bkt/k", {{"origin", "https://other.example"}}).Header("Vary"), "<absent>");
  EXPECT_EQ(Do("DELETE", "/bkt/k2").status(), 204);
  // DELETE is not in the rule: no headers.
  Req del;
  del.method = "DELETE";
  del.path = "/bkt/k";
  del.headers = {origin};
  EXPECT_EQ(Send(del).Header("Access-Control-Allow-Origin"), "<absent>");
  // No bucket, or a bucket without rules: none.
  EXPECT_EQ(Get("/", {origin}).Header("Access-Control-Allow-Origin"), "<absent>");
  MakeBucket("plain");
  EXPECT_EQ(Get("/plain", {origin}).Header("Access-Control-Allow-Origin"), "<absent>");
  // A removed configuration counts from the next request on.
  ASSERT_EQ(Do("DELETE", "/bkt", "cors").status(), 204);
  EXPECT_EQ(Get("/bkt/k", {origin}).Header("Access-Control-Allow-Origin"), "<absent>");
}

}  // namespace
}  // namespace cubby::s3api
