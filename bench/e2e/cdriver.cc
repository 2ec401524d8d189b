// The C client's driver for the peer benchmark (bench/e2e/native.py runs it): the request
// shape of bench/e2e/driver.py through the C API (cr_client_cmd_mget / cr_client_cmd_get),
// on N threads sharing one cr_client, with the locality bench/e2e/clients.py gives the
// Python Client (client location, the two zones, the CIDR of each cloud).
//
//   cloudroute_e2e_cdriver --env E2E_ENV --mode mget|get [--fanout 60] [--threads 1]
//                          [--seconds 3] [--warmup 1] [--policy local] [--keys 10000]
//                          [--load 0|1] [--hedge off|fixed|adaptive] [--stall S]
//                          [--stall-node N] [--shared N]
//
// mget: one MGET of `fanout` random loaded keys (e2e:0 .. e2e:keys-1) per request, split by
// slot by the client; get: one GET of one random key. After connecting and the warm-up it
// prints "READY" and waits for a line on stdin (the caller reads the nodes' commandstats
// then), runs the measured window and prints one JSON object: requests, failed, rps, the
// latency percentiles (driver.py's rule, failed requests included), max, and the process
// CPU time (getrusage) of the window per request. Exit status 0 unless setup failed.
//
// --load 1 writes the key set first (MSET of e2e:0 .. e2e:keys-1, 32-byte values) for a
// caller without driver.py's venv (bench/stall_bench.sh). --hedge: hedged reads off (the
// default), fixed (after 20 ms) or adaptive (the node's recent p99, at least 2 ms); the
// JSON then also counts hedges, hedges_won and hedges_denied of the window. --stall S: a
// node (--stall-node N: NODE<N>_PID of the env; default 2, the cloud-A replica of shard 1)
// is stopped with SIGSTOP 1 s into the measured window and resumed with SIGCONT S seconds
// later (needs seconds >= S + 1). --shared N: cr_client_options.shared_connections (default:
// the library's, 2; 0: a pooled connection per request in flight); the JSON's
// max_node_connections is the most connections any one node was dialed for over the whole run.
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "cloudroute.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  std::string env, mode = "mget", policy = "local";
  std::string hedge = "off";
  int fanout = 60, threads = 1, keys = 10000;
  double seconds = 3, warmup = 1, stall = 0;
  int stall_node = 2;
  int shared = -1;  // the library's default
  bool load = false;
};

int Usage(const char *why) {
  std::fprintf(stderr,
               "cdriver: %s\nusage: cloudroute_e2e_cdriver --env E2E_ENV --mode mget|get "
               "[--fanout 60] [--threads 1] [--seconds 3] [--warmup 1] [--policy local] "
               "[--keys 10000] [--load 0|1] [--hedge off|fixed|adaptive] [--stall S] "
               "[--stall-node N]\n",
               why);
  return 2;
}

