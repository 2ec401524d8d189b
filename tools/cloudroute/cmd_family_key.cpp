// `cloudroute family-key`: the key the family-key design stores for
// (FAMILY, KEY), with the hash variant existing data was written with.
#include <cstdio>

#include "cli.hpp"

namespace cli {

namespace {

const char kUsage[] =
    "usage: cloudroute family-key [--variant jedis|commons-codec] FAMILY KEY\n"
    "  The stored key for (FAMILY, KEY): the decimal 64-bit MurmurHash of FAMILY:KEY as\n"
    "  Jedis's MurmurHash (jedis, the default; seed 0x1234ABCD) or commons-codec's\n"
    "  MurmurHash2.hash64(String) (commons-codec; seed 0xe17a1465) computes it.\n"
    "  Arguments are hashed as given (UTF-8, like both Java classes).\n";

}  // namespace

int CmdFamilyKey(const std::vector<std::string> &args) {
  cr_family_key_variant variant = CR_FAMILY_KEY_VARIANT_JEDIS;
  std::vector<std::string> pos;
  bool options = true;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (options && (a == "--help" || a == "-h")) {
      std::fputs(kUsage, stdout);
      return kExitOk;
    } else if (options && a == "--") {
      options = false;
    } else if (options && a == "--variant") {
      if (i + 1 >= args.size()) return Usage("family-key: --variant needs a value");
      if (cr_status s = cr_family_key_variant_from_name(&variant, args[++i].c_str()); s != CR_OK)
        return Die("family-key --variant", s);
    } else if (options && a.size() > 1 && a[0] == '-') {
      return Usage("family-key: unknown option '" + a + "' (try: cloudroute family-key --help)");
    } else {
      pos.push_back(a);
    }
  }
  if (pos.size() != 2)
    return Usage("family-key: want FAMILY KEY (try: cloudroute family-key --help)");
  char buf[CR_FAMILY_KEY_SIZE];
  size_t needed = 0;
  cr_status s = cr_family_key_as(buf, sizeof buf, &needed, variant, pos[0].c_str(), pos[1].data(),
                                 pos[1].size());
  if (s != CR_OK) return Die("family-key", s);
  std::printf("%s\n", buf);
  return kExitOk;
}

}  // namespace cli
