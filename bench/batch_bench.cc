// The seeds' batch of 100 keys, as one batch call against the same commands
// issued one by one (100 calls), in the same process and run, alternating:
//   --sentinels: on Sentinel shard groups (seed 001): 100 family keys
//     (cr_family_key_as, Jedis variant, over two groups) through
//     cr_sentinel_client_mset / _mget / _exists / _del (one command per group,
//     both groups at once) against cr_sentinel_client_command SET / GET /
//     EXISTS / DEL (bench/sentinel_batch_bench.sh starts the Sentinel setup);
//   --servers: on pre-sharded standalone servers (seed 003): 100 keys on a
//     ShardedJedis ring (named shards, MurmurHash, Jedis 3 point names)
//     through cr_sharded_client_mset / _mget / _exists / _del (one command
//     per shard, every shard at once) against cr_sharded_client_command
//     SET / GET / EXISTS / DEL (bench/sharded_batch_bench.sh starts the servers).
//
//   cloudroute_batch_bench --sentinels HOST:PORT[,...] --local-cidr CIDR
//                          [--iterations N] [--keys N]
//   cloudroute_batch_bench --servers HOST:PORT,HOST:PORT --shards NAME=W,NAME=W
//                          [--iterations N] [--keys N]
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
#include <sstream>
#include <string>
#include <vector>

#include "cloudroute.h"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const char *what, cr_status s) {
  std::fprintf(stderr, "batch_bench: %s: %s: %s\n", what, cr_status_str(s), cr_last_error());
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

std::vector<std::string> Split(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) out.push_back(part);
  return out;
}

long long Percentile(std::vector<long long> v, double p) {
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p / 100.0 * v.size()));
  return v[i];
}

}  // namespace

