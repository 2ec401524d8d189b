// Internal to the CLI: the options and client every live-cluster command
// shares (get, set, mget, exec, pipe): --seeds, the locality and policy
// options of RouterSetup (--remap and the TLS options included), --user, --client-name, --stats,
// --read-your-writes MS (cr_client_options.read_your_writes_ms), --db N
// (cr_client_options.db), --shared-connections N (.shared_connections); the password
// from $CLOUDROUTE_PASSWORD, never from the command line.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "cli.hpp"

namespace cli {

constexpr int kExitCommandFailed = 1;

// A string or status reply on one line (Printable), "(nil)" for nil: what
// get, mget and `sentinel get|set` print.
void PrintValue(const cr_reply *r);

struct ClientSetup {
  RouterSetup router;
  std::string seeds, user, name;
  bool stats = false;
  uint32_t read_your_writes_ms = 0;
  uint32_t db = 0;
  uint32_t shared_connections = 0;
  cr_client *client = nullptr;
  ~ClientSetup() { cr_client_free(client); }

  int Parse(const std::vector<std::string> &args, std::vector<std::string> *rest) {
    std::vector<std::string> mine;
    int rc = router.Parse(args, &mine);
    if (rc != 0) return rc;
    for (size_t i = 0; i < mine.size(); ++i) {
      const std::string &a = mine[i];
      if (a == "--seeds" || a == "--user" || a == "--client-name") {
        if (i + 1 >= mine.size()) return Usage(a + " needs a value");
        (a == "--seeds" ? seeds : a == "--user" ? user : name) = mine[++i];
      } else if (a == "--stats") {
        stats = true;
      } else if (a == "--read-your-writes" || a == "--shared-connections") {
        const std::string v = i + 1 < mine.size() ? mine[++i] : "";
        char *end = nullptr;
        const unsigned long n = std::strtoul(v.c_str(), &end, 10);
        if (v.empty() || v[0] == '-' || *end != '\0' || n > 0xFFFFFFFFul) {
          return Usage(a + (a == "--read-your-writes" ? " wants milliseconds" : " wants a count") +
                       " (0 = off), got '" + v + "'");
        }
        (a == "--read-your-writes" ? read_your_writes_ms : shared_connections) =
            static_cast<uint32_t>(n);
      } else if (a == "--db") {
        rc = ParseDb(i + 1 < mine.size() ? mine[++i] : "", &db);
        if (rc != 0) return rc;
      } else {
        rest->push_back(a);
      }
    }
    if (seeds.empty()) seeds = router.seeds;  // RouterSetup takes --seeds too
    if (seeds.empty()) return Usage("--seeds HOST:PORT[,HOST:PORT...] is required");
    return 0;
  }

  int Connect() {
    cr_status s = cr_config_set_router_options(router.cfg, &router.opts);
    if (s != CR_OK) return Die("options", s);
    cr_client_options o = CR_CLIENT_OPTIONS_INIT;
    const char *pw = std::getenv("CLOUDROUTE_PASSWORD");
    o.password = pw != nullptr && *pw != '\0' ? pw : nullptr;
    o.username = user.empty() ? nullptr : user.c_str();
    o.client_name = name.empty() ? "cloudroute-cli" : name.c_str();
    o.refresh_interval_ms = 0;  // a short-lived process
    o.read_your_writes_ms = read_your_writes_ms;
    o.db = db;
    o.shared_connections = shared_connections;  // the library judges the range
    if (const int rc = router.tls.Apply(&o)) return rc;
    s = cr_client_new(&client, router.cfg, &o, seeds.c_str());
    if (s != CR_OK) return Die("connect to " + seeds, s);
    return 0;
  }

  std::map<uint32_t, cr_client_node_stats> NodeStats() const {
    std::vector<cr_client_node_stats> v(16);
    size_t n = 0;
    for (;;) {
      for (auto &e : v) e = CR_CLIENT_NODE_STATS_INIT;
      const cr_status s = cr_client_get_node_stats(v.data(), v.size(), &n, client);
      if (s != CR_EBUFS) break;
      v.resize(n);
    }
    std::map<uint32_t, cr_client_node_stats> m;
    for (size_t i = 0; i < n && i < v.size(); ++i) m[v[i].node_handle] = v[i];
    return m;
  }

  // Which nodes served reads between two NodeStats() calls, with their tier.
  void PrintServed(const std::string &what,
                   const std::map<uint32_t, cr_client_node_stats> &before) const {
    if (!stats) return;
    cr_router *r = nullptr;
    r = cr_client_get_router(client);
    for (const auto &kv : NodeStats()) {
      auto it = before.find(kv.first);
      const uint64_t reads = kv.second.reads - (it == before.end() ? 0 : it->second.reads);
      if (reads == 0) continue;
      std::string tier = "?";
      // The node's tier as the router ranks it (any key of a slot it serves).
      cr_candidate c[16];
      for (auto &e : c) e.struct_size = sizeof(cr_candidate);
      for (uint32_t slot = 0; slot < CR_SLOT_COUNT && tier == "?"; slot += 97) {
        size_t n = 0;
        if (cr_router_candidates_slot(c, 16, &n, r, slot) != CR_OK) continue;
        for (size_t i = 0; i < n; ++i) {
          if (c[i].node_handle == kv.first) tier = cr_tier_name(c[i].tier);
        }
      }
      std::fprintf(stderr, "served %s: %llu read(s) by %s (%s)\n", Printable(what).c_str(),
                   static_cast<unsigned long long>(reads),
                   Address(kv.second.host, kv.second.port).c_str(), tier.c_str());
    }
  }

  void PrintTotals() const {
    if (!stats) return;
    cr_client_stats st = CR_CLIENT_STATS_INIT;
    if (cr_client_get_stats(&st, client) != CR_OK) return;
    std::fprintf(stderr,
                 "stats: reads=%llu local=%llu same-region=%llu same-cloud=%llu other-cloud=%llu "
                 "unknown=%llu writes=%llu fallbacks=%llu moved=%llu ask=%llu retries=%llu "
                 "conn_errors=%llu timeouts=%llu refreshes=%llu\n",
                 (unsigned long long)st.reads, (unsigned long long)st.reads_by_tier[0],
                 (unsigned long long)st.reads_by_tier[1], (unsigned long long)st.reads_by_tier[2],
                 (unsigned long long)st.reads_by_tier[3], (unsigned long long)st.reads_by_tier[4],
                 (unsigned long long)st.writes, (unsigned long long)st.fallbacks,
                 (unsigned long long)st.moved, (unsigned long long)st.ask,
                 (unsigned long long)st.retries, (unsigned long long)st.conn_errors,
                 (unsigned long long)st.timeouts, (unsigned long long)st.refreshes);
  }
};

}  // namespace cli
