// Topologies at Redis Cluster's scale: parse + install time and heap of a
// CLUSTER SLOTS and a CLUSTER SHARDS reply of 10, 100 and 1000 shards of
// three nodes (a master and two replicas, 40-hex node ids), with the goals
// next to each number. Counts live heap bytes through a replaced operator
// new; "retained" is what the router holds after the caller dropped its
// reference to the topology, "peak" the most held at once while parsing and
// installing. Then a refresh at 10 and 1000 shards: the same cluster after a
// failover in one shard, parsed and installed into a router that holds the
// topology before it. A report, not a test: it prints MISSED where a goal is
// not met.
//   ninja -C build-bench cloudroute_scale_check && build-bench/bench/cloudroute_scale_check
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "cloudroute/core/cluster_reply.hpp"
#include "cloudroute/core/router.hpp"
#include "common/live_heap.hpp"
#include "common/scale_replies.hpp"

namespace {

using crscale::ClusterShards;
using crscale::ClusterSlots;

struct Measure {
  double median_us = 0;
  long retained = 0, peak = 0, allocs = 0;
};

// Parse + install of `reply` into a new router, or, with `before`, into a
// router that installed `before` first (untimed): a refresh that finds a
// changed topology of nodes the router knows.
template <typename Parse>
Measure Run(const std::string &reply, Parse parse, const std::string *before = nullptr) {
  const cloudroute::RouterConfig cfg = crbench::MakeCoreConfig(cloudroute::Policy::kLocal);
  std::vector<double> us;
  Measure m;
  for (int rep = 0; rep < 21; ++rep) {
    cloudroute::Router router(cfg);
    if (before != nullptr) {
      auto t = parse(*before);
      if (!t.ok() || !router.Update(std::move(*t)).ok()) {
        std::fprintf(stderr, "scale_check: the generated reply was refused\n");
        std::exit(2);
      }
    }
    crheap::Start();
    const auto t0 = std::chrono::steady_clock::now();
    {
      auto t = parse(reply);
      if (!t.ok() || !router.Update(std::move(*t)).ok()) {
        std::fprintf(stderr, "scale_check: the generated reply was refused\n");
        std::exit(2);
      }
    }
    const auto t1 = std::chrono::steady_clock::now();
    crheap::g_on = false;
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    m.retained = crheap::g_live;
    m.peak = crheap::g_peak;
    m.allocs = crheap::g_allocs;
  }
  std::sort(us.begin(), us.end());
  m.median_us = us[us.size() / 2];
  return m;
}

cloudroute::Result<std::shared_ptr<const cloudroute::Topology>> ParseReply(bool slots,
                                                                           const std::string &r) {
  return slots ? cloudroute::ParseClusterSlots(r, cloudroute::ClusterReplyOptions{})
               : cloudroute::ParseClusterShards(r, cloudroute::ClusterReplyOptions{});
}

const char *Verdict(bool met) { return met ? "met" : "MISSED"; }

}  // namespace

int main() {
  std::printf("%-14s %6s %10s %14s %13s %11s %9s  goals\n", "format", "shards", "reply B",
              "parse+install", "retained B", "peak B", "allocs");
  for (const char *format : {"cluster-slots", "cluster-shards"}) {
    const bool slots = format[8] == 's' && format[9] == 'l';
    auto parse = [slots](const std::string &r) { return ParseReply(slots, r); };
    for (int shards : {10, 100, 1000}) {
      const std::string reply = slots ? ClusterSlots(shards) : ClusterShards(shards);
      const Measure m = Run(reply, parse);
      std::string goals;
      if (shards == 1000) {
        goals = std::string("<= 1 ms ") + Verdict(m.median_us <= 1000) + ", <= 1 MB " +
                Verdict(m.retained <= 1000000);
      } else if (shards == 10) {
        goals = std::string("<= 100 KB ") + Verdict(m.retained <= 100000);
      }
      std::printf("%-14s %6d %10zu %11.1f us %13ld %11ld %9ld  %s\n", format, shards, reply.size(),
                  m.median_us, m.retained, m.peak, m.allocs, goals.c_str());
    }
  }
  // A refresh: the same cluster after a failover in its middle shard, into a
  // router that holds the topology before it (every node already in its
  // registry). Retained bytes are the change's, so only time, peak and
  // allocations are shown.
  std::printf("\nrefresh after a failover (the router knows every node):\n");
  for (const char *format : {"cluster-slots", "cluster-shards"}) {
    const bool slots = format[8] == 's' && format[9] == 'l';
    auto parse = [slots](const std::string &r) { return ParseReply(slots, r); };
    for (int shards : {10, 1000}) {
      const std::string before = slots ? ClusterSlots(shards) : ClusterShards(shards);
      const std::string after =
          slots ? ClusterSlots(shards, shards / 2) : ClusterShards(shards, shards / 2);
      const Measure m = Run(after, parse, &before);
      std::printf(
          "%-14s %6d %10zu %11.1f us %13s %11ld %9ld  %s\n", format, shards, after.size(),
          m.median_us, "-", m.peak, m.allocs,
          shards == 1000 ? (std::string("<= 1 ms ") + Verdict(m.median_us <= 1000)).c_str() : "");
    }
  }
  return 0;
}
