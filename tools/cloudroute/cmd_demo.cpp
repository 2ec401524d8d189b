// `cloudroute demo latency` and `cloudroute demo watch`: what libcloudroute
// changes for a service whose requests fan out into many reads, measured on
// a live cluster. scripts/demo.sh starts the cluster (two simulated clouds,
// the far one behind a latency proxy) and runs these. C API only.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"

namespace cli {

namespace {

using Clock = std::chrono::steady_clock;

struct DemoArgs {
  std::string seeds;
  int requests = 200;
  int fanout = 60;
  int keys = 2000;
  double seconds = 10;
  std::vector<std::string> probes;  // keys whose write node and read order `watch` shows
};

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  return v[i];
}

std::string KeyName(int i) { return "demo:key:" + std::to_string(i); }

// A client with the shared locality and remaps (RouterSetup), and the given policy.
cr_client *NewClient(RouterSetup &setup, const DemoArgs &a, cr_policy policy) {
  cr_router_options o = setup.opts;
  o.policy = policy;
  cr_status s = cr_config_set_router_options(setup.cfg, &o);
  cr_client *c = nullptr;
  if (s == CR_OK) {
    cr_client_options co = CR_CLIENT_OPTIONS_INIT;
    co.client_name = "cloudroute-demo";
    if (setup.tls.Apply(&co) != kExitOk) return nullptr;
    s = cr_client_new(&c, setup.cfg, &co, a.seeds.c_str());
  }
  if (s != CR_OK) {
    Die(std::string("connecting to ") + a.seeds, s);
    return nullptr;
  }
  return c;
}

// One "request": an MGET of `fanout` random keys (the client splits it by
// slot and asks every involved node at once). Returns its latency in ms, or
// a negative value when it failed.
double Request(cr_client *c, const DemoArgs &a, std::mt19937 &rng) {
  std::vector<std::string> keys(static_cast<size_t>(a.fanout));
  for (std::string &k : keys) k = KeyName(static_cast<int>(rng() % static_cast<unsigned>(a.keys)));
  const ByteArgs k(keys);
  const Clock::time_point t0 = Clock::now();
  cr_reply *r = nullptr;
  const cr_status s = cr_client_cmd_mget(&r, c, k.ptrs.data(), k.lens.data(), k.size());
  const double ms = Ms(Clock::now() - t0);
  cr_reply_free(r);
  return s == CR_OK ? ms : -1;
}

int Populate(cr_client *c, const DemoArgs &a) {
  std::vector<std::string> keys, values;
  for (int i = 0; i < a.keys; ++i) {
    keys.push_back(KeyName(i));
    values.push_back("value-" + std::to_string(i));
  }
  const ByteArgs k(keys), v(values);
  const cr_status s =
      cr_client_cmd_mset(c, k.ptrs.data(), k.lens.data(), v.ptrs.data(), v.lens.data(), k.size());
  return s == CR_OK ? kExitOk : Die("writing the demo keys", s);
}

int Latency(RouterSetup &setup, const DemoArgs &a) {
  struct Row {
    const char *label;
    cr_policy policy;
    double p50 = 0, p99 = 0, mean = 0, local = 0;
    int failed = 0;
  };
  std::vector<Row> rows = {
      {"policy master (what Jedis and redis-py do)", CR_POLICY_MASTER},
      {"policy local-replicas-first (libcloudroute)", CR_POLICY_LOCAL_REPLICAS_FIRST}};
  for (Row &row : rows) {
    cr_client *c = NewClient(setup, a, row.policy);
    if (c == nullptr) return kExitUsage;
    if (&row == &rows.front()) {
      if (int rc = Populate(c, a)) {
        cr_client_free(c);
        return rc;
      }
    }
    std::mt19937 rng(7);
    for (int i = 0; i < 10; ++i) Request(c, a, rng);  // connections up, RTTs learned
    cr_client_stats zero = CR_CLIENT_STATS_INIT;
    cr_client_get_stats(&zero, c);
    std::vector<double> lat;
    double sum = 0;
    for (int i = 0; i < a.requests; ++i) {
      const double ms = Request(c, a, rng);
      if (ms < 0) {
        ++row.failed;
        continue;
      }
      lat.push_back(ms);
      sum += ms;
    }
    cr_client_stats st = CR_CLIENT_STATS_INIT;
    cr_client_get_stats(&st, c);
    const double reads = static_cast<double>(st.reads - zero.reads);
    row.local = reads > 0 ? 100.0 *
                                static_cast<double>(st.reads_by_tier[CR_TIER_LOCAL] -
                                                    zero.reads_by_tier[CR_TIER_LOCAL]) /
                                reads
                          : 0;
    row.p50 = Percentile(lat, 0.5);
    row.p99 = Percentile(lat, 0.99);
    row.mean = lat.empty() ? 0 : sum / static_cast<double>(lat.size());
    cr_client_free(c);
  }
  std::printf("%d requests, each an MGET of %d keys fanned out over the shards in parallel\n",
              a.requests, a.fanout);
  std::printf("%-46s %9s %9s %9s %14s %7s\n", "", "p50 ms", "p99 ms", "mean ms", "reads in cloud",
              "failed");
  for (const Row &row : rows) {
    std::printf("%-46s %9.2f %9.2f %9.2f %13.1f%% %7d\n", row.label, row.p50, row.p99, row.mean,
                row.local, row.failed);
  }
  if (rows[1].p50 > 0) {
    std::printf("median request %.1fx faster with cloud-aware reads\n", rows[0].p50 / rows[1].p50);
  }
  return rows[0].failed + rows[1].failed == 0 ? kExitOk : kExitRouteFailed;
}

// Reads continuously and prints, every half second, what happened: requests,
// failures, where reads were served, and where the probe key is written and
// read — so a failover or a killed node shows up line by line.
int Watch(RouterSetup &setup, const DemoArgs &a) {
  cr_client *c = NewClient(setup, a, setup.opts.policy);
  if (c == nullptr) return kExitUsage;
  cr_router *router = nullptr;
  router = cr_client_get_router(c);
  std::mt19937 rng(11);
  const Clock::time_point start = Clock::now(),
                          end = start + std::chrono::duration_cast<Clock::duration>(
                                            std::chrono::duration<double>(a.seconds));
  Clock::time_point next = start + std::chrono::milliseconds(500);
  int total_failed = 0, writes_failed = 0, n = 0, failed = 0;
  std::vector<double> lat;
  cr_client_stats prev = CR_CLIENT_STATS_INIT;
  cr_client_get_stats(&prev, c);
  std::printf("%6s %8s %7s %10s %8s   %s\n", "t s", "requests", "failed", "in cloud", "p50 ms",
              "probe key: w=write node r=first read candidates");
  while (Clock::now() < end) {
    const double ms = Request(c, a, rng);
    ++n;
    if (ms < 0)
      ++failed;
    else
      lat.push_back(ms);
    if (Clock::now() < next) continue;
    const std::string value = std::to_string(n);
    std::string probes;
    for (const std::string &key : a.probes) {
      if (cr_client_cmd_set(c, key.data(), key.size(), value.data(), value.size(), 0) != CR_OK)
        ++writes_failed;
      cr_route w = CR_ROUTE_INIT;
      std::string write = "?";
      if (cr_router_route_write(&w, router, key.data(), key.size()) == CR_OK)
        write = Address(w.host, w.port);
      cr_candidate cand[8];
      for (cr_candidate &x : cand) x.struct_size = sizeof x;
      size_t count = 0;
      std::string order;
      if (cr_router_candidates(cand, 8, &count, router, key.data(), key.size()) == CR_OK) {
        for (size_t i = 0; i < count && i < 2; ++i) {
          order +=
              (i ? "," : "") + Address(cand[i].host, cand[i].port) + (cand[i].down ? "(down)" : "");
        }
      }
      probes += "  " + key + ": w=" + write + " r=" + order;
    }
    cr_client_stats st = CR_CLIENT_STATS_INIT;
    cr_client_get_stats(&st, c);
    const double reads = static_cast<double>(st.reads - prev.reads);
    const double local = reads > 0 ? 100.0 *
                                         static_cast<double>(st.reads_by_tier[CR_TIER_LOCAL] -
                                                             prev.reads_by_tier[CR_TIER_LOCAL]) /
                                         reads
                                   : 0;
    prev = st;
    std::printf("%6.1f %8d %7d %9.1f%% %8.2f %s\n", Ms(Clock::now() - start) / 1000, n, failed,
                local, Percentile(lat, 0.5), probes.c_str());
    std::fflush(stdout);
    total_failed += failed;
    n = failed = 0;
    lat.clear();
    next += std::chrono::milliseconds(500);
  }
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  cr_client_get_stats(&st, c);
  std::printf(
      "failed requests: %d, failed probe writes: %d; fallbacks %llu, MOVED %llu, refreshes %llu\n",
      total_failed, writes_failed, static_cast<unsigned long long>(st.fallbacks),
      static_cast<unsigned long long>(st.moved), static_cast<unsigned long long>(st.refreshes));
  cr_client_free(c);
  return total_failed == 0 ? kExitOk : kExitRouteFailed;
}

}  // namespace

