// An enum's values with their names (on the wire, in a flag, in a log): one table per enum
// serves both directions, so that no name is spelled twice.
//   constexpr text::Named<LogFormat> kLogFormats[] = {{LogFormat::kLogfmt, "logfmt"}, ...};
//   text::NameOf(kLogFormats, format);   text::ValueNamed(kLogFormats, "json");
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace cubby::text {

template <typename E>
struct Named {
  E value;
  std::string_view name;
};

// The name of `value`, or `unknown` when the table lacks it (e.g. a stored value this release
// does not know).
template <typename E, size_t N>
constexpr std::string_view NameOf(const Named<E> (&table)[N], E value,
                                  std::string_view unknown = "") {
  for (const Named<E>& row : table) {
    if (row.value == value) return row.name;
  }
  return unknown;
}

// The value named exactly `name`, or nullopt.
template <typename E, size_t N>
constexpr std::optional<E> ValueNamed(const Named<E> (&table)[N], std::string_view name) {
  for (const Named<E>& row : table) {
    if (row.name == name) return row.value;
  }
  return std::nullopt;
}

}  // namespace cubby::text
