// Live-client throughput: GET and 100-key MGET per second through the C API
// client (cr_client_cmd_get / cr_client_cmd_mget), on N threads sharing one client,
// for a fixed time. bench/client_bench.sh runs it next to redis-benchmark
// against the same cluster.
//
//   cloudroute_client_bench --seeds HOST:PORT[,...] --mode get|mget|mget-tag
//                           [--threads N] [--seconds S] [--local-cidr CIDR]
// mget: 100 keys spread over slots (split by slot, fanned out to every
// master); mget-tag: 100 keys sharing one hash tag (one slot, one node, one
// command — what redis-benchmark can send). Keys are key:0..99999 (and
// {bench}:0..99), written before the run so GETs hit values.
// Prints one line: "mode=… threads=… ops=… seconds=… ops_per_s=…".
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"

namespace {

int Fail(const char *what, cr_status s) {
  std::fprintf(stderr, "client_bench: %s: %s: %s\n", what, cr_status_str(s), cr_last_error());
  return 1;
}

}  // namespace

int main(int argc, char **argv) {
  std::string seeds, mode = "get", cidr;
  int threads = 1;
  double seconds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--seeds")
      seeds = v;
    else if (a == "--mode")
      mode = v;
    else if (a == "--threads")
      threads = std::max(1, std::atoi(v.c_str()));
    else if (a == "--seconds")
      seconds = std::atof(v.c_str());
    else if (a == "--local-cidr")
      cidr = v;
    else {
      std::fprintf(stderr, "client_bench: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (seeds.empty() || (mode != "get" && mode != "mget" && mode != "mget-tag")) {
    std::fprintf(stderr,
                 "usage: cloudroute_client_bench --seeds HOST:PORT[,...] --mode get|mget|mget-tag "
                 "[--threads N] [--seconds S] [--local-cidr CIDR]\n");
    return 2;
  }
  cr_config *cfg = nullptr;
  cr_config_new(&cfg);
  if (!cidr.empty()) cr_config_add_local_cidr(cfg, cidr.c_str());
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.client_name = "cr-bench";
  cr_client *c = nullptr;
  cr_status s = cr_client_new(&c, cfg, &o, seeds.c_str());
  cr_config_free(cfg);
  if (s != CR_OK) return Fail("connect", s);

  constexpr int kKeys = 100000, kBatch = 100;
  const bool tag = mode == "mget-tag";
  auto key = [&](int i) { return (tag ? "{bench}:" : "key:") + std::to_string(i); };
  {  // populate with MSET batches (split by slot by the client)
    const int n = tag ? kBatch : kKeys;
    for (int base = 0; base < n; base += 1000) {
      std::vector<std::string> ks, vs;
      for (int i = base; i < std::min(n, base + 1000); ++i) {
        ks.push_back(key(i));
        vs.push_back("xxx");
      }
      std::vector<const void *> kp, vp;
      std::vector<size_t> kl, vl;
      for (size_t i = 0; i < ks.size(); ++i) {
        kp.push_back(ks[i].data()), kl.push_back(ks[i].size());
        vp.push_back(vs[i].data()), vl.push_back(vs[i].size());
      }
      if ((s = cr_client_cmd_mset(c, kp.data(), kl.data(), vp.data(), vl.data(), ks.size())) !=
          CR_OK) {
        return Fail("populate", s);
      }
    }
  }

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> ops{0}, errors{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::mt19937 rng(static_cast<uint32_t>(t + 1));
      std::vector<std::string> ks(kBatch);
      std::vector<const void *> kp(kBatch);
      std::vector<size_t> kl(kBatch);
      uint64_t n = 0, e = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        cr_reply *r = nullptr;
        if (mode == "get") {
          const std::string k = key(static_cast<int>(rng() % kKeys));
          if (cr_client_cmd_get(&r, c, k.data(), k.size()) != CR_OK) ++e;
        } else {
          for (int i = 0; i < kBatch; ++i) {
            ks[i] = key(tag ? i : static_cast<int>(rng() % kKeys));
            kp[i] = ks[i].data();
            kl[i] = ks[i].size();
          }
          if (cr_client_cmd_mget(&r, c, kp.data(), kl.data(), kBatch) != CR_OK) ++e;
        }
        cr_reply_free(r);
        ++n;
      }
      ops.fetch_add(n);
      errors.fetch_add(e);
    });
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop.store(true);
  for (std::thread &t : pool) t.join();
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("mode=%s threads=%d ops=%llu errors=%llu seconds=%.2f ops_per_s=%.0f\n", mode.c_str(),
              threads, (unsigned long long)ops.load(), (unsigned long long)errors.load(), el,
              static_cast<double>(ops.load()) / el);
  cr_client_free(c);
  return errors.load() == 0 ? 0 : 1;
}
