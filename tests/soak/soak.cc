// A bounded soak of the live client (C API only) against a real cluster:
// mixed traffic (GET, SET, MGET, pipelines) from several threads, a
// topology refresh every second and a CLUSTER FAILOVER every failover
// period, with the process's memory, heap, descriptors and threads sampled
// before, during and after. It fails when, after the warm-up, they grow
// beyond the stated tolerances, when the client leaves descriptors or
// threads behind once freed, or when an acknowledged write is not on its
// master at the end. tests/soak/run.sh starts the cluster and runs it.
//
//   cloudroute_soak --seeds HOST:PORT[,...] [--seconds N] [--threads N] [--keys N]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "process_probe.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Growth allowed between the end of the warm-up and the end of the run.
constexpr double kRssToleranceMib = 16;
constexpr double kHeapToleranceMib = 8;
// Descriptors beyond the client's connections, pooled and shared (which vary,
// up to pool_size and shared_connections a node, as roles move).
constexpr int kFdTolerance = 2;
constexpr int kThreadTolerance = 2;  // short-lived dial threads of a refresh

struct Args {
  std::string seeds;
  int seconds = 300;
  int threads = 4;
  int keys = 500;  // per thread
};

struct Counters {
  std::atomic<uint64_t> ops{0}, errors{0}, acked_writes{0}, refreshes{0}, refresh_errors{0};
  std::atomic<uint64_t> log_warn{0}, log_error{0};
};

Counters g_count;
std::atomic<bool> g_stop{false};
std::mutex g_print_mu;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

#define SAY(...)                                   \
  do {                                             \
    std::lock_guard<std::mutex> lock_(g_print_mu); \
    std::printf(__VA_ARGS__);                      \
    std::fflush(stdout);                           \
  } while (0)

void OnLog(cr_log_level level, const char *, const cr_log_field *, size_t, void *) {
  if (level == CR_LOG_LEVEL_WARN) ++g_count.log_warn;
  if (level >= CR_LOG_LEVEL_ERROR) ++g_count.log_error;
}

// One worker's keys: versions written (attempted) and acknowledged.
struct Keys {
  std::vector<std::string> names;
  std::vector<uint64_t> attempted, acked;
};

uint64_t g_version_seed = 0;  // set once before the workers start

void Worker(cr_client *c, Keys *k, unsigned seed) {
  std::mt19937 rng(seed);
  const size_t n = k->names.size();
  uint64_t version = g_version_seed;
  cr_pipeline *p = nullptr;
  if (cr_pipeline_new(&p, c) != CR_OK) {
    SAY("worker: cr_pipeline_new failed: %s\n", cr_last_error());
    return;
  }
  for (uint64_t iter = 0; !g_stop.load(); ++iter) {
    const size_t i = rng() % n;
    cr_status s = CR_OK;
    switch (iter % 8) {
      case 0:
      case 1:
      case 2: {  // SET
        const std::string v = std::to_string(++version);
        k->attempted[i] = version;
        s = cr_client_cmd_set(c, k->names[i].data(), k->names[i].size(), v.data(), v.size(), 0);
        if (s == CR_OK) {
          k->acked[i] = version;
          ++g_count.acked_writes;
        }
        break;
      }
      case 3:
      case 4:
      case 7: {  // GET
        cr_reply *r = nullptr;
        s = cr_client_cmd_get(&r, c, k->names[i].data(), k->names[i].size());
        cr_reply_free(r);
        break;
      }
      case 5: {  // MGET of 8 keys in different slots
        const void *keys[8];
        size_t lens[8];
        for (size_t j = 0; j < 8; ++j) {
          const std::string &name = k->names[(i + j * 61) % n];
          keys[j] = name.data();
          lens[j] = name.size();
        }
        cr_reply *r = nullptr;
        s = cr_client_cmd_mget(&r, c, keys, lens, 8);
        cr_reply_free(r);
        break;
      }
      default: {  // a pipeline: 4 SETs and 4 GETs
        std::string values[4];
        size_t idx[4];
        for (size_t j = 0; j < 4; ++j) {
          idx[j] = (i + j * 97) % n;
          values[j] = std::to_string(++version);
          k->attempted[idx[j]] = version;
          const void *argv[3] = {"SET", k->names[idx[j]].data(), values[j].data()};
          const size_t lens[3] = {3, k->names[idx[j]].size(), values[j].size()};
          (void)cr_pipeline_add(p, CR_ACCESS_WRITE, 1, 3, argv, lens);
          const void *gargv[2] = {"GET", k->names[(idx[j] + 1) % n].data()};
          const size_t glens[2] = {3, k->names[(idx[j] + 1) % n].size()};
          (void)cr_pipeline_add(p, CR_ACCESS_READ, 1, 2, gargv, glens);
        }
        cr_reply *replies[8] = {};
        cr_status statuses[8];
        size_t needed = 0;
        s = cr_pipeline_execute(replies, statuses, 8, &needed, p);
        for (size_t j = 0; j < 4; ++j) {
          if (statuses[2 * j] == CR_OK) {
            k->acked[idx[j]] = std::stoull(values[j]);
            ++g_count.acked_writes;
          }
        }
        for (cr_reply *r : replies) cr_reply_free(r);
        break;
      }
    }
    ++g_count.ops;
    if (s != CR_OK) ++g_count.errors;
  }
  cr_pipeline_free(p);
}

