// Load-aware selection against random and round-robin with one slow local
// replica. One run: a client for which every node is local (127.0.0.0/8),
// the local-spread policy (shard 1's master n1 and replicas n2, n3 share
// one rank), n2 dialed through --proxy (bench/least_loaded_bench.sh puts
// scripts/latency-proxy.py there, 10 ms each way: n2 is 20 ms slower),
// reads keys of shard 1 on --threads threads — GETs, or MGETs of 4 keys —
// with --selection. Only the reads of the measured --seconds count (after
// a 1 s warm-up).
//
//   cloudroute_least_loaded_bench --env CLUSTER_ENV --proxy IP:PORT
//       --selection random|round-robin|least-loaded [--op get|mget]
//       [--seconds S] [--threads N]
// Prints one line:
//   LEAST_LOADED_BENCH selection=… op=… requests=… failed=… p50_us=… p99_us=…
//   max_us=… n1=… n2=… n3=…   (each node's share of the reads, 0..1)
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

std::map<std::string, std::string> ReadEnvFile(const std::string &path) {
  std::map<std::string, std::string> env;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos && line[0] != '#') env[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return env;
}

int Die(const char *what, cr_status s) {
  std::fprintf(stderr, "least_loaded_bench: %s: %s: %s\n", what, cr_status_str(s), cr_last_error());
  return 1;
}

// Reads per node ("host:port") so far.
std::map<std::string, uint64_t> NodeReads(cr_client *c) {
  std::vector<cr_client_node_stats> v(64, cr_client_node_stats(CR_CLIENT_NODE_STATS_INIT));
  size_t count = 0;
  std::map<std::string, uint64_t> out;
  if (cr_client_get_node_stats(v.data(), v.size(), &count, c) != CR_OK) return out;
  for (size_t i = 0; i < count && i < v.size(); ++i)
    out[std::string(v[i].host) + ":" + std::to_string(v[i].port)] = v[i].reads;
  return out;
}

}  // namespace

int main(int argc, char **argv) {
  std::string env_path, proxy, selection = "least-loaded", op = "get";
  double seconds = 5;
  int threads = 4;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--env")
      env_path = v;
    else if (a == "--proxy")
      proxy = v;
    else if (a == "--selection")
      selection = v;
    else if (a == "--op")
      op = v;
    else if (a == "--seconds")
      seconds = std::atof(v.c_str());
    else if (a == "--threads")
      threads = std::atoi(v.c_str());
    else {
      std::fprintf(stderr, "least_loaded_bench: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  auto env = ReadEnvFile(env_path);
  if (env["SEEDS"].empty() || proxy.empty() || threads < 1 || threads > 64 || seconds <= 0 ||
      seconds > 600 || (op != "get" && op != "mget")) {
    std::fprintf(stderr,
                 "usage: cloudroute_least_loaded_bench --env CLUSTER_ENV --proxy IP:PORT "
                 "--selection S [--op get|mget] [--seconds 0<S<=600] [--threads 1..64]\n");
    return 2;
  }
  const std::string n[3] = {env["NODE1_IP"] + ":" + env["NODE1_PORT"],
                            env["NODE2_IP"] + ":" + env["NODE2_PORT"],
                            env["NODE3_IP"] + ":" + env["NODE3_PORT"]};

  cr_selection sel = CR_SELECTION_RANDOM;
  if (cr_status s = cr_selection_from_name(&sel, selection.c_str()); s != CR_OK)
    return Die("--selection", s);
  cr_config *cfg = nullptr;
  cr_status s = cr_config_new(&cfg);
  if (s == CR_OK) s = cr_config_add_local_cidr(cfg, "127.0.0.0/8");
  if (s == CR_OK) s = cr_config_set_client_location(cfg, "cloud-a");
  if (s == CR_OK) s = cr_config_add_address_remap(cfg, n[1].c_str(), proxy.c_str());
  cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
  ro.policy = CR_POLICY_LOCAL_SPREAD;
  if (s == CR_OK) s = cr_config_set_router_options(cfg, &ro);
  if (s == CR_OK) s = cr_config_set_selection(cfg, sel);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.client_name = "cr-least-loaded-bench";
  cr_client *c = nullptr;
  if (s == CR_OK) s = cr_client_new(&c, cfg, &o, env["SEEDS"].c_str());
  cr_config_free(cfg);
  if (s != CR_OK) return Die("client", s);

  // 256 keys of shard 1 (master n1), written once.
  std::vector<std::string> keys;
  cr_router *router = cr_client_get_router(c);
  for (int i = 0; keys.size() < 256 && i < 200000; ++i) {
    const std::string k = "llb:" + std::to_string(i);
    cr_route r = CR_ROUTE_INIT;
    if (cr_router_route_write(&r, router, k.data(), k.size()) == CR_OK &&
        std::string(r.host) + ":" + std::to_string(r.port) == n[0]) {
      if (s = cr_client_cmd_set(c, k.data(), k.size(), "v", 1, 0); s != CR_OK) return Die("SET", s);
      keys.push_back(k);
    }
  }

  std::atomic<int> stage{0};  // 0 warm-up, 1 measured, 2 stop
  std::atomic<uint64_t> failed{0};
  std::vector<std::vector<int64_t>> lat(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      size_t i = static_cast<size_t>(t) * 31;
      while (stage.load(std::memory_order_relaxed) < 2) {
        const Clock::time_point t0 = Clock::now();
        cr_reply *r = nullptr;
        cr_status st;
        if (op == "mget") {
          const void *ks[4];
          size_t lens[4];
          for (size_t j = 0; j < 4; ++j) {
            ks[j] = keys[(i + j * 61) % keys.size()].data();
            lens[j] = keys[(i + j * 61) % keys.size()].size();
          }
          st = cr_client_cmd_mget(&r, c, ks, lens, 4);
        } else {
          const std::string &k = keys[i % keys.size()];
          st = cr_client_cmd_get(&r, c, k.data(), k.size());
        }
        cr_reply_free(r);
        ++i;
        if (stage.load(std::memory_order_relaxed) != 1) continue;
        lat[static_cast<size_t>(t)].push_back(
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count());
        if (st != CR_OK) failed.fetch_add(1);
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const std::map<std::string, uint64_t> before = NodeReads(c);
  stage.store(1);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stage.store(2);
  for (std::thread &th : pool) th.join();
  const std::map<std::string, uint64_t> after = NodeReads(c);
  cr_client_free(c);

  std::vector<int64_t> all;
  for (const auto &l : lat) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  auto at = [&](double q) {
    return all.empty() ? int64_t{0} : all[std::min(all.size() - 1, size_t(q * all.size()))];
  };
  double reads[3], total = 0;
  for (int k = 0; k < 3; ++k) {
    const uint64_t b = before.count(n[k]) ? before.at(n[k]) : 0;
    reads[k] = after.count(n[k]) ? double(after.at(n[k]) - b) : 0;
    total += reads[k];
  }
  std::printf(
      "LEAST_LOADED_BENCH selection=%s op=%s requests=%zu failed=%llu p50_us=%lld p99_us=%lld "
      "max_us=%lld n1=%.4f n2=%.4f n3=%.4f\n",
      selection.c_str(), op.c_str(), all.size(), static_cast<unsigned long long>(failed.load()),
      static_cast<long long>(at(0.5)), static_cast<long long>(at(0.99)),
      static_cast<long long>(all.empty() ? 0 : all.back()), total > 0 ? reads[0] / total : 0,
      total > 0 ? reads[1] / total : 0, total > 0 ? reads[2] / total : 0);
  return 0;
}
