// The seed's batch on Sentinel shard groups: 100 family keys (cr_family_key_as,
// Jedis variant, over two groups) written, read, counted and deleted as one
// batch call (cr_sentinel_client_mset / _mget / _exists / _del: one command
// per group, both groups at once) against the same commands issued one by
// one (cr_sentinel_client_set / _get / _command EXISTS / DEL, 100 calls), in
// the same process and run, alternating, on a Sentinel setup the script
// starts (bench/sentinel_batch_bench.sh).
//
//   cloudroute_sentinel_batch_bench --sentinels HOST:PORT[,...] --local-cidr CIDR
//                                   [--iterations N] [--keys N]
//
// Prints one line per (op, mode): BATCH_BENCH op=mset mode=batch n=… p50_us=…
// p99_us=… mean_us=… (the time of one 100-key call, or of the 100 single
// calls), then one ratio line per op (one_by_one p50 / batch p50).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cloudroute.h"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const char *what, cr_status s) {
  std::fprintf(stderr, "sentinel_batch_bench: %s: %s: %s\n", what, cr_status_str(s),
               cr_last_error());
  std::exit(1);
}

void Ok(const char *what, cr_status s) {
  if (s != CR_OK) Die(what, s);
}

struct Keys {
  std::vector<std::string> keys, values;
  std::vector<const void *> kp, vp;
  std::vector<size_t> kl, vl;
};

long long Percentile(std::vector<long long> v, double p) {
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p / 100.0 * v.size()));
  return v[i];
}

}  // namespace

int main(int argc, char **argv) {
  std::string sentinels, local_cidr;
  int iterations = 300, n = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--sentinels") == 0) sentinels = argv[i + 1];
    if (std::strcmp(argv[i], "--local-cidr") == 0) local_cidr = argv[i + 1];
    if (std::strcmp(argv[i], "--iterations") == 0) iterations = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--keys") == 0) n = std::atoi(argv[i + 1]);
  }
  if (sentinels.empty() || local_cidr.empty() || iterations < 1 || n < 1) {
    std::fprintf(stderr,
                 "usage: %s --sentinels HOST:PORT[,...] --local-cidr CIDR [--iterations N] "
                 "[--keys N]\n",
                 argv[0]);
    return 2;
  }

  cr_ring *ring = nullptr;
  cr_ring_options ro = CR_RING_OPTIONS_INIT;
  Ok("ring", cr_ring_new(&ring, &ro));
  Ok("ring", cr_ring_add_shard(ring, "group0", 1));
  Ok("ring", cr_ring_add_shard(ring, "group1", 1));
  Ok("ring", cr_ring_build(ring));
  cr_config *cfg = nullptr;
  Ok("config", cr_config_new(&cfg));
  Ok("config", cr_config_add_local_cidr(cfg, local_cidr.c_str()));
  const char *names[] = {"group0", "group1"};
  cr_sentinel_client *c = nullptr;
  Ok("client", cr_sentinel_client_new(&c, cfg, nullptr, ring, names, 2, sentinels.c_str()));
  cr_config_free(cfg);
  cr_ring_free(ring);

  Keys k;
  for (int i = 0; i < n; ++i) {
    char stored[CR_FAMILY_KEY_SIZE];
    size_t needed = 0;
    const std::string user = "user:" + std::to_string(i);
    Ok("family key", cr_family_key_as(stored, sizeof stored, &needed, CR_FAMILY_KEY_VARIANT_JEDIS,
                                      "orders", user.data(), user.size()));
    k.keys.emplace_back(stored);
    k.values.push_back("value-of-" + user + "-" + std::string(64, 'x'));
  }
  for (int i = 0; i < n; ++i) {
    k.kp.push_back(k.keys[i].data());
    k.kl.push_back(k.keys[i].size());
    k.vp.push_back(k.values[i].data());
    k.vl.push_back(k.values[i].size());
  }
  const size_t un = static_cast<size_t>(n);
  std::vector<cr_status> st(un);
  std::vector<cr_reply *> replies(un);

  // One round of an op: the whole batch in one call, or n single calls.
  auto run = [&](const std::string &op, bool batch) {
    int64_t count = 0;
    if (op == "mset") {
      if (batch) {
        Ok("mset", cr_sentinel_client_mset(st.data(), c, k.kp.data(), k.kl.data(), k.vp.data(),
                                           k.vl.data(), un));
      } else {
        for (size_t i = 0; i < un; ++i)
          Ok("set", cr_sentinel_client_set(c, k.kp[i], k.kl[i], k.vp[i], k.vl[i], 0));
      }
    } else if (op == "mget") {
      if (batch) {
        Ok("mget",
           cr_sentinel_client_mget(replies.data(), st.data(), c, k.kp.data(), k.kl.data(), un));
        for (cr_reply *r : replies) cr_reply_free(r);
      } else {
        for (size_t i = 0; i < un; ++i) {
          cr_reply *r = nullptr;
          Ok("get", cr_sentinel_client_get(&r, c, k.kp[i], k.kl[i]));
          cr_reply_free(r);
        }
      }
    } else {  // exists, del
      const bool del = op == "del";
      if (batch) {
        Ok(op.c_str(), (del ? cr_sentinel_client_del : cr_sentinel_client_exists)(
                           &count, st.data(), c, k.kp.data(), k.kl.data(), un));
      } else {
        for (size_t i = 0; i < un; ++i) {
          const void *argv[] = {del ? "DEL" : "EXISTS", k.kp[i]};
          const size_t lens[] = {del ? 3u : 6u, k.kl[i]};
          cr_reply *r = nullptr;
          Ok(op.c_str(), cr_sentinel_client_command(&r, c, del ? CR_ACCESS_WRITE : CR_ACCESS_READ,
                                                    1, 2, argv, lens));
          cr_reply_free(r);
        }
      }
    }
  };

  const std::vector<std::string> ops = {"mset", "mget", "exists", "del"};
  std::map<std::pair<std::string, bool>, std::vector<long long>> us;
  for (const std::string &op : ops) {  // warm-up: connections to every instance
    run("mset", true);
    run(op, true);
    run(op, false);
  }
  for (int it = 0; it < iterations; ++it) {
    for (const std::string &op : ops) {
      for (bool batch : {it % 2 == 0, it % 2 != 0}) {  // alternate which goes first
        if (op != "mset") run("mset", true);           // untimed: every key present
        const auto t0 = Clock::now();
        run(op, batch);
        us[{op, batch}].push_back(
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count());
      }
    }
  }
  for (const std::string &op : ops) {
    for (bool batch : {true, false}) {
      const std::vector<long long> &v = us[{op, batch}];
      long long sum = 0;
      for (long long x : v) sum += x;
      std::printf("BATCH_BENCH op=%s mode=%s keys=%d n=%zu p50_us=%lld p99_us=%lld mean_us=%lld\n",
                  op.c_str(), batch ? "batch" : "one_by_one", n, v.size(), Percentile(v, 50),
                  Percentile(v, 99), sum / static_cast<long long>(v.size()));
    }
    std::printf("BATCH_RATIO op=%s keys=%d one_by_one_p50/batch_p50=%.1f\n", op.c_str(), n,
                static_cast<double>(Percentile(us[{op, false}], 50)) /
                    static_cast<double>(std::max(1LL, Percentile(us[{op, true}], 50))));
  }
  cr_sentinel_client_free(c);
  return 0;
}
