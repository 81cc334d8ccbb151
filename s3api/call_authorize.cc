#include "s3api/call_authorize.h"

namespace cubby::s3api {
namespace {

std::optional<std::string_view> HeaderView(const HttpRequest& request, std::string_view name) {
  const std::string* value = request.Find(name);
  if (value == nullptr) return std::nullopt;
  return std::string_view(*value);
}

}  // namespace

std::string_view PeerAddress(std::string_view remote) {
  if (remote.starts_with('[')) {
    const size_t end = remote.find(']');
    return end == std::string_view::npos ? std::string_view() : remote.substr(1, end - 1);
  }
  const size_t colon = remote.rfind(':');
  return colon == std::string_view::npos ? remote : remote.substr(0, colon);
}

iam::RequestFacts CallFacts(const HttpRequest& request, const auth::AuthResult& who,
                            std::chrono::system_clock::time_point now) {
  iam::RequestFacts facts{
      .source_ip = PeerAddress(request.remote_address),
      .secure_transport = request.secure,
      .now = now,
      .referer = HeaderView(request, "referer"),
      .user_agent = HeaderView(request, "user-agent"),
      .tls_version = request.tls_version,
  };
  if (!who.anonymous) {
    facts.signature_version = who.signature_version == 2 ? "AWS" : "AWS4-HMAC-SHA256";
    facts.auth_type =
        request.Find("authorization") != nullptr ? "REST-HEADER" : "REST-QUERY-STRING";
    facts.signature_date = who.amz_date;
  }
  return facts;
}

iam::Decision AuthorizeCall(const iam::Authorizer& authorizer, const HttpRequest& request,
                            const auth::AuthResult& who, std::chrono::system_clock::time_point now,
                            std::string_view action, std::string_view resource) {
  const iam::Identity identity =
      who.key ? iam::Identity::Key(*who.key) : iam::Identity::Anonymous();
  return authorizer.AuthorizeCall(identity, action, resource, CallFacts(request, who, now));
}

}  // namespace cubby::s3api