int main(int argc, char **argv) {
  std::string sentinels, local_cidr, servers, shards;
  int iterations = 300, n = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--sentinels") == 0) sentinels = argv[i + 1];
    if (std::strcmp(argv[i], "--local-cidr") == 0) local_cidr = argv[i + 1];
    if (std::strcmp(argv[i], "--servers") == 0) servers = argv[i + 1];
    if (std::strcmp(argv[i], "--shards") == 0) shards = argv[i + 1];
    if (std::strcmp(argv[i], "--iterations") == 0) iterations = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--keys") == 0) n = std::atoi(argv[i + 1]);
  }
  const bool sharded = !servers.empty();
  if ((sharded ? shards.empty() : sentinels.empty() || local_cidr.empty()) || iterations < 1 ||
      n < 1) {
    std::fprintf(stderr,
                 "usage: %s --sentinels HOST:PORT[,...] --local-cidr CIDR [--iterations N] "
                 "[--keys N]\n"
                 "       %s --servers HOST:PORT,... --shards NAME=WEIGHT,... [--iterations N] "
                 "[--keys N]\n",
                 argv[0], argv[0]);
    return 2;
  }

  // The ring: the Sentinel groups group0/group1, or the given shards
  // (ShardedJedis's defaults: MurmurHash, Jedis 3 point names, no key tags).
  const std::vector<std::string> server_list = Split(servers);
  std::vector<std::string> names = {"group0", "group1"};
  std::vector<uint32_t> weights = {1, 1};
  if (sharded) {
    names.clear();
    weights.clear();
    for (const std::string &s : Split(shards)) {
      const size_t eq = s.find('=');
      names.push_back(s.substr(0, eq));
      weights.push_back(
          eq == std::string::npos ? 1u : static_cast<uint32_t>(std::atoi(s.c_str() + eq + 1)));
    }
  }
  cr_ring *ring = nullptr;
  cr_ring_options ro = CR_RING_OPTIONS_INIT;
  Ok("ring", cr_ring_new(&ring, &ro));
  for (size_t i = 0; i < names.size(); ++i)
    Ok("ring", cr_ring_add_shard(ring, names[i].c_str(), weights[i]));
  Ok("ring", cr_ring_build(ring));
  cr_config *cfg = nullptr;
  Ok("config", cr_config_new(&cfg));
  cr_sentinel_client *c = nullptr;
  cr_sharded_client *sc = nullptr;
  if (sharded) {
    std::vector<const char *> addrs;
    for (const std::string &s : server_list) addrs.push_back(s.c_str());
    Ok("client", cr_sharded_client_new(&sc, cfg, nullptr, ring, addrs.data(), addrs.size()));
  } else {
    Ok("config", cr_config_add_local_cidr(cfg, local_cidr.c_str()));
    std::vector<const char *> groups;
    for (const std::string &s : names) groups.push_back(s.c_str());
    Ok("client", cr_sentinel_client_new(&c, cfg, nullptr, ring, groups.data(), groups.size(),
                                        sentinels.c_str()));
  }
  cr_config_free(cfg);
  cr_ring_free(ring);

  Keys k;
  for (int i = 0; i < n; ++i) {
    const std::string user = "user:" + std::to_string(i);
    if (sharded) {
      k.keys.push_back(user);
    } else {
      char stored[CR_FAMILY_KEY_SIZE];
      size_t needed = 0;
      Ok("family key", cr_family_key_as(stored, sizeof stored, &needed, CR_FAMILY_KEY_VARIANT_JEDIS,
                                        "orders", user.data(), user.size()));
      k.keys.emplace_back(stored);
    }
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

  // One single-key command: on the key's group or shard.
  auto single = [&](cr_access access, size_t nargs, const void *const *args, const size_t *lens) {
    cr_reply *r = nullptr;
    Ok(static_cast<const char *>(args[0]),
       sharded ? cr_sharded_client_command(&r, sc, nullptr, access, 1, nargs, args, lens)
               : cr_sentinel_client_command(&r, c, access, 1, nargs, args, lens));
    cr_reply_free(r);
  };
  // One round of an op: the whole batch in one call, or n single calls.
  auto run = [&](const std::string &op, bool batch) {
    int64_t count = 0;
    if (!batch) {
      for (size_t i = 0; i < un; ++i) {
        const char *cmd = op == "mset"   ? "SET"
                          : op == "mget" ? "GET"
                          : op == "del"  ? "DEL"
                                         : "EXISTS";
        const void *args[] = {cmd, k.kp[i], k.vp[i]};
        const size_t lens[] = {std::strlen(cmd), k.kl[i], k.vl[i]};
        single(op == "mset" || op == "del" ? CR_ACCESS_WRITE : CR_ACCESS_READ, op == "mset" ? 3 : 2,
               args, lens);
      }
    } else if (op == "mset") {
      Ok("mset", sharded ? cr_sharded_client_mset(sc, k.kp.data(), k.kl.data(), k.vp.data(),
                                                  k.vl.data(), un)
                         : cr_sentinel_client_mset(st.data(), c, k.kp.data(), k.kl.data(),
                                                   k.vp.data(), k.vl.data(), un));
    } else if (op == "mget") {
      if (sharded) {
        cr_reply *r = nullptr;
        Ok("mget", cr_sharded_client_mget(&r, sc, k.kp.data(), k.kl.data(), un));
        cr_reply_free(r);
      } else {
        Ok("mget",
           cr_sentinel_client_mget(replies.data(), st.data(), c, k.kp.data(), k.kl.data(), un));
        for (cr_reply *r : replies) cr_reply_free(r);
      }
    } else if (sharded) {  // exists, del
      Ok(op.c_str(), (op == "del" ? cr_sharded_client_del : cr_sharded_client_exists)(
                         &count, sc, k.kp.data(), k.kl.data(), un));
    } else {
      Ok(op.c_str(), (op == "del" ? cr_sentinel_client_del : cr_sentinel_client_exists)(
                         &count, st.data(), c, k.kp.data(), k.kl.data(), un));
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
  if (sharded)
    cr_sharded_client_free(sc);
  else
    cr_sentinel_client_free(c);
  return 0;
}
