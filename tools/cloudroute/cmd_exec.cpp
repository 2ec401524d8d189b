// `cloudroute exec --seeds HOST:PORT[,…] [--node H:P | --all-masters |
// --all-nodes] [--read | --write] [--key-index N] [--timeout MS] -- CMD
// ARG…`: any command on a live cluster. Without a target it is classed and
// placed as the server's command table says (CR_ACCESS_AUTO: a read when
// the server flags it readonly, else a write to the master; routed by the
// keys its key specs find) — --read or --write overrides the class,
// --key-index N the key; with a target it goes to that node, every master or
// every node (cr_client_command_nodes), and each node's answer is printed
// under its address. --timeout replaces the tier timeout for the call
// (BLPOP, XREAD BLOCK, WAIT). Locality, --policy, --remap, --user,
// --client-name and --stats as for get/set/mget.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "client_setup.hpp"

namespace cli {

int CmdExec(const std::vector<std::string> &args) {
  // Everything after "--" is the command, whatever it looks like.
  std::vector<std::string> opts, cmd;
  bool in_cmd = false;
  for (const std::string &a : args) {
    if (!in_cmd && a == "--") {
      in_cmd = true;
      continue;
    }
    (in_cmd ? cmd : opts).push_back(a);
  }
  ClientSetup setup;
  std::vector<std::string> rest;
  if (int rc = setup.Parse(opts, &rest)) return rc;
  std::string node;
  int target = -1;  // none: routed by the key
  cr_access access = CR_ACCESS_AUTO;
  unsigned long key_index = 0;  // 0: the server's key specs find it
  cr_call_options call = CR_CALL_OPTIONS_INIT;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string &a = rest[i];
    auto number = [&](unsigned long *out) {
      if (i + 1 >= rest.size()) return false;
      char *end = nullptr;
      const std::string &v = rest[++i];
      *out = std::strtoul(v.c_str(), &end, 10);
      return !v.empty() && v[0] != '-' && *end == '\0' && *out <= 0xFFFFFFFFul;
    };
    unsigned long v = 0;
    if (a == "--node") {
      if (i + 1 >= rest.size()) return Usage("exec: --node needs HOST:PORT");
      node = rest[++i];
      target = CR_TARGET_NODE;
    } else if (a == "--all-masters" || a == "--all-nodes") {
      if (target != -1) return Usage("exec: give one of --node, --all-masters, --all-nodes");
      target = a == "--all-masters" ? CR_TARGET_MASTERS : CR_TARGET_ALL_NODES;
    } else if (a == "--read" || a == "--write") {
      if (access != CR_ACCESS_AUTO) return Usage("exec: give one of --read, --write");
      access = a == "--read" ? CR_ACCESS_READ : CR_ACCESS_WRITE;
    } else if (a == "--key-index") {
      if (!number(&key_index) || key_index == 0) return Usage("exec: --key-index wants N >= 1");
    } else if (a == "--timeout") {
      if (!number(&v) || v == 0) return Usage("exec: --timeout wants milliseconds > 0");
      call.timeout_ms = static_cast<uint32_t>(v);
    } else {
      return Usage("exec: unknown option '" + a + "' (the command goes after --)");
    }
  }
  if (cmd.empty()) return Usage("exec: no command (cloudroute exec [options] -- CMD ARG...)");
  if (access != CR_ACCESS_AUTO && key_index == 0) key_index = 1;
  // A command of its name alone names no key (the server's key specs find
  // none in it either).
  if (target == -1 && std::max<size_t>(key_index, 1) >= cmd.size()) {
    return Usage("exec: " + cmd[0] + " has no argument " +
                 std::to_string(std::max<size_t>(key_index, 1)) +
                 " to route by; give --key-index, --node, --all-masters or --all-nodes");
  }
  if (int rc = setup.Connect()) return rc;
  const ByteArgs argv(cmd);
  const auto before = setup.NodeStats();
  int exit_code = kExitOk;
  if (target == -1) {
    cr_reply *r = nullptr;
    const cr_status s = cr_client_command_opts(&r, setup.client, &call, access, key_index,
                                               argv.size(), argv.ptrs.data(), argv.lens.data());
    if (s != CR_OK) return Die(cmd[0], s), kExitCommandFailed;
    PrintReply(r);
    cr_reply_free(r);
  } else {
    cr_node_replies *r = nullptr;
    const cr_status s = cr_client_command_nodes(
        &r, setup.client, &call, static_cast<cr_target>(target),
        node.empty() ? nullptr : node.c_str(), argv.size(), argv.ptrs.data(), argv.lens.data());
    if (s != CR_OK) return Die(cmd[0], s), kExitCommandFailed;
    for (size_t i = 0; i < cr_node_replies_get_count(r); ++i) {
      std::printf("%s (%s):\n", cr_node_replies_get_address(r, i),
                  cr_role_name(cr_node_replies_get_role(r, i)));
      const cr_reply *reply = cr_node_replies_get_reply(r, i);
      if (reply != nullptr) {
        std::string out = "  ";
        FormatReply(reply, 2, &out);
        std::fputs(out.c_str(), stdout);
      } else {
        std::printf("  (error) %s: %s\n", cr_status_str(cr_node_replies_get_status(r, i)),
                    Printable(cr_node_replies_get_error(r, i)).c_str());
      }
    }
    if (cr_node_replies_get_failed(r) > 0) exit_code = kExitCommandFailed;
    cr_node_replies_free(r);
  }
  setup.PrintServed(cmd[0], before);
  setup.PrintTotals();
  return exit_code;
}

}  // namespace cli
