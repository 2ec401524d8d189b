// `cloudroute sharded get|set|exec|reshard`: pre-sharded standalone servers
// (cr_sharded_client). A ring (the options of `ring`; default: a Jedis
// murmur ring of unnamed shards, weight 1) places each key on a shard, and
// the i-th --server serves shard i. `get`, `set` and `exec` run a command on
// the key's shard; `reshard` tells an operator, for a proposed change of the
// shard list (add, remove, reweight, rename), what share of the key space
// changes shard — over a sample of keys hashed by both rings, and with
// --scan over the real keys of the servers.
// The password comes from $CLOUDROUTE_PASSWORD, never from the command line.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client_setup.hpp"
#include "ring_spec.hpp"

namespace cli {

namespace {

const char kUsage[] =
    "usage: cloudroute sharded get|set|exec --server HOST:PORT[,REPLICA...] [--server ...]\n"
    "           [--algo murmur|md5|ketama|jump|modulo] [--shards SPEC|N] [--naming jedis3|jedis2]\n"
    "           [--hash murmur|md5] [--key-tags] [LOCALITY] [--user U] [--client-name N]\n"
    "           [--db N] [--read] KEY [VALUE] | ARG...\n"
    "       cloudroute sharded reshard [--algo ...] --shards SPEC --to SPEC [--same OLD=NEW]...\n"
    "           [--sample N] [--scan --server ... [--match PATTERN]]\n"
    "  The i-th --server serves ring shard i: its master, then its replicas. The ring\n"
    "  is built as `cloudroute ring` builds it (default: a Jedis murmur ring of\n"
    "  unnamed shards, weight 1, one per --server).\n"
    "  get      GET KEY: from the key's shard, nearest instance first\n"
    "  set      SET KEY VALUE on the key's shard's master\n"
    "  exec     any command ARG... on the shard of ARG[1] (its master; --read: any\n"
    "           instance, nearest first); -- before ARG... when one starts with '-'\n"
    "           (sharded exec ... -- LRANGE list 0 -1)\n"
    "  reshard  the share of the key space that changes shard when the shard list\n"
    "           --shards becomes --to (same algorithm and options): a shard is the\n"
    "           same when its name is (an unnamed one: its position); --same OLD=NEW\n"
    "           says a renamed shard stays on its server. Computed on --sample keys\n"
    "           (default 1000000) hashed by both rings; with --scan, also over every\n"
    "           key of the servers (laid out as --shards), MATCH PATTERN when given.\n"
    "  LOCALITY: --local-cidr, --location-rule, --client-location, --client-zone, --zone,\n"
    "  --node-location, --weight, --selection (see cloudroute --help).\n"
    "  Password: $CLOUDROUTE_PASSWORD.\n";

struct ShardedDeleter {
  void operator()(cr_sharded_client *c) const { cr_sharded_client_free(c); }
};
using ShardedPtr = std::unique_ptr<cr_sharded_client, ShardedDeleter>;
using RingPtr = std::unique_ptr<cr_ring, void (*)(cr_ring *)>;

// The shard names of a spec ("a=1,b=2", "=1,=1", or a count N): the name,
// "#i" for an unnamed shard.
std::vector<std::string> ShardIds(const std::string &spec) {
  std::vector<std::string> out;
  if (!spec.empty() && spec.find_first_not_of("0123456789") == std::string::npos) {
    const unsigned long n = std::strtoul(spec.c_str(), nullptr, 10);
    for (unsigned long i = 0; i < n && i < 65536; ++i) out.push_back("#" + std::to_string(i));
    return out;
  }
  size_t start = 0;
  for (size_t i = 0;; ++i) {
    const size_t comma = spec.find(',', start);
    const std::string item =
        spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::string name = item.substr(0, item.find('='));
    out.push_back(name.empty() ? "#" + std::to_string(i) : name);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// Counts the keys whose shard differs between the rings (by identity).
struct MoveCount {
  uint64_t keys = 0, moved = 0;
  std::map<std::pair<std::string, std::string>, uint64_t> by_pair;

  int Add(const cr_ring *from, const cr_ring *to, const std::vector<std::string> &from_ids,
          const std::vector<std::string> &to_ids, const std::string &key) {
    uint32_t a = 0, b = 0;
    if (cr_status s = cr_ring_locate(&a, from, key.data(), key.size()); s != CR_OK)
      return Die("locate", s);
    if (cr_status s = cr_ring_locate(&b, to, key.data(), key.size()); s != CR_OK)
      return Die("locate", s);
    ++keys;
    if (from_ids[a] != to_ids[b]) {
      ++moved;
      ++by_pair[{from_ids[a], to_ids[b]}];
    }
    return 0;
  }
  void Print(const char *what) const {
    const auto pct = [this](uint64_t n) {
      return keys == 0 ? 0.0 : 100.0 * double(n) / double(keys);
    };
    std::printf("%s: keys=%llu moved=%llu share=%.3f%%\n", what,
                static_cast<unsigned long long>(keys), static_cast<unsigned long long>(moved),
                pct(moved));
    for (const auto &[pair, n] : by_pair) {
      std::printf("  %s -> %s: %llu (%.3f%%)\n", Printable(pair.first).c_str(),
                  Printable(pair.second).c_str(), static_cast<unsigned long long>(n), pct(n));
    }
  }
};

// One command on its key's shard. get and set print the value alone, as
// `cloudroute get` does; exec prints the whole reply as `cloudroute exec` does
// (integers, arrays, error replies).
cr_status Run(ShardedPtr &c, cr_access access, const std::vector<std::string> &argv,
              bool whole_reply) {
  const ByteArgs a(argv);
  cr_reply *r = nullptr;
  const cr_status s = cr_sharded_client_command(&r, c.get(), nullptr, access, 1, a.size(),
                                                a.ptrs.data(), a.lens.data());
  if (s == CR_OK) whole_reply ? PrintReply(r) : PrintValue(r);
  cr_reply_free(r);
  return s;
}

}  // namespace

int CmdSharded(const std::vector<std::string> &args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? kExitUsage : kExitOk;
  }
  const std::string verb = args[0];
  if (verb != "get" && verb != "set" && verb != "exec" && verb != "reshard")
    return Usage("sharded: unknown verb '" + verb + "' (get, set, exec or reshard)");
  const std::vector<std::string> tail(args.begin() + 1, args.end());
  RouterSetup setup;
  std::vector<std::string> rest;
  if (int rc = setup.Parse(tail, &rest)) return rc;
  if (setup.tls.tls) return Usage("sharded: the CLI offers no TLS options for this client yet");
  RingSpec ring{"murmur", "jedis3", "", "", false};
  std::vector<std::string> servers, pos, same;
  std::string user, name, to, match, sample_text = "1000000";
  uint32_t db = 0;
  bool read = false, scan = false;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string &a = rest[i];
    std::string *field = a == "--algo"          ? &ring.algo
                         : a == "--shards"      ? &ring.shards
                         : a == "--naming"      ? &ring.naming
                         : a == "--hash"        ? &ring.hash
                         : a == "--user"        ? &user
                         : a == "--client-name" ? &name
                         : a == "--to"          ? &to
                         : a == "--match"       ? &match
                         : a == "--sample"      ? &sample_text
                                                : nullptr;
    if (field != nullptr || a == "--server" || a == "--same") {
      if (i + 1 >= rest.size()) return Usage("sharded: " + a + " needs a value");
      if (field != nullptr) {
        *field = rest[++i];
      } else {
        (a == "--server" ? servers : same).push_back(rest[++i]);
      }
    } else if (a == "--key-tags") {
      ring.key_tags = true;
    } else if (a == "--read") {
      read = true;
    } else if (a == "--scan") {
      scan = true;
    } else if (a == "--db") {
      if (int rc = ParseDb(i + 1 < rest.size() ? rest[++i] : "", &db)) return rc;
    } else if (a == "--") {
      pos.insert(pos.end(), rest.begin() + static_cast<long>(i) + 1, rest.end());
      break;
    } else if (a.size() > 1 && a[0] == '-') {
      return Usage("sharded: unknown option '" + a + "' (try: cloudroute sharded --help)");
    } else {
      pos.push_back(a);
    }
  }
  const bool needs_servers = verb != "reshard" || scan;
  if (needs_servers && servers.empty())
    return Usage("sharded " + verb + ": --server HOST:PORT[,REPLICA...] is required");
  if (ring.shards.empty()) {
    if (verb == "reshard") return Usage("sharded reshard: --shards SPEC is required");
    const bool counted = ring.algo == "jump" || ring.algo == "modulo";
    ring.shards = counted ? std::to_string(servers.size()) : "";
    for (size_t i = 0; !counted && i < servers.size(); ++i) ring.shards += i ? ",=1" : "=1";
  }
  cr_ring *raw_ring = nullptr;
  if (int rc = BuildRing(ring, &raw_ring)) return rc;
  RingPtr ring_owner(raw_ring, cr_ring_free);