void Refresher(cr_client *c) {
  while (!g_stop.load()) {
    for (int i = 0; i < 10 && !g_stop.load(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (g_stop.load()) break;
    if (cr_client_refresh(c) == CR_OK) {
      ++g_count.refreshes;
    } else {
      ++g_count.refresh_errors;
    }
  }
}

// A healthy replica of the shard that owns `slot` in the current topology;
// "" when none.
std::string ReplicaOf(cr_client *c, uint16_t slot) {
  cr_snapshot *snap = nullptr;
  if (cr_router_get_snapshot(&snap, cr_client_get_router(c)) != CR_OK) return "";
  cr_topology *t = cr_snapshot_get_topology(snap);
  uint32_t shard = 0;
  std::string found;
  for (uint32_t i = 0; cr_topology_get_slot_shard(&shard, t, slot) == CR_OK &&
                       i < cr_topology_get_node_count(t) && found.empty();
       ++i) {
    cr_node_info n = CR_NODE_INFO_INIT;
    if (cr_topology_get_node(&n, t, i) != CR_OK) continue;
    if (n.role == CR_ROLE_REPLICA && n.shard == shard && n.health == CR_REPORTED_HEALTH_ONLINE) {
      found = std::string(n.host) + ":" + std::to_string(n.port);
    }
  }
  cr_topology_free(t);
  cr_snapshot_free(snap);
  return found;
}

bool IsMaster(cr_client *c, const std::string &address) {
  (void)cr_client_refresh(c);
  cr_snapshot *snap = nullptr;
  if (cr_router_get_snapshot(&snap, cr_client_get_router(c)) != CR_OK) return false;
  cr_topology *t = cr_snapshot_get_topology(snap);
  bool master = false;
  for (uint32_t i = 0; i < cr_topology_get_node_count(t); ++i) {
    cr_node_info n = CR_NODE_INFO_INIT;
    if (cr_topology_get_node(&n, t, i) == CR_OK && n.role == CR_ROLE_MASTER &&
        std::string(n.host) + ":" + std::to_string(n.port) == address) {
      master = true;
    }
  }
  cr_topology_free(t);
  cr_snapshot_free(snap);
  return master;
}

// Every `period` seconds until `end`: CLUSTER FAILOVER on a replica of the
// shard of slot 0, 8192 or 16383 in turn, then wait (bounded) until the
// client's topology shows it as the master.
void Failovers(cr_client *c, double period, double end, Clock::time_point t0, int *done,
               int *failed) {
  static const uint16_t kSlots[3] = {0, 8192, 16383};
  for (int n = 1; !g_stop.load() && period * n < end; ++n) {
    while (!g_stop.load() && Since(t0) < period * n) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (g_stop.load()) break;
    const uint16_t slot = kSlots[(n - 1) % 3];
    const std::string replica = ReplicaOf(c, slot);
    if (replica.empty()) {
      SAY("failover %d: no healthy replica of slot %u's shard\n", n, slot);
      ++*failed;
      continue;
    }
    const void *argv[2] = {"CLUSTER", "FAILOVER"};
    const size_t lens[2] = {7, 8};
    cr_node_replies *r = nullptr;
    const Clock::time_point start = Clock::now();
    cr_status s =
        cr_client_command_nodes(&r, c, nullptr, CR_TARGET_NODE, replica.c_str(), 2, argv, lens);
    if (s == CR_OK && cr_node_replies_get_failed(r) != 0) {
      SAY("failover %d: %s refused: %s\n", n, replica.c_str(), cr_node_replies_get_error(r, 0));
      s = CR_EREDIS;
    }
    cr_node_replies_free(r);
    bool promoted = false;
    while (s == CR_OK && !promoted && Since(start) < 15) {
      promoted = IsMaster(c, replica);
      if (!promoted) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (promoted) {
      ++*done;
      SAY("t=%3.0fs failover %d: slot %u's shard, %s promoted in %.0f ms\n", Since(t0), n, slot,
          replica.c_str(), Since(start) * 1000);
    } else {
      ++*failed;
      SAY("t=%3.0fs failover %d: %s not promoted within 15 s\n", Since(t0), n, replica.c_str());
    }
  }
}

// Every key's value on its master must be at least its last acknowledged
// version (later, unacknowledged writes may have landed too).
uint64_t CountLost(cr_client *c, const std::vector<Keys> &all, uint64_t *checked) {
  uint64_t lost = 0;
  for (const Keys &k : all) {
    for (size_t i = 0; i < k.names.size(); ++i) {
      if (k.acked[i] == 0) continue;
      ++*checked;
      const void *argv[2] = {"GET", k.names[i].data()};
      const size_t lens[2] = {3, k.names[i].size()};
      cr_reply *r = nullptr;
      cr_status s = CR_OK;
      for (int attempt = 0; attempt < 20; ++attempt) {
        s = cr_client_command(&r, c, CR_ACCESS_WRITE, 1, 2, argv, lens);  // the master
        if (s == CR_OK) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
      }
      size_t len = 0;
      const char *v = s == CR_OK ? cr_reply_get_string(r, &len) : nullptr;
      const uint64_t got =
          v != nullptr ? std::strtoull(std::string(v, len).c_str(), nullptr, 10) : 0;
      if (got < k.acked[i]) {
        if (lost < 10) {
          SAY("LOST: %s acknowledged %llu, master has %s\n", k.names[i].c_str(),
              static_cast<unsigned long long>(k.acked[i]),
              s == CR_OK ? std::string(v != nullptr ? v : "(nil)", len).c_str() : cr_last_error());
        }
        ++lost;
      }
      cr_reply_free(r);
    }
  }
  return lost;
}

// Connections the client holds open (pooled and shared), summed over its nodes.
int OpenConnections(cr_client *c) {
  std::vector<cr_client_node_stats> v(64);
  for (auto &n : v) n = CR_CLIENT_NODE_STATS_INIT;
  size_t count = 0;
  if (cr_client_get_node_stats(v.data(), v.size(), &count, c) != CR_OK) return -1;
  int open = 0;
  for (size_t i = 0; i < count && i < v.size(); ++i)
    open += static_cast<int>(v[i].open_connections);
  return open;
}

int Usage(const char *why) {
  std::fprintf(stderr,
               "cloudroute_soak: %s\nusage: cloudroute_soak --seeds HOST:PORT[,...] [--seconds N] "
               "[--threads N] [--keys N]\n",
               why);
  return 2;
}

bool ParseArgs(int argc, char **argv, Args *a) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char *v = argv[i + 1];
    if (k == "--seeds") {
      a->seeds = v;
    } else if (k == "--seconds" || k == "--threads" || k == "--keys") {
      const int n = std::atoi(v);
      if (n <= 0) return false;
      (k == "--seconds" ? a->seconds : k == "--threads" ? a->threads : a->keys) = n;
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && !a->seeds.empty() && a->seconds >= 10;
}

}  // namespace

int main(int argc, char **argv) {
  Args a;
  if (!ParseArgs(argc, argv, &a)) return Usage("bad arguments (--seconds is at least 10)");
  const double failover_period = a.seconds >= 300 ? 60.0 : a.seconds / 5.0;
  const double sample_period = a.seconds >= 100 ? 30.0 : a.seconds / 10.0;
  // Through the first failover: pools then hold connections to both roles.
  const double warmup = failover_period + sample_period;
  std::printf(
      "soak: %d s, %d threads x %d keys (GET, SET, MGET of 8, pipelines of 4 SET + 4 GET), "
      "refresh every 1 s, CLUSTER FAILOVER every %.0f s, warm-up %.0f s\n"
      "tolerances after warm-up: rss +%.0f MiB, heap +%.0f MiB, fds other than connections "
      "to nodes +%d, threads +%d; "
      "after cr_client_free: fds and threads as before the client\n",
      a.seconds, a.threads, a.keys, failover_period, warmup, kRssToleranceMib, kHeapToleranceMib,
      kFdTolerance, kThreadTolerance);

  const Clock::time_point t0 = Clock::now();
  const soak::ProcessSample before = soak::Sample();
  std::printf("t=%3.0fs before the client   %s\n", Since(t0), soak::Format(before).c_str());

  cr_config *cfg = nullptr;
  cr_client *c = nullptr;
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.client_name = "cloudroute-soak";
  o.refresh_min_gap_ms = 100;
  if (cr_config_new(&cfg) != CR_OK || cr_config_add_local_cidr(cfg, "127.0.1.0/24") != CR_OK ||
      cr_config_set_log_callback(cfg, CR_LOG_LEVEL_WARN, OnLog, nullptr) != CR_OK ||
      cr_client_new(&c, cfg, &o, a.seeds.c_str()) != CR_OK) {
    std::printf("FAIL: no client: %s\n", cr_last_error());
    cr_config_free(cfg);
    return 1;
  }
  cr_config_free(cfg);

  std::vector<Keys> keys(static_cast<size_t>(a.threads));
  g_version_seed =
      static_cast<uint64_t>(std::time(nullptr)) * 1000000000ull;  // above earlier runs'
  for (size_t t = 0; t < keys.size(); ++t) {
    for (int i = 0; i < a.keys; ++i) {
      keys[t].names.push_back("soak:" + std::to_string(t) + ":" + std::to_string(i));
    }
    keys[t].attempted.assign(keys[t].names.size(), 0);
    keys[t].acked.assign(keys[t].names.size(), 0);
  }
  std::vector<std::thread> threads;
  for (size_t t = 0; t < keys.size(); ++t) {
    threads.emplace_back(Worker, c, &keys[t], static_cast<unsigned>(t + 1));
  }
  threads.emplace_back(Refresher, c);
  int failovers = 0, failover_failures = 0;
  std::thread failover(Failovers, c, failover_period, static_cast<double>(a.seconds), t0,
                       &failovers, &failover_failures);

  soak::ProcessSample baseline{}, last{};
  int baseline_conns = 0, last_conns = 0;
  bool have_baseline = false;
  for (int n = 1; Since(t0) < a.seconds; ++n) {
    const double next = std::min(static_cast<double>(a.seconds), sample_period * n);
    while (Since(t0) < next) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    last = soak::Sample();
    last_conns = OpenConnections(c);
    SAY("t=%3.0fs %s conns=%d ops=%llu errors=%llu refreshes=%llu\n", Since(t0),
        soak::Format(last).c_str(), last_conns, static_cast<unsigned long long>(g_count.ops.load()),
        static_cast<unsigned long long>(g_count.errors.load()),
        static_cast<unsigned long long>(g_count.refreshes.load()));
    if (!have_baseline && Since(t0) + 0.5 >= warmup) {
      baseline = last;
      baseline_conns = last_conns;
      have_baseline = true;
    }
  }
  g_stop = true;
  for (std::thread &t : threads) t.join();
  failover.join();

  uint64_t checked = 0;
  const uint64_t lost = CountLost(c, keys, &checked);
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  (void)cr_client_get_stats(&st, c);
  cr_client_free(c);
  const soak::ProcessSample after = soak::Sample();

  const double rss_growth = (static_cast<double>(last.rss_kib) - baseline.rss_kib) / 1024.0;
  const double heap_growth = (static_cast<double>(last.heap_kib) - baseline.heap_kib) / 1024.0;
  std::printf(
      "summary: ops=%llu (%.0f/s) errors=%llu; acknowledged writes=%llu; refreshes=%llu "
      "(failed %llu); failovers=%d (failed %d); client: moved=%llu conn_errors=%llu timeouts=%llu "
      "connections=%llu; log events warn=%llu error=%llu\n",
      static_cast<unsigned long long>(g_count.ops.load()),
      static_cast<double>(g_count.ops.load()) / a.seconds,
      static_cast<unsigned long long>(g_count.errors.load()),
      static_cast<unsigned long long>(g_count.acked_writes.load()),
      static_cast<unsigned long long>(g_count.refreshes.load()),
      static_cast<unsigned long long>(g_count.refresh_errors.load()), failovers, failover_failures,
      static_cast<unsigned long long>(st.moved), static_cast<unsigned long long>(st.conn_errors),
      static_cast<unsigned long long>(st.timeouts), static_cast<unsigned long long>(st.connections),
      static_cast<unsigned long long>(g_count.log_warn.load()),
      static_cast<unsigned long long>(g_count.log_error.load()));
  std::printf("before the client:  %s\n", soak::Format(before).c_str());
  std::printf("after warm-up:      %s\n", soak::Format(baseline).c_str());
  std::printf("end of the run:     %s\n", soak::Format(last).c_str());
  std::printf("after client_free:  %s\n", soak::Format(after).c_str());
  // Descriptors that are not connections to nodes: the client's own (a wakeup
  // pipe, ...) and anything leaked.
  const int extra_fds = (last.fds - last_conns) - (baseline.fds - baseline_conns);
  std::printf(
      "growth after warm-up: rss %+.1f MiB, heap %+.1f MiB, fds %+d (connections %+d, "
      "other fds %+d), threads %+d\n",
      rss_growth, heap_growth, last.fds - baseline.fds, last_conns - baseline_conns, extra_fds,
      last.threads - baseline.threads);
  std::printf("acknowledged keys checked on their masters: %llu, lost: %llu\n",
              static_cast<unsigned long long>(checked), static_cast<unsigned long long>(lost));

  std::vector<std::string> fails;
  if (rss_growth > kRssToleranceMib) fails.push_back("rss grew");
  if (heap_growth > kHeapToleranceMib) fails.push_back("heap grew");
  if (extra_fds > kFdTolerance) fails.push_back("fds other than connections to nodes grew");
  if (last.threads - baseline.threads > kThreadTolerance) fails.push_back("threads grew");
  if (after.fds != before.fds) fails.push_back("fds not back to their count before the client");
  if (after.threads != before.threads) fails.push_back("threads left after cr_client_free");
  if (lost != 0) fails.push_back(std::to_string(lost) + " acknowledged writes lost");
  if (failovers == 0 || failover_failures != 0) fails.push_back("failovers did not all complete");
  if (g_count.acked_writes.load() == 0) fails.push_back("no write was acknowledged");
  if (fails.empty()) {
    std::printf("PASS\n");
    return 0;
  }
  std::string why;
  for (const std::string &f : fails) why += (why.empty() ? "" : "; ") + f;
  std::printf("FAIL: %s\n", why.c_str());
  return 1;
}
