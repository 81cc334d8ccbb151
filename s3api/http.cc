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

}  // namespace cubby::s3api