  ShardedPtr client;
  if (needs_servers) {
    cr_sharded_options o = CR_SHARDED_OPTIONS_INIT;
    o.username = user.empty() ? nullptr : user.c_str();
    const char *pw = std::getenv("CLOUDROUTE_PASSWORD");
    o.password = pw != nullptr && *pw != '\0' ? pw : nullptr;
    o.client_name = name.empty() ? "cloudroute-cli" : name.c_str();
    o.db = db;
    const std::vector<const char *> ptrs = CStrings(servers);
    cr_sharded_client *raw = nullptr;
    if (cr_status s =
            cr_sharded_client_new(&raw, setup.cfg, &o, raw_ring, ptrs.data(), ptrs.size());
        s != CR_OK)
      return Die("sharded servers", s);
    client.reset(raw);
  }

  if (verb == "get" || verb == "set") {
    if (pos.size() != (verb == "set" ? 2u : 1u))
      return Usage("sharded " + verb + ": want KEY" + (verb == "set" ? " VALUE" : ""));
    std::vector<std::string> argv = {verb == "get" ? "GET" : "SET", pos[0]};
    if (verb == "set") argv.push_back(pos[1]);
    const cr_status s = Run(client, verb == "get" ? CR_ACCESS_READ : CR_ACCESS_WRITE, argv, false);
    if (s != CR_OK) return Die(verb + " " + pos[0], s), kExitCommandFailed;
    return kExitOk;
  }
  if (verb == "exec") {
    if (pos.size() < 2) return Usage("sharded exec: want a command and its key: ARG...");
    const cr_status s = Run(client, read ? CR_ACCESS_READ : CR_ACCESS_WRITE, pos, true);
    if (s != CR_OK) return Die("exec " + pos[0], s), kExitCommandFailed;
    return kExitOk;
  }

