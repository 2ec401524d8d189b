// CLUSTER NODES text (see cluster_nodes_text.hpp).
#include "cloudroute/core/cluster_nodes_text.hpp"

#include "cloudroute/core/keyslot.hpp"

namespace cloudroute {

std::vector<uint16_t> ParseMigratingSlots(std::string_view text) {
  std::vector<uint16_t> out;
  // One line per node; ours says "myself" in its flags (third field).
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t sp1 = line.find(' ');
    const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    const size_t sp3 = sp2 == std::string_view::npos ? sp2 : line.find(' ', sp2 + 1);
    if (sp3 == std::string_view::npos) continue;
    const std::string_view flags = line.substr(sp2 + 1, sp3 - sp2 - 1);
    if (flags.find("myself") == std::string_view::npos) continue;
    for (size_t at = line.find('[', sp3); at != std::string_view::npos;
         at = line.find('[', at + 1)) {
      const size_t close = line.find(']', at);
      if (close == std::string_view::npos) break;
      const std::string_view marker = line.substr(at + 1, close - at - 1);  // "123->-id"
      const size_t arrow = marker.find("->-");
      if (arrow == std::string_view::npos || arrow == 0 || arrow > 5) continue;
      uint32_t slot = 0;
      bool digits = true;
      for (size_t i = 0; i < arrow; ++i) {
        const char ch = marker[i];
        if (ch < '0' || ch > '9')
          digits = false;
        else
          slot = slot * 10 + static_cast<uint32_t>(ch - '0');
      }
      if (digits && slot < kSlotCount) out.push_back(static_cast<uint16_t>(slot));
    }
  }
  return out;
}

}  // namespace cloudroute
