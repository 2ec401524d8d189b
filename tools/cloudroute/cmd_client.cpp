// `cloudroute get|set|mget --seeds HOST:PORT[,…]`: commands executed on a
// live cluster through the client of the C API, with the same locality and
// policy options as `route`. --stats prints, on stderr, where each read was
// served (node, tier) and the client's counters. A password is read from
// the environment (CLOUDROUTE_PASSWORD), never from the command line.
#include <cstdio>
#include <map>

#include "client_setup.hpp"

namespace cli {

void PrintValue(const cr_reply *r) {
  size_t len = 0;
  const char *p = cr_reply_get_string(r, &len);
  if (p == nullptr) {
    std::puts("(nil)");
    return;
  }
  std::puts(Printable(std::string_view(p, len)).c_str());
}

int CmdClient(const std::string &verb, const std::vector<std::string> &args) {
  ClientSetup setup;
  std::vector<std::string> rest;
  int rc = setup.Parse(args, &rest);
  if (rc != 0) return rc;
  for (const std::string &a : rest) {
    if (a.size() > 2 && a.compare(0, 2, "--") == 0) return Usage("unknown option '" + a + "'");
  }
  if (verb == "set" && rest.size() != 2) return Usage("set needs KEY VALUE");
  if (verb != "set" && rest.empty()) return Usage(verb + " needs at least one KEY");
  if ((rc = setup.Connect()) != 0) return rc;

  int exit_code = kExitOk;
  if (verb == "set") {
    const cr_status s = cr_client_cmd_set(setup.client, rest[0].data(), rest[0].size(),
                                          rest[1].data(), rest[1].size(), 0);
    if (s != CR_OK) return Die("set " + rest[0], s), kExitCommandFailed;
    std::puts("OK");
  } else if (verb == "get") {
    for (const std::string &key : rest) {
      const auto before = setup.NodeStats();
      cr_reply *r = nullptr;
      const cr_status s = cr_client_cmd_get(&r, setup.client, key.data(), key.size());
      if (s != CR_OK) {
        std::fprintf(stderr, "cloudroute: get %s: %s: %s\n", Printable(key).c_str(),
                     cr_status_str(s), Printable(cr_last_error()).c_str());
        exit_code = kExitCommandFailed;
        continue;
      }
      PrintValue(r);
      cr_reply_free(r);
      setup.PrintServed(key, before);
    }
  } else {  // mget
    const ByteArgs keys(rest);
    const auto before = setup.NodeStats();
    cr_reply *r = nullptr;
    const cr_status s =
        cr_client_cmd_mget(&r, setup.client, keys.ptrs.data(), keys.lens.data(), keys.size());
    if (s != CR_OK) return Die("mget", s), kExitCommandFailed;
    for (size_t i = 0; i < cr_reply_get_count(r); ++i) PrintValue(cr_reply_get_element(r, i));
    cr_reply_free(r);
    setup.PrintServed("mget", before);
  }
  setup.PrintTotals();
  return exit_code;
}

}  // namespace cli
