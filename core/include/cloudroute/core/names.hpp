// Names of enum values as configuration text spells them ("prefer-replica",
// "round-robin", "commons-codec"): matched case-insensitively, with '_' read
// as '-', so "PREFER_REPLICA" works too.
//
// Thread-safety: pure functions.
#pragma once

#include <cctype>
#include <cstddef>
#include <string_view>

namespace cloudroute {

// The index of `name` in `names`, or -1.
template <size_t N>
int IndexOfName(std::string_view name, const char *const (&names)[N]) {
  for (size_t i = 0; i < N; ++i) {
    const std::string_view want = names[i];
    if (want.size() != name.size()) continue;
    bool same = true;
    for (size_t j = 0; j < name.size() && same; ++j) {
      const char c = name[j] == '_'
                         ? '-'
                         : static_cast<char>(std::tolower(static_cast<unsigned char>(name[j])));
      same = c == want[j];
    }
    if (same) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace cloudroute
