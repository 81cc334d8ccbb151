// Fuzzes iam::ParseIamForm, the reader of the IAM query API's form bodies (and GET queries) on
// the S3 port. Besides not crashing: a form over iam::kMaxIamFormBytes is refused unparsed, an
// accepted one names its Action as its first Action parameter, and every error comes with a
// message, rendered into a well-formed IAM error document.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "iam/iam_api.h"
#include "s3api/xml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using cubby::iam::IamError;
  const std::string_view form(reinterpret_cast<const char*>(data), size);
  cubby::iam::IamRequest request;
  std::string why;
  const IamError error = cubby::iam::ParseIamForm(form, &request, &why);
  if (size > cubby::iam::kMaxIamFormBytes && error != IamError::kRequestEntityTooLarge) {
    std::abort();
  }
  if (error == IamError::kNone) {
    const std::string* action = request.Find("Action");
    if (action == nullptr || *action != request.action || request.action.empty()) std::abort();
    return 0;
  }
  if (why.empty()) std::abort();
  // The error document escapes whatever the message holds.
  const cubby::iam::IamResponse response = cubby::iam::ErrorResponse(error, request.action, "R");
  cubby::s3api::XmlNode root;
  if (!cubby::s3api::ParseXml(response.body, &root) || root.name != "ErrorResponse") std::abort();
  return 0;
}
