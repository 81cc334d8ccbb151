// Fuzzes the access-control parsers of request bytes: s3api::ParseAccessControlPolicy
// (PutBucketAcl / PutObjectAcl bodies), iam::ParseGrantHeaders (x-amz-grant-* values),
// ParseOwnershipControls and ParsePublicAccessBlock. The first byte picks the parser, the rest
// is its input. Besides not crashing, what a parser accepts must survive a round trip: an ACL
// rendered as GetBucketAcl answers parses back to the same record, and the same for the other
// two documents. The resolver knows every id of lowercase hex digits (real canonical ids are
// 64 of them) and one e-mail address, as the users store would.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "iam/acl.h"
#include "s3api/acl_xml.h"

namespace {

namespace s3api = cubby::s3api;
namespace iam = cubby::iam;
namespace storage = cubby::storage;

constexpr std::string_view kOwner = "0123456789abcdef";
constexpr std::string_view kMailUser = "fedcba9876543210";

iam::GranteeResolver Resolver() {
  iam::GranteeResolver r;
  r.id_exists = [](std::string_view id) {
    return !id.empty() && id.find_first_not_of("0123456789abcdef") == std::string_view::npos;
  };
  r.id_by_email = [](std::string_view email) -> std::optional<std::string> {
    if (email == "user@example.com") return std::string(kMailUser);
    return std::nullopt;
  };
  return r;
}

std::optional<std::string> DisplayName(std::string_view id) {
  if (id == kOwner) return "owner <&>";
  return std::nullopt;
}

// An accepted ACL, rendered, must parse back to itself.
void RoundTripAcl(const storage::AclRecord& acl) {
  const std::string doc = s3api::AccessControlPolicyXml(acl, DisplayName);
  storage::AclRecord again;
  if (!s3api::ParseAccessControlPolicy(doc, acl.owner_id, Resolver(), &again).ok() ||
      !(again == acl)) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 4;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (mode) {
    case 0: {
      storage::AclRecord acl;
      if (s3api::ParseAccessControlPolicy(input, kOwner, Resolver(), &acl).ok()) RoundTripAcl(acl);
      break;
    }
    case 1: {
      // One header value for each permission, split at NUL bytes.
      iam::GrantHeaders headers;
      std::optional<std::string_view>* fields[] = {&headers.read, &headers.write, &headers.read_acp,
                                                   &headers.write_acp, &headers.full_control};
      for (std::optional<std::string_view>* field : fields) {
        if (input.empty()) break;
        const size_t end = input.find('\0');
        *field = input.substr(0, end);
        input = end == std::string_view::npos ? std::string_view() : input.substr(end + 1);
      }
      storage::AclRecord acl;
      if (iam::ParseGrantHeaders(headers, kOwner, Resolver(), &acl).ok()) RoundTripAcl(acl);
      break;
    }
    case 2: {
      storage::ObjectOwnership ownership;
      if (s3api::ParseOwnershipControls(input, &ownership).ok()) {
        storage::ObjectOwnership again;
        if (!s3api::ParseOwnershipControls(s3api::OwnershipControlsXml(ownership), &again).ok() ||
            again != ownership) {
          std::abort();
        }
      }
      break;
    }
    case 3: {
      storage::PublicAccessBlock block;
      if (s3api::ParsePublicAccessBlock(input, &block).ok()) {
        storage::PublicAccessBlock again;
        if (!s3api::ParsePublicAccessBlock(s3api::PublicAccessBlockXml(block), &again).ok() ||
            !(again == block)) {
          std::abort();
        }
      }
      break;
    }
  }
  return 0;
}
