// Topologies at Redis Cluster's scale: parse + install time and heap of a
// CLUSTER SLOTS and a CLUSTER SHARDS reply of 10, 100 and 1000 shards of
// three nodes (a master and two replicas, 40-hex node ids), with the goals
// next to each number. Counts live heap bytes through a replaced operator
// new; "retained" is what the router holds after the caller dropped its
// reference to the topology, "peak" the most held at once while parsing and
// installing. A report, not a test: it prints MISSED where a goal is not met.
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

namespace {

// A header before each block remembers its size and whether it was counted.
struct Header {
  size_t size;
  size_t counted;
};
static_assert(sizeof(Header) == 16, "keeps blocks 16-byte aligned");
bool g_on = false;
long g_live = 0, g_peak = 0, g_allocs = 0;

void *Alloc(size_t n) {
  auto *h = static_cast<Header *>(std::malloc(sizeof(Header) + n));
  if (h == nullptr) throw std::bad_alloc();
  h->size = n;
  h->counted = g_on ? 1 : 0;
  if (g_on) {
    g_live += static_cast<long>(n);
    g_peak = std::max(g_peak, g_live);
    ++g_allocs;
  }
  return h + 1;
}

void Free(void *p) noexcept {
  if (p == nullptr) return;
  Header *h = static_cast<Header *>(p) - 1;
  if (h->counted != 0) g_live -= static_cast<long>(h->size);
  std::free(h);
}

}  // namespace

void *operator new(size_t n) { return Alloc(n); }
void *operator new[](size_t n) { return Alloc(n); }
void operator delete(void *p) noexcept { Free(p); }
void operator delete[](void *p) noexcept { Free(p); }
void operator delete(void *p, size_t) noexcept { Free(p); }
void operator delete[](void *p, size_t) noexcept { Free(p); }

namespace {

std::string Bulk(const std::string &s) {
  return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
}
std::string Int(long v) { return ":" + std::to_string(v) + "\r\n"; }

// Node k (0 = master) of shard s: three addresses per shard in 127.k+1.x.y.
std::string Ip(int s, int k) {
  return "127." + std::to_string(1 + k) + "." + std::to_string(s / 250) + "." +
         std::to_string(1 + s % 250);
}
std::string Id(int s, int k) {
  char id[41];
  std::snprintf(id, sizeof id, "%08x%08x%024x", 0xc0ffee00u + static_cast<unsigned>(s),
                static_cast<unsigned>(k), 0u);
  return id;
}

std::string ClusterSlots(int shards) {
  std::string out = "*" + std::to_string(shards) + "\r\n";
  for (int s = 0; s < shards; ++s) {
    out += "*5\r\n" + Int(static_cast<long>(s) * 16384 / shards) +
           Int(static_cast<long>(s + 1) * 16384 / shards - 1);
    for (int k = 0; k < 3; ++k) out += "*3\r\n" + Bulk(Ip(s, k)) + Int(7000) + Bulk(Id(s, k));
  }
  return out;
}

std::string ClusterShards(int shards) {
  std::string out = "*" + std::to_string(shards) + "\r\n";
  for (int s = 0; s < shards; ++s) {
    out += "*4\r\n" + Bulk("slots") + "*2\r\n" + Int(static_cast<long>(s) * 16384 / shards) +
           Int(static_cast<long>(s + 1) * 16384 / shards - 1) + Bulk("nodes") + "*3\r\n";
    for (int k = 0; k < 3; ++k) {
      out += "*14\r\n" + Bulk("id") + Bulk(Id(s, k)) + Bulk("port") + Int(7000) + Bulk("ip") +
             Bulk(Ip(s, k)) + Bulk("endpoint") + Bulk(Ip(s, k)) + Bulk("role") +
             Bulk(k == 0 ? "master" : "replica") + Bulk("replication-offset") + Int(1234) +
             Bulk("health") + Bulk("online");
    }
  }
  return out;
}

struct Measure {
  double median_us = 0;
  long retained = 0, peak = 0, allocs = 0;
};

template <typename Parse>
Measure Run(const std::string &reply, Parse parse) {
  const cloudroute::RouterConfig cfg = crbench::MakeCoreConfig(cloudroute::Policy::kLocal);
  std::vector<double> us;
  Measure m;
  for (int rep = 0; rep < 21; ++rep) {
    cloudroute::Router router(cfg);
    g_live = g_peak = g_allocs = 0;
    g_on = true;
    const auto t0 = std::chrono::steady_clock::now();
    {
      auto t = parse(reply);
      if (!t.ok() || !router.Update(std::move(*t)).ok()) {
        std::fprintf(stderr, "scale_check: the generated reply was refused\n");
        std::exit(2);
      }
    }
    const auto t1 = std::chrono::steady_clock::now();
    g_on = false;
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    m.retained = g_live;
    m.peak = g_peak;
    m.allocs = g_allocs;
  }
  std::sort(us.begin(), us.end());
  m.median_us = us[us.size() / 2];
  return m;
}

const char *Verdict(bool met) { return met ? "met" : "MISSED"; }

}  // namespace

int main() {
  std::printf("%-14s %6s %10s %14s %13s %11s %9s  goals\n", "format", "shards", "reply B",
              "parse+install", "retained B", "peak B", "allocs");
  for (const char *format : {"cluster-slots", "cluster-shards"}) {
    const bool slots = format[8] == 's' && format[9] == 'l';
    for (int shards : {10, 100, 1000}) {
      const std::string reply = slots ? ClusterSlots(shards) : ClusterShards(shards);
      const Measure m = Run(reply, [&](const std::string &r) {
        return slots ? cloudroute::ParseClusterSlots(r, cloudroute::ClusterReplyOptions{})
                     : cloudroute::ParseClusterShards(r, cloudroute::ClusterReplyOptions{});
      });
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
  return 0;
}