  // reshard
  if (to.empty()) return Usage("sharded reshard: --to SPEC (the proposed shard list) is required");
  if (!pos.empty()) return Usage("sharded reshard: unexpected argument '" + pos[0] + "'");
  char *end = nullptr;
  const unsigned long long sample = std::strtoull(sample_text.c_str(), &end, 10);
  if (sample_text.empty() || *end != '\0' || sample > 100000000ull)
    return Usage("sharded reshard: --sample wants a count up to 100000000");
  RingSpec proposed = ring;
  proposed.shards = to;
  cr_ring *raw_to = nullptr;
  if (int rc = BuildRing(proposed, &raw_to)) return rc;
  RingPtr to_owner(raw_to, cr_ring_free);
  const std::vector<std::string> from_ids = ShardIds(ring.shards);
  std::vector<std::string> to_ids = ShardIds(to);
  for (const std::string &m : same) {
    const size_t eq = m.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == m.size())
      return Usage("sharded reshard: --same wants OLD=NEW, got '" + m + "'");
    for (std::string &id : to_ids) {
      if (id == m.substr(eq + 1)) id = m.substr(0, eq);
    }
  }
  std::printf("shards: %zu -> %zu\n", from_ids.size(), to_ids.size());
  MoveCount sampled;
  for (unsigned long long i = 0; i < sample; ++i) {
    if (int rc = sampled.Add(raw_ring, raw_to, from_ids, to_ids, "key:" + std::to_string(i)))
      return rc;
  }
  sampled.Print("sample");
  if (!scan) return kExitOk;
  if (servers.size() != from_ids.size())
    return Usage("sharded reshard --scan: " + std::to_string(servers.size()) + " --server for " +
                 std::to_string(from_ids.size()) + " shards");
  cr_scan_options so = CR_SCAN_OPTIONS_INIT;
  if (!match.empty()) {
    so.match = match.data();
    so.match_len = match.size();
  }
  so.count = 1000;
  cr_scan *raw_scan = nullptr;
  if (cr_status s = cr_sharded_scan_new(&raw_scan, client.get(), &so); s != CR_OK)
    return Die("scan", s);
  std::unique_ptr<cr_scan, void (*)(cr_scan *)> sc(raw_scan, cr_scan_free);
  MoveCount real;
  for (;;) {
    cr_reply *batch = nullptr;
    if (cr_status s = cr_scan_next(&batch, sc.get()); s != CR_OK)
      return Die("scan", s), kExitCommandFailed;
    if (batch == nullptr) break;
    std::unique_ptr<cr_reply, void (*)(cr_reply *)> owned(batch, cr_reply_free);
    for (size_t i = 0; i < cr_reply_get_count(batch); ++i) {
      size_t len = 0;
      const char *k = cr_reply_get_string(cr_reply_get_element(batch, i), &len);
      if (int rc = real.Add(raw_ring, raw_to, from_ids, to_ids, std::string(k, len))) return rc;
    }
  }
  real.Print("scan");
  return kExitOk;
}

}  // namespace cli
