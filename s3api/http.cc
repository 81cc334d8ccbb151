#include "s3api/http.h"

#include <algorithm>
#include <cstring>

namespace cubby::s3api {

const std::string* HttpRequest::Find(std::string_view name) const {
  for (const Header& h : headers) {
    if (h.name == name) return &h.value;
  }
  return nullptr;
}

ReadResult StringBodyReader::Read(char* buf, size_t n) {
  size_t count = std::min(n, data_.size() - pos_);
  if (count > 0) std::memcpy(buf, data_.data() + pos_, count);
  pos_ += count;
  return {count, ErrorCode::kNone};
}

BoundedBody ReadBoundedBody(BodyReader& body, std::optional<uint64_t> declared_length, size_t limit,
                            std::string* out) {
  out->clear();
  if (declared_length && *declared_length > limit) return {BoundedBody::kTooLarge};
  char buf[16 << 10];
  for (;;) {
    const ReadResult r = body.Read(buf, sizeof(buf));
    if (r.error != ErrorCode::kNone) return {BoundedBody::kFailed, r.error};
    if (r.n == 0) return {};
    out->append(buf, r.n);
    if (out->size() > limit) return {BoundedBody::kTooLarge};
  }
}

}  // namespace cubby::s3api
