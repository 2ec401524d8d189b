// Hedged reads under a stalled replica, and what they cost when nothing is
// wrong. One run: a client "in cloud A" (127.0.1.0/24 local,
// 127.0.2.0/24 cloud B, the `local` policy, every other option at its
// default: local timeout 500 ms, breaker cool-down 2 s) reads, on --threads
// threads, keys whose first read candidate is the replica n6 of the
// harness cluster. --scenario stall stops n6 with SIGSTOP for the measured
// --seconds (SIGCONT after); quiet leaves it alone. Only the reads of the
// measured window count. bench/hedge_bench.sh runs every mode several times
// and prints medians.
//
//   cloudroute_hedge_bench --env CLUSTER_ENV --mode off|fixed|adaptive
//                          --scenario stall|quiet [--seconds S] [--threads N]
// fixed: a 20 ms delay; adaptive: the node's recent p99, at least 2 ms.
// Prints one line:
//   HEDGE_BENCH mode=… scenario=… reads=… failed=… p50_us=… p99_us=… max_us=…
//   hedges=… won=… denied=… hedges_per_1000=…
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"

namespace {

using Clock = std::chrono::steady_clock;

std::map<std::string, std::string> LoadEnv(const std::string &path) {
  std::map<std::string, std::string> env;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos && !line.empty() && line[0] != '#')
      env[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return env;
}

int Fail(const char *what, cr_status s) {
  std::fprintf(stderr, "hedge_bench: %s: %s: %s\n", what, cr_status_str(s), cr_last_error());
  return 1;
}

cr_client *NewClient(const std::string &seeds, const std::string &mode) {
  cr_config *cfg = nullptr;
  if (cr_config_new(&cfg) != CR_OK || cr_config_add_local_cidr(cfg, "127.0.1.0/24") != CR_OK ||
      cr_config_add_location_rule(cfg, "127.0.2.0/24", "cloud-b") != CR_OK ||
      cr_config_set_client_location(cfg, "cloud-a") != CR_OK) {
    cr_config_free(cfg);
    return nullptr;
  }
  cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
  ro.policy = CR_POLICY_LOCAL;
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.client_name = "cr-hedge-bench";
  if (mode == "fixed") {
    o.hedge_mode = CR_HEDGE_MODE_FIXED;
    o.hedge_delay_ms = 20;
  } else if (mode == "adaptive") {
    o.hedge_mode = CR_HEDGE_MODE_ADAPTIVE;
    o.hedge_min_delay_ms = 2;
    o.hedge_percentile = 99.0;
  }
  cr_client *c = nullptr;
  if (cr_config_set_router_options(cfg, &ro) != CR_OK ||
      cr_client_new(&c, cfg, &o, seeds.c_str()) != CR_OK) {
    c = nullptr;
  }
  cr_config_free(cfg);
  return c;
}

std::string FirstCandidate(cr_client *c, const std::string &key) {
  cr_candidate out[8];
  for (cr_candidate &x : out) x.struct_size = sizeof(cr_candidate);
  size_t n = 0;
  if (cr_router_candidates(out, 8, &n, cr_client_get_router(c), key.data(), key.size()) != CR_OK ||
      n == 0)
    return "";
  return std::string(out[0].host) + ":" + std::to_string(out[0].port);
}

bool Get(cr_client *c, const std::string &k) {
  cr_reply *r = nullptr;
  const cr_status s = cr_client_cmd_get(&r, c, k.data(), k.size());
  cr_reply_free(r);
  return s == CR_OK;
}

int64_t Percentile(const std::vector<int64_t> &sorted, double p) {
  if (sorted.empty()) return 0;
  const size_t i = static_cast<size_t>(p / 100.0 * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

}  // namespace

int main(int argc, char **argv) {
  std::string env_path, mode, scenario;
  double seconds = 5;
  int threads = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--env")
      env_path = v;
    else if (a == "--mode")
      mode = v;
    else if (a == "--scenario")
      scenario = v;
    else if (a == "--seconds")
      seconds = std::atof(v.c_str());
    else if (a == "--threads")
      threads = std::max(1, std::atoi(v.c_str()));
  }
  if (env_path.empty() || (mode != "off" && mode != "fixed" && mode != "adaptive") ||
      (scenario != "stall" && scenario != "quiet") || seconds <= 0 || seconds > 60) {
    std::fprintf(stderr,
                 "usage: cloudroute_hedge_bench --env CLUSTER_ENV --mode off|fixed|adaptive "
                 "--scenario stall|quiet [--seconds S<=60] [--threads N]\n");
    return 2;
  }
  std::map<std::string, std::string> env = LoadEnv(env_path);
  const std::string n6 = env["NODE6_ADDR"];
  const int n6_pid = std::atoi(env["NODE6_PID"].c_str());
  if (env["SEEDS"].empty() || n6.empty() || n6_pid <= 0) {
    std::fprintf(stderr, "hedge_bench: %s has no SEEDS / NODE6_ADDR / NODE6_PID\n",
                 env_path.c_str());
    return 2;
  }
  cr_client *c = NewClient(env["SEEDS"], mode);
  if (c == nullptr) return Fail("client", CR_ECONN);

  std::vector<std::string> keys;
  for (int i = 0; keys.size() < 50 && i < 100000; ++i) {
    std::string k = "hedge-bench:" + std::to_string(i);
    if (FirstCandidate(c, k) == n6) keys.push_back(std::move(k));
  }
  for (const std::string &k : keys) {
    const cr_status s = cr_client_cmd_set(c, k.data(), k.size(), "v", 1, 0);
    if (s != CR_OK) return Fail("SET", s);
  }
  // Warm for a second: pools dialed, writes replicated, recent latencies known.
  const auto warm_end = Clock::now() + std::chrono::seconds(1);
  for (size_t i = 0; Clock::now() < warm_end; ++i) Get(c, keys[i % keys.size()]);

  cr_client_stats before = CR_CLIENT_STATS_INIT, after = CR_CLIENT_STATS_INIT;
  cr_client_get_stats(&before, c);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> failed{0};
  std::vector<std::vector<int64_t>> lat(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  if (scenario == "stall") kill(n6_pid, SIGSTOP);
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (size_t i = static_cast<size_t>(t); !stop.load(); ++i) {
        const auto t0 = Clock::now();
        if (!Get(c, keys[i % keys.size()])) failed.fetch_add(1);
        lat[static_cast<size_t>(t)].push_back(
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count());
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop.store(true);
  for (std::thread &th : pool) th.join();
  if (scenario == "stall") kill(n6_pid, SIGCONT);
  cr_client_get_stats(&after, c);
  cr_client_free(c);

  std::vector<int64_t> all;
  for (const auto &v : lat) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  const uint64_t hedges = after.hedges - before.hedges;
  std::printf(
      "HEDGE_BENCH mode=%s scenario=%s reads=%zu failed=%llu p50_us=%lld p99_us=%lld "
      "max_us=%lld hedges=%llu won=%llu denied=%llu hedges_per_1000=%.2f\n",
      mode.c_str(), scenario.c_str(), all.size(), (unsigned long long)failed.load(),
      (long long)Percentile(all, 50), (long long)Percentile(all, 99),
      (long long)(all.empty() ? 0 : all.back()), (unsigned long long)hedges,
      (unsigned long long)(after.hedges_won - before.hedges_won),
      (unsigned long long)(after.hedges_denied - before.hedges_denied),
      all.empty() ? 0.0 : 1000.0 * static_cast<double>(hedges) / static_cast<double>(all.size()));
  return 0;
}