int CmdDemo(const std::vector<std::string> &args) {
  if (args.empty() || (args[0] != "latency" && args[0] != "watch")) {
    return Usage(
        "usage: cloudroute demo latency|watch --seeds HOST:PORT[,...] [LOCALITY] [--policy P]\n"
        "       [--remap ANNOUNCED=DIAL]... [--requests N] [--fanout K] [--keys N] [--seconds S] "
        "[--probe KEY]...");
  }
  RouterSetup setup;
  setup.opts.policy = CR_POLICY_LOCAL_REPLICAS_FIRST;  // --policy overrides it
  std::vector<std::string> rest;
  if (int rc = setup.Parse(std::vector<std::string>(args.begin() + 1, args.end()), &rest))
    return rc;
  DemoArgs a;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string &f = rest[i];
    if (i + 1 >= rest.size()) return Usage("demo: " + f + " needs a value");
    const std::string v = rest[++i];
    if (f == "--seeds")
      a.seeds = v;
    else if (f == "--requests")
      a.requests = std::max(1, std::atoi(v.c_str()));
    else if (f == "--fanout")
      a.fanout = std::max(1, std::atoi(v.c_str()));
    else if (f == "--keys")
      a.keys = std::max(1, std::atoi(v.c_str()));
    else if (f == "--seconds")
      a.seconds = std::max(0.5, std::atof(v.c_str()));
    else if (f == "--probe")
      a.probes.push_back(v);
    else
      return Usage("demo: unknown option '" + f + "'");
  }
  if (a.seeds.empty()) a.seeds = setup.seeds;  // RouterSetup takes --seeds too
  if (a.seeds.empty()) return Usage("demo: --seeds HOST:PORT[,...] is required");
  if (a.probes.empty()) a.probes.push_back("demo:probe");
  return args[0] == "latency" ? Latency(setup, a) : Watch(setup, a);
}

}  // namespace cli
