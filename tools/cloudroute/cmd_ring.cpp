// `cloudroute jedis-hash` and `cloudroute ring`: client-side sharding from
// the command line, through the C API only. Output is one line per key, in
// order, for scripts.
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli.hpp"
#include "ring_spec.hpp"

namespace cli {

namespace {

const char kJedisHashUsage[] =
    "usage: cloudroute jedis-hash --algo murmur|md5 [KEY...]\n"
    "  Jedis's Hashing.MURMUR_HASH or Hashing.MD5 of each key, as the signed 64-bit\n"
    "  long Jedis returns, one per line (keys from stdin, one per line, when none).\n";

const char kRingUsage[] =
    "usage: cloudroute ring --algo murmur|md5 [--naming jedis3|jedis2] [--key-tags] --shards SPEC "
    "[KEY...]\n"
    "       cloudroute ring --algo ketama [--key-tags] --shards SPEC [KEY...]\n"
    "       cloudroute ring --algo jump|modulo [--hash murmur|md5] [--key-tags] --shards N "
    "[KEY...]\n"
    "  Each key's 0-based shard index, one per line (keys from stdin when none).\n"
    "  murmur, md5   Jedis's ShardedJedis ring with that hash (naming: Jedis 3.x name*n,\n"
    "                or Jedis 2.x name*<weight>n; default jedis3)\n"
    "  ketama        libmemcached / twemproxy weighted ketama (MD5); names are the\n"
    "                servers' twemproxy names, \"host:port\", or \"host\" for port 11211\n"
    "  jump          jump consistent hash of the key's hash (default murmur)\n"
    "  modulo        the key's hash modulo N (not consistent)\n"
    "  SPEC          comma-separated NAME=WEIGHT items, in the client's order; =WEIGHT\n"
    "                is an unnamed shard (Jedis \"SHARD-i-NODE-n\" points)\n"
    "  --key-tags    hash only the key tag of Jedis's pattern \\{(.+?)\\}\n"
    "  --            ends the options (for keys that begin with '-')\n";

struct RingDeleter {
  void operator()(cr_ring *r) const { cr_ring_free(r); }
};

bool ParseInt(const std::string &s, long long lo, long long hi, long long *out) {
  if (s.empty()) return false;
  char *end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool WantsHelp(const std::vector<std::string> &args) {
  for (const std::string &a : args) {
    if (a == "--") return false;
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

// Writes `lines` to stdout in large chunks.
class Out {
 public:
  ~Out() { Flush(); }
  void Line(const std::string &s) {
    buf_ += s;
    buf_ += '\n';
    if (buf_.size() > (1u << 16)) Flush();
  }
  void Flush() {
    std::fwrite(buf_.data(), 1, buf_.size(), stdout);
    buf_.clear();
  }

 private:
  std::string buf_;
};

}  // namespace

int BuildRing(const RingSpec &spec, cr_ring **out) {
  const std::string &algo = spec.algo, &naming = spec.naming, &hash = spec.hash,
                    &shards = spec.shards;
  cr_ring_options o = CR_RING_OPTIONS_INIT;
  o.key_tags = spec.key_tags ? 1 : 0;
  if (algo == "murmur" || algo == "md5") {
    o.algo = CR_RING_ALGO_JEDIS;
    o.hash = algo == "md5" ? CR_HASH_ALGO_MD5 : CR_HASH_ALGO_MURMUR;
    if (!hash.empty())
      return Usage("ring: --hash is for jump and modulo (--algo " + algo + " names the hash)");
  } else if (algo == "ketama") {
    o.algo = CR_RING_ALGO_KETAMA;
    if (!hash.empty() && hash != "md5") return Usage("ring: ketama hashes with md5 only");
  } else if (algo == "jump" || algo == "modulo") {
    o.algo = algo == "jump" ? CR_RING_ALGO_JUMP : CR_RING_ALGO_MODULO;
    if (hash == "md5") {
      o.hash = CR_HASH_ALGO_MD5;
    } else if (hash.empty() || hash == "murmur") {
      o.hash = CR_HASH_ALGO_MURMUR;
    } else {
      return Usage("ring: unknown --hash '" + hash + "' (want murmur or md5)");
    }
  } else {
    return Usage(algo.empty() ? "ring: --algo is required (murmur, md5, ketama, jump or modulo)"
                              : "ring: unknown --algo '" + algo +
                                    "' (want murmur, md5, ketama, jump or modulo)");
  }
  if (naming == "jedis3") {
    o.naming = CR_RING_NAMING_JEDIS3;
  } else if (naming == "jedis2") {
    o.naming = CR_RING_NAMING_JEDIS2;
  } else {
    return Usage("ring: unknown --naming '" + naming + "' (want jedis3 or jedis2)");
  }
  if (shards.empty()) return Usage("ring: --shards is required");

  cr_ring *raw = nullptr;
  if (cr_status s = cr_ring_new(&raw, &o); s != CR_OK) return Die("ring", s);
  std::unique_ptr<cr_ring, RingDeleter> ring(raw);
  if (o.algo == CR_RING_ALGO_JUMP || o.algo == CR_RING_ALGO_MODULO) {
    long long n = 0;
    if (!ParseInt(shards, 1, 65536, &n)) {
      return Usage("ring: --algo " + algo + " wants --shards N (a count from 1 to 65536), got '" +
                   shards + "'");
    }
    for (long long i = 0; i < n; ++i) {
      if (cr_status s = cr_ring_add_shard(ring.get(), nullptr, 1); s != CR_OK)
        return Die("ring", s);
    }
  } else {
    size_t start = 0;
    for (;;) {
      const size_t comma = shards.find(',', start);
      const std::string item =
          shards.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const size_t eq = item.rfind('=');
      long long w = 0;
      if (eq == std::string::npos || !ParseInt(item.substr(eq + 1), 0, UINT32_MAX, &w)) {
        return Usage("ring: --shards wants NAME=WEIGHT or =WEIGHT items, got '" + item + "'");
      }
      const std::string name = item.substr(0, eq);
      cr_status s =
          cr_ring_add_shard(ring.get(), eq == 0 ? nullptr : name.c_str(), static_cast<uint32_t>(w));
      if (s != CR_OK) return Die("--shards '" + item + "'", s);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (cr_status s = cr_ring_build(ring.get()); s != CR_OK) return Die("ring", s);
  *out = ring.release();
  return kExitOk;
}

int CmdJedisHash(const std::vector<std::string> &args) {
  if (WantsHelp(args)) {
    std::fputs(kJedisHashUsage, stdout);
    return kExitOk;
  }
  std::string algo;
  std::vector<std::string> keys;
  bool options = true;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (options && a == "--") {
      options = false;
    } else if (options && a == "--algo") {
      if (i + 1 >= args.size()) return Usage("jedis-hash: --algo needs a value (murmur or md5)");
      algo = args[++i];
    } else if (options && a.size() > 1 && a[0] == '-') {
      return Usage("jedis-hash: unknown option '" + a + "' (try: cloudroute jedis-hash --help)");
    } else {
      keys.push_back(a);
    }
  }
  cr_hash_algo h;
  if (algo == "murmur") {
    h = CR_HASH_ALGO_MURMUR;
  } else if (algo == "md5") {
    h = CR_HASH_ALGO_MD5;
  } else {
    return Usage(algo.empty() ? "jedis-hash: --algo murmur|md5 is required"
                              : "jedis-hash: unknown --algo '" + algo + "' (want murmur or md5)");
  }
  Out out;
  for (const std::string &key : KeysFromArgsOrStdin(keys)) {
    int64_t v = 0;
    if (cr_status s = cr_jedis_hash(&v, h, key.data(), key.size()); s != CR_OK)
      return Die("jedis-hash", s);
    out.Line(std::to_string(v));
  }
  return kExitOk;
}

int CmdRing(const std::vector<std::string> &args) {
  if (WantsHelp(args)) {
    std::fputs(kRingUsage, stdout);
    return kExitOk;
  }
  std::string algo, naming = "jedis3", hash, shards;
  bool key_tags = false, options = true;
  std::vector<std::string> keys;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&](std::string *out) {
      if (i + 1 >= args.size()) return false;
      *out = args[++i];
      return true;
    };
    if (options && a == "--") {
      options = false;
    } else if (options && (a == "--algo" || a == "--naming" || a == "--hash" || a == "--shards")) {
      std::string v;
      if (!value(&v)) return Usage("ring: " + a + " needs a value");
      (a == "--algo" ? algo : a == "--naming" ? naming : a == "--hash" ? hash : shards) = v;
    } else if (options && a == "--key-tags") {
      key_tags = true;
    } else if (options && a.size() > 1 && a[0] == '-') {
      return Usage("ring: unknown option '" + a + "' (try: cloudroute ring --help)");
    } else {
      keys.push_back(a);
    }
  }

  cr_ring *raw = nullptr;
  if (int rc = BuildRing(RingSpec{algo, naming, hash, shards, key_tags}, &raw)) return rc;
  std::unique_ptr<cr_ring, RingDeleter> ring(raw);

  Out out;
  for (const std::string &key : KeysFromArgsOrStdin(keys)) {
    uint32_t shard = 0;
    if (cr_status s = cr_ring_locate(&shard, ring.get(), key.data(), key.size()); s != CR_OK) {
      return Die("ring", s);
    }
    out.Line(std::to_string(shard));
  }
  return kExitOk;
}

}  // namespace cli
