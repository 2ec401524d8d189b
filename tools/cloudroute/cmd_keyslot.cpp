#include <cstdio>

#include "cli.hpp"

namespace cli {

int CmdKeyslot(const std::vector<std::string> &args) {
  for (const std::string &a : args) {
    if (a == "--help" || a == "-h") {
      std::puts("usage: cloudroute keyslot [KEY...]   (keys from stdin, one per line, when none)");
      return kExitOk;
    }
  }
  std::string out;
  for (const std::string &key : KeysFromArgsOrStdin(args)) {
    out += std::to_string(cr_keyslot(key.data(), key.size()));
    out += '\n';
    if (out.size() > 1 << 16) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace cli
