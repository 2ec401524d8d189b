// `cloudroute topology` and `cloudroute route`.
#include <cstdio>
#include <cstdlib>

#include "cli.hpp"

namespace cli {

namespace {

std::vector<cr_candidate> Candidates(cr_router *r, const std::string *key, uint32_t slot,
                                     cr_status *status) {
  std::vector<cr_candidate> out(8);
  for (;;) {
    for (auto &c : out) c.struct_size = sizeof(cr_candidate);
    size_t n = 0;
    *status = key != nullptr
                  ? cr_router_candidates(out.data(), out.size(), &n, r, key->data(), key->size())
                  : cr_router_candidates_slot(out.data(), out.size(), &n, r, slot);
    if (*status == CR_EBUFS) {
      out.resize(n);
      continue;
    }
    out.resize(*status == CR_OK ? n : 0);
    return out;
  }
}

}  // namespace

int CmdTopology(const std::vector<std::string> &args) {
  RouterSetup setup;
  std::vector<std::string> rest;
  if (int rc = setup.Parse(args, &rest)) return rc;
  if (!rest.empty()) return Usage("topology: unexpected argument '" + rest[0] + "'");
  if (int rc = setup.Build()) return rc;

  const size_t shards = cr_topology_get_shard_count(setup.topo);
  std::printf("%zu shards, %zu nodes, policy %s\n", shards, cr_topology_get_node_count(setup.topo),
              cr_policy_name(setup.opts.policy));
  uint32_t covered = 0;
  for (size_t s = 0; s < shards; ++s) {
    const char *id = "";
    cr_topology_get_shard_id(&id, setup.topo, s);
    size_t nranges = 0;
    cr_topology_get_shard_ranges(nullptr, nullptr, 0, &nranges, setup.topo, s);
    std::vector<uint16_t> starts(nranges), ends(nranges);
    cr_topology_get_shard_ranges(starts.data(), ends.data(), nranges, &nranges, setup.topo, s);
    std::string ranges;
    uint32_t count = 0;
    for (size_t i = 0; i < nranges; ++i) {
      if (!ranges.empty()) ranges += ",";
      ranges += std::to_string(starts[i]);
      if (ends[i] != starts[i]) ranges += "-" + std::to_string(ends[i]);
      count += ends[i] - starts[i] + 1u;
    }
    covered += count;
    std::printf("shard %zu %s\n  slots %s (%u)\n", s, id, ranges.empty() ? "none" : ranges.c_str(),
                count);
    if (nranges == 0) continue;
    cr_status st;
    auto cands = Candidates(setup.router, nullptr, starts[0], &st);
    if (st != CR_OK) return Die("candidates of shard " + std::to_string(s), st);
    std::printf("  read order:\n");
    for (size_t i = 0; i < cands.size(); ++i) {
      const cr_candidate &c = cands[i];
      std::printf("    %zu. %-22s %-7s tier=%-11s rank=%u weight=%u\n", i + 1,
                  Address(c.host, c.port).c_str(), cr_role_name(c.role), cr_tier_name(c.tier),
                  c.rank, c.weight);
    }
  }
  if (covered != CR_SLOT_COUNT) {
    std::printf("warning: %u of 16384 slots are served by no shard\n", CR_SLOT_COUNT - covered);
  }
  return kExitOk;
}

int CmdRoute(const std::vector<std::string> &args) {
  RouterSetup setup;
  std::vector<std::string> rest;
  if (int rc = setup.Parse(args, &rest)) return rc;
  bool explain = false, json = false;
  std::vector<std::string> keys;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == "--") {
      keys.insert(keys.end(), rest.begin() + static_cast<long>(i) + 1, rest.end());
      break;
    }
    if (rest[i] == "--explain")
      explain = true;
    else if (rest[i] == "--json")
      json = true;
    else if (rest[i].size() > 2 && rest[i].compare(0, 2, "--") == 0)
      return Usage("route: unknown option '" + rest[i] + "'");
    else
      keys.push_back(rest[i]);
  }
  if (int rc = setup.Build()) return rc;
  keys = KeysFromArgsOrStdin(keys);

  int exit_code = kExitOk;
  std::vector<char> buf(4096);
  for (const std::string &key : keys) {
    const uint16_t slot = cr_keyslot(key.data(), key.size());
    cr_route w = CR_ROUTE_INIT;
    cr_status ws = cr_router_route_write(&w, setup.router, key.data(), key.size());
    std::string write = ws == CR_OK ? Address(w.host, w.port) : "";
    cr_status cs;
    auto cands = Candidates(setup.router, &key, 0, &cs);
    if (ws != CR_OK && cs != CR_OK) {
      exit_code = kExitRouteFailed;
      if (json) {
        std::printf("{\"key\": %s, \"slot\": %u, \"error\": %s, \"message\": %s}\n",
                    JsonString(key).c_str(), slot, JsonString(cr_status_str(ws)).c_str(),
                    JsonString(cr_last_error()).c_str());
      } else {
        std::printf("%s slot=%u error: %s: %s\n", Printable(key).c_str(), slot, cr_status_str(ws),
                    Printable(cr_last_error()).c_str());
      }
      continue;
    }
    if (json) {
      std::string read;
      for (const cr_candidate &c : cands) {
        if (!read.empty()) read += ", ";
        read += JsonString(Address(c.host, c.port));
      }
      std::printf("{\"key\": %s, \"slot\": %u, \"write\": %s, \"read\": [%s]}\n",
                  JsonString(key).c_str(), slot, ws == CR_OK ? JsonString(write).c_str() : "null",
                  read.c_str());
      continue;
    }
    std::string read;
    for (const cr_candidate &c : cands) {
      if (!read.empty()) read += ",";
      read += Address(c.host, c.port);
    }
    std::printf("%s slot=%u write=%s read=%s\n", key.c_str(), slot,
                ws == CR_OK ? write.c_str() : "?", read.c_str());
    if (explain) {
      size_t needed = 0;
      cr_status es =
          cr_router_explain(buf.data(), buf.size(), &needed, setup.router, key.data(), key.size());
      if (es == CR_EBUFS) {
        buf.resize(needed);
        es = cr_router_explain(buf.data(), buf.size(), &needed, setup.router, key.data(),
                               key.size());
      }
      if (es != CR_OK) return Die("explain", es);
      std::fputs(buf.data(), stdout);
    }
  }
  return exit_code;
}

}  // namespace cli
