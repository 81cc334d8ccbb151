#include "s3api/format.h"

#include "text/ascii.h"

namespace cubby::s3api {

std::string QuoteEtag(std::string_view etag) {
  std::string out;
  out.reserve(etag.size() + 2);
  out += '"';
  out += etag;
  out += '"';
  return out;
}

std::vector<std::string> ParseEtagList(std::string_view header) {
  std::vector<std::string> out;
  while (!header.empty()) {
    size_t comma = header.find(',');
    std::string_view item = text::TrimOws(header.substr(0, comma));
    header = comma == std::string_view::npos ? "" : header.substr(comma + 1);
    if (item.starts_with("W/")) item.remove_prefix(2);
    if (item.size() >= 2 && item.front() == '"' && item.back() == '"') {
      item = item.substr(1, item.size() - 2);
    }
    if (!item.empty()) out.emplace_back(item);
  }
  return out;
}

}  // namespace cubby::s3api