std::map<std::string, std::string> ReadEnv(const std::string &path) {
  std::map<std::string, std::string> env;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find('=');
    if (!line.empty() && line[0] != '#' && eq != std::string::npos && eq > 0)
      env[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return env;
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// driver.py's pct(): the value at rank round(p/100 * n + 0.5), 1-based, clamped.
double Pct(const std::vector<double> &sorted, double p) {
  if (sorted.empty()) return NAN;
  const long i = std::lround(p / 100.0 * static_cast<double>(sorted.size()) + 0.5) - 1;
  return sorted[static_cast<size_t>(std::clamp(i, 0L, static_cast<long>(sorted.size()) - 1))];
}

// A JSON number; NaN as Python's json writes and reads it.
std::string Num(double v) {
  if (std::isnan(v)) return "NaN";
  char b[64];
  std::snprintf(b, sizeof b, "%.4f", v);
  return b;
}

struct Row {
  double latency;
  bool ok;
};

// Threads doing requests until `end`; the rows of requests started at or after `from`.
struct Phase {
  std::mutex mu;
  std::vector<Row> rows;
  std::map<std::string, int> errors;
};

void Run(cr_client *c, const Args &a, Clock::time_point from, Clock::time_point end, Phase *ph) {
  std::vector<std::thread> pool;
  for (int t = 0; t < a.threads; ++t) {
    pool.emplace_back([&, t] {
      std::mt19937 rng(static_cast<uint32_t>(t * 7919 + 1));
      const int n = a.mode == "get" ? 1 : a.fanout;
      std::vector<std::string> ks(static_cast<size_t>(n));
      std::vector<const void *> kp(ks.size());
      std::vector<size_t> kl(ks.size());
      std::unordered_set<int> seen;
      for (;;) {
        const Clock::time_point t0 = Clock::now();
        if (t0 >= end) return;
        seen.clear();
        for (size_t i = 0; i < ks.size();) {
          const int k = static_cast<int>(rng() % static_cast<uint32_t>(a.keys));
          if (!seen.insert(k).second) continue;
          ks[i] = "e2e:" + std::to_string(k);
          kp[i] = ks[i].data();
          kl[i] = ks[i].size();
          ++i;
        }
        cr_reply *r = nullptr;
        const cr_status s = a.mode == "get"
                                ? cr_client_cmd_get(&r, c, kp[0], kl[0])
                                : cr_client_cmd_mget(&r, c, kp.data(), kl.data(), ks.size());
        std::string err;
        if (s != CR_OK) {
          err = cr_status_str(s);
        } else if (a.mode == "get" ? cr_reply_get_type(r) != CR_REPLY_TYPE_STRING
                                   : cr_reply_get_count(r) != ks.size()) {
          err = "wrong reply";
        } else if (a.mode == "mget") {
          for (size_t i = 0; i < ks.size(); ++i)
            if (cr_reply_get_type(cr_reply_get_element(r, i)) != CR_REPLY_TYPE_STRING)
              err = "missing value";
        }
        cr_reply_free(r);
        const double lat = std::chrono::duration<double>(Clock::now() - t0).count();
        if (t0 < from) continue;
        std::lock_guard<std::mutex> g(ph->mu);
        ph->rows.push_back({lat, err.empty()});
        if (!err.empty()) ++ph->errors[err];
      }
    });
  }
  for (std::thread &t : pool) t.join();
}

}  // namespace

int main(int argc, char **argv) {
  Args a;
  if (argc % 2 == 0) return Usage("every option takes a value");
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--env")
      a.env = v;
    else if (k == "--mode")
      a.mode = v;
    else if (k == "--policy")
      a.policy = v;
    else if (k == "--fanout")
      a.fanout = std::atoi(v.c_str());
    else if (k == "--threads")
      a.threads = std::atoi(v.c_str());
    else if (k == "--keys")
      a.keys = std::atoi(v.c_str());
    else if (k == "--seconds")
      a.seconds = std::atof(v.c_str());
    else if (k == "--warmup")
      a.warmup = std::atof(v.c_str());
    else if (k == "--load")
      a.load = v == "1";
    else if (k == "--hedge")
      a.hedge = v;
    else if (k == "--stall")
      a.stall = std::atof(v.c_str());
    else if (k == "--stall-node")
      a.stall_node = std::atoi(v.c_str());
    else if (k == "--shared")
      a.shared = std::atoi(v.c_str());
    else
      return Usage(("unknown option " + k).c_str());
  }
  if (a.env.empty() || (a.mode != "mget" && a.mode != "get") || a.threads < 1 || a.keys < 1 ||
      a.fanout < 1 || a.fanout > a.keys || a.seconds <= 0 || a.warmup < 0 || a.stall < 0 ||
      (a.stall > 0 && a.seconds < a.stall + 1) ||
      (a.hedge != "off" && a.hedge != "fixed" && a.hedge != "adaptive"))
    return Usage(
        "need --env, --mode mget|get, 1 <= fanout <= keys, threads >= 1, seconds > 0, "
        "--hedge off|fixed|adaptive, seconds >= stall + 1");
  if (!std::ifstream(a.env)) return Usage(("cannot read " + a.env).c_str());
  std::map<std::string, std::string> env = ReadEnv(a.env);
  for (const char *k : {"CLOUD_A_NODES", "ZONE_A", "ZONE_B", "CLIENT_CIDR_A", "PROXY_CIDR_B"})
    if (env[k].empty()) return Usage((a.env + " has no " + k).c_str());
  const std::string pid_key = "NODE" + std::to_string(a.stall_node) + "_PID";
  const int stall_pid = std::atoi(env[pid_key].c_str());
  if (a.stall > 0 && stall_pid <= 0) return Usage((a.env + " has no " + pid_key).c_str());

  const std::string loc_a = "cloud-a/region-a/" + env["ZONE_A"];
  const std::string loc_b = "cloud-b/region-b/" + env["ZONE_B"];
  cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
  cr_config *cfg = nullptr;
  cr_client *c = nullptr;
  cr_status s = cr_policy_from_name(&ro.policy, a.policy.c_str());
  if (s == CR_OK) s = cr_config_new(&cfg);
  if (s == CR_OK) s = cr_config_set_client_location(cfg, loc_a.c_str());
  if (s == CR_OK) s = cr_config_add_zone(cfg, env["ZONE_A"].c_str(), loc_a.c_str());
  if (s == CR_OK) s = cr_config_add_zone(cfg, env["ZONE_B"].c_str(), loc_b.c_str());
  if (s == CR_OK) s = cr_config_add_location_rule(cfg, env["CLIENT_CIDR_A"].c_str(), loc_a.c_str());
  if (s == CR_OK) s = cr_config_add_location_rule(cfg, env["PROXY_CIDR_B"].c_str(), loc_b.c_str());
  if (s == CR_OK) s = cr_config_set_router_options(cfg, &ro);
  if (s == CR_OK) {
    cr_client_options o = CR_CLIENT_OPTIONS_INIT;
    o.client_name = "cr-e2e-cdriver";
    if (a.shared >= 0) o.shared_connections = static_cast<uint32_t>(a.shared);
    if (a.hedge == "fixed") {
      o.hedge_mode = CR_HEDGE_MODE_FIXED;
      o.hedge_delay_ms = 20;
    } else if (a.hedge == "adaptive") {
      o.hedge_mode = CR_HEDGE_MODE_ADAPTIVE;
      o.hedge_min_delay_ms = 2;
      o.hedge_percentile = 99.0;
    }
    s = cr_client_new(&c, cfg, &o, env["CLOUD_A_NODES"].c_str());
  }
  cr_config_free(cfg);
  if (s != CR_OK) {
    std::fprintf(stderr, "cdriver: setup: %s: %s\n", cr_status_str(s), cr_last_error());
    return 1;
  }

  if (a.load) {
    const std::string value(32, 'v');
    for (int first = 0; first < a.keys && s == CR_OK; first += 100) {
      std::vector<std::string> ks;
      for (int k = first; k < std::min(first + 100, a.keys); ++k)
        ks.push_back("e2e:" + std::to_string(k));
      std::vector<const void *> kp, vp(ks.size(), value.data());
      std::vector<size_t> kl, vl(ks.size(), value.size());
      for (const std::string &k : ks) {
        kp.push_back(k.data());
        kl.push_back(k.size());
      }
      s = cr_client_cmd_mset(c, kp.data(), kl.data(), vp.data(), vl.data(), ks.size());
    }
    if (s != CR_OK) {
      std::fprintf(stderr, "cdriver: load: %s: %s\n", cr_status_str(s), cr_last_error());
      cr_client_free(c);
      return 1;
    }
  }

  Phase warm;
  const Clock::time_point tw = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                  std::chrono::duration<double>(a.warmup));
  Run(c, a, tw, tw, &warm);
  std::printf("READY\n");
  std::fflush(stdout);
  std::string go;
  std::getline(std::cin, go);

  Phase ph;
  cr_client_stats st0 = CR_CLIENT_STATS_INIT, st1 = CR_CLIENT_STATS_INIT;
  cr_client_get_stats(&st0, c);
  const double cpu0 = CpuSeconds();
  const Clock::time_point t0 = Clock::now();
  std::thread staller;
  if (a.stall > 0) {
    staller = std::thread([&] {
      std::this_thread::sleep_until(t0 + std::chrono::seconds(1));
      kill(stall_pid, SIGSTOP);
      std::this_thread::sleep_for(std::chrono::duration<double>(a.stall));
      kill(stall_pid, SIGCONT);
    });
  }
  Run(c, a, t0,
      t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(a.seconds)),
      &ph);
  const double cpu = CpuSeconds() - cpu0;
  if (staller.joinable()) staller.join();
  cr_client_get_stats(&st1, c);
  std::vector<cr_client_node_stats> nodes(64, cr_client_node_stats(CR_CLIENT_NODE_STATS_INIT));
  size_t node_count = 0;
  uint64_t max_node_connections = 0;
  if (cr_client_get_node_stats(nodes.data(), nodes.size(), &node_count, c) == CR_OK) {
    for (size_t i = 0; i < std::min(node_count, nodes.size()); ++i)
      max_node_connections = std::max<uint64_t>(max_node_connections, nodes[i].connections);
  }
  cr_client_free(c);

  std::vector<double> every, ok;
  for (const Row &r : ph.rows) {
    every.push_back(r.latency);
    if (r.ok) ok.push_back(r.latency);
  }
  std::sort(every.begin(), every.end());
  std::sort(ok.begin(), ok.end());
  const size_t n = every.size();
  std::printf(
      "{\"requests\": %zu, \"failed\": %zu, \"rps\": %s, \"p50_ms\": %s, "
      "\"p99_ms\": %s, \"p999_ms\": %s, \"max_ms\": %s, \"ok_p99_ms\": %s, "
      "\"cpu_us_per_req\": %s, \"hedges\": %llu, \"hedges_won\": %llu, "
      "\"hedges_denied\": %llu, \"max_node_connections\": %llu, \"errors\": {",
      n, n - ok.size(), Num(static_cast<double>(ok.size()) / a.seconds).c_str(),
      Num(Pct(every, 50) * 1e3).c_str(), Num(Pct(every, 99) * 1e3).c_str(),
      Num(Pct(every, 99.9) * 1e3).c_str(), Num(n ? every.back() * 1e3 : NAN).c_str(),
      Num(Pct(ok, 99) * 1e3).c_str(),
      Num(cpu / static_cast<double>(std::max<size_t>(1, n)) * 1e6).c_str(),
      (unsigned long long)(st1.hedges - st0.hedges),
      (unsigned long long)(st1.hedges_won - st0.hedges_won),
      (unsigned long long)(st1.hedges_denied - st0.hedges_denied),
      (unsigned long long)max_node_connections);
  const char *sep = "";
  for (const auto &e : ph.errors) {
    std::printf("%s\"%s\": %d", sep, e.first.c_str(), e.second);
    sep = ", ";
  }
  std::printf("}}\n");
  return 0;
}
