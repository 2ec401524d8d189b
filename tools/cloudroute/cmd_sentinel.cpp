// `cloudroute sentinel route|get|set`: the family-key design on shard groups
// kept current by Redis Sentinel (cr_sentinel_client). The stored key of
// (FAMILY, KEY) is cr_family_key_as of the chosen variant; a ring over the
// Sentinel master names (ring shard i is group i, as the existing client
// builds it) places it on a group. `route` prints the group, its master (the
// write) and its read candidates in the order a read tries them; `get` reads
// it from the group's nearest instance; `set` writes it on the master.
// Passwords come from $CLOUDROUTE_PASSWORD (data nodes) and
// $CLOUDROUTE_SENTINEL_PASSWORD (the sentinels), never from the command line.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "client_setup.hpp"
#include "ring_spec.hpp"

namespace cli {

namespace {

const char kUsage[] =
    "usage: cloudroute sentinel route|get|set --sentinels HOST:PORT[,...] --masters NAME[,...]\n"
    "           [--algo murmur|md5|ketama|jump|modulo] [--shards SPEC|N] [--naming jedis3|jedis2]\n"
    "           [--hash murmur|md5] [--key-tags] [--variant jedis|commons-codec]\n"
    "           [LOCALITY] [--user U] [--sentinel-user U] [--client-name N] [--db N]\n"
    "           FAMILY KEY [VALUE]\n"
    "  --db N: the data nodes' database (SELECT N on every connection; default 0).\n"
    "  The family-key design on Sentinel shard groups: KEY of FAMILY is stored as the\n"
    "  decimal MurmurHash of FAMILY:KEY (--variant, as `family-key`), placed by a ring\n"
    "  over the Sentinel master names (group i is the i-th of --masters; --algo and\n"
    "  --shards as for `ring`, default: a Jedis murmur ring of the names, weight 1).\n"
    "  route  the stored key, its group, the master a write goes to and the instances\n"
    "         a read tries, in order (tier, and 'down' when its breaker is open)\n"
    "  get    GET of the stored key, from the nearest instance of the group\n"
    "  set    SET of the stored key to VALUE, on the group's master\n"
    "  LOCALITY: --local-cidr, --location-rule, --client-location, --client-zone, --zone,\n"
    "  --node-location, --weight, --selection (see cloudroute --help).\n"
    "  Passwords: $CLOUDROUTE_PASSWORD (data nodes), $CLOUDROUTE_SENTINEL_PASSWORD.\n";

struct SentinelDeleter {
  void operator()(cr_sentinel_client *c) const { cr_sentinel_client_free(c); }
};

std::vector<std::string> SplitCommas(const std::string &s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

const char *EnvOrNull(const char *name) {
  const char *v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

// `route`: where the stored key lives and who serves it.
int PrintRoute(cr_sentinel_client *c, const std::vector<std::string> &masters,
               const std::string &family, const std::string &key, const std::string &stored) {
  cr_shard_groups *g = cr_sentinel_client_get_groups(c);
  uint32_t group = 0;
  if (cr_status s = cr_shard_groups_locate(&group, g, stored.data(), stored.size()); s != CR_OK)
    return Die("locate " + stored, s), kExitRouteFailed;
  cr_route w = CR_ROUTE_INIT;
  const cr_status ws = cr_shard_groups_route_write(&w, g, stored.data(), stored.size());
  std::vector<cr_candidate> cands(8);
  size_t n = 0;
  cr_status cs;
  for (;;) {
    for (cr_candidate &e : cands) e = CR_CANDIDATE_INIT;
    cs =
        cr_shard_groups_candidates(cands.data(), cands.size(), &n, g, stored.data(), stored.size());
    if (cs != CR_EBUFS) break;
    cands.resize(n);
  }
  if (cs != CR_OK) return Die("candidates of " + stored, cs), kExitRouteFailed;
  std::printf("family=%s key=%s stored=%s group=%u name=%s write=%s\n", Printable(family).c_str(),
              Printable(key).c_str(), stored.c_str(), group, Printable(masters[group]).c_str(),
              ws == CR_OK ? Printable(Address(w.host, w.port)).c_str() : "?");
  for (size_t i = 0; i < n; ++i) {
    const cr_candidate &e = cands[i];
    std::printf("  read %zu: %s %s tier=%s%s\n", i + 1, Printable(Address(e.host, e.port)).c_str(),
                cr_role_name(e.role), cr_tier_name(e.tier), e.down ? " down" : "");
  }
  return ws == CR_OK ? kExitOk : kExitRouteFailed;
}

}  // namespace

int CmdSentinel(const std::vector<std::string> &args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? kExitUsage : kExitOk;
  }
  const std::string verb = args[0];
  if (verb != "route" && verb != "get" && verb != "set")
    return Usage("sentinel: unknown verb '" + verb + "' (route, get or set)");
  const std::vector<std::string> tail(args.begin() + 1, args.end());
  for (const std::string &a : tail) {
    if (a == "--seeds" || a == "--cluster-slots" || a == "--cluster-shards" || a == "--static" ||
        a == "--default-host" || a == "--remap" || a == "--policy") {
      return Usage("sentinel: " + a +
                   " does not apply (the sentinels name the nodes; reads go nearest first)");
    }
  }
  RouterSetup setup;
  std::vector<std::string> rest;
  if (int rc = setup.Parse(tail, &rest)) return rc;
  if (setup.tls.tls) return Usage("sentinel: the Sentinel client has no TLS options yet");
  RingSpec ring{"murmur", "jedis3", "", "", false};
  std::string sentinels, masters, variant_name = "jedis", user, sentinel_user, name;
  uint32_t db = 0;
  std::vector<std::string> pos;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string &a = rest[i];
    std::string *field = a == "--sentinels"       ? &sentinels
                         : a == "--masters"       ? &masters
                         : a == "--algo"          ? &ring.algo
                         : a == "--shards"        ? &ring.shards
                         : a == "--naming"        ? &ring.naming
                         : a == "--hash"          ? &ring.hash
                         : a == "--variant"       ? &variant_name
                         : a == "--user"          ? &user
                         : a == "--sentinel-user" ? &sentinel_user
                         : a == "--client-name"   ? &name
                                                  : nullptr;
    if (field != nullptr) {
      if (i + 1 >= rest.size()) return Usage("sentinel: " + a + " needs a value");
      *field = rest[++i];
    } else if (a == "--key-tags") {
      ring.key_tags = true;
    } else if (a == "--db") {
      if (int rc = ParseDb(i + 1 < rest.size() ? rest[++i] : "", &db)) return rc;
    } else if (a == "--") {
      pos.insert(pos.end(), rest.begin() + static_cast<long>(i) + 1, rest.end());
      break;
    } else if (a.size() > 1 && a[0] == '-') {
      return Usage("sentinel: unknown option '" + a + "' (try: cloudroute sentinel --help)");
    } else {
      pos.push_back(a);
    }
  }
  if (sentinels.empty()) return Usage("sentinel: --sentinels HOST:PORT[,...] is required");
  if (masters.empty()) return Usage("sentinel: --masters NAME[,NAME...] is required");
  if (pos.size() != (verb == "set" ? 3u : 2u))
    return Usage("sentinel " + verb + ": want FAMILY KEY" + (verb == "set" ? " VALUE" : ""));
  cr_family_key_variant variant = CR_FAMILY_KEY_VARIANT_JEDIS;
  if (cr_status s = cr_family_key_variant_from_name(&variant, variant_name.c_str()); s != CR_OK)
    return Die("--variant " + variant_name, s);
  char stored_buf[CR_FAMILY_KEY_SIZE];
  size_t needed = 0;
  if (cr_status s = cr_family_key_as(stored_buf, sizeof stored_buf, &needed, variant,
                                     pos[0].c_str(), pos[1].data(), pos[1].size());
      s != CR_OK)
    return Die("family key of " + pos[0] + " " + pos[1], s);
  const std::string stored = stored_buf;

  const std::vector<std::string> names = SplitCommas(masters);
  if (ring.shards.empty()) {
    const bool counted = ring.algo == "jump" || ring.algo == "modulo";
    ring.shards = counted ? std::to_string(names.size()) : "";
    for (size_t i = 0; !counted && i < names.size(); ++i)
      ring.shards += (i ? "," : "") + names[i] + "=1";
  }
  cr_ring *raw_ring = nullptr;
  if (int rc = BuildRing(ring, &raw_ring)) return rc;
  std::unique_ptr<cr_ring, void (*)(cr_ring *)> ring_owner(raw_ring, cr_ring_free);

  cr_sentinel_options o = CR_SENTINEL_OPTIONS_INIT;
  o.username = user.empty() ? nullptr : user.c_str();
  o.password = EnvOrNull("CLOUDROUTE_PASSWORD");
  o.sentinel_username = sentinel_user.empty() ? nullptr : sentinel_user.c_str();
  o.sentinel_password = EnvOrNull("CLOUDROUTE_SENTINEL_PASSWORD");
  o.client_name = name.empty() ? "cloudroute-cli" : name.c_str();
  o.reask_interval_ms = 0;  // a short-lived process
  o.db = db;
  std::vector<const char *> name_ptrs;
  for (const std::string &n : names) name_ptrs.push_back(n.c_str());
  cr_sentinel_client *raw = nullptr;
  if (cr_status s = cr_sentinel_client_new(&raw, setup.cfg, &o, raw_ring, name_ptrs.data(),
                                           name_ptrs.size(), sentinels.c_str());
      s != CR_OK)
    return Die("sentinels " + sentinels, s);
  std::unique_ptr<cr_sentinel_client, SentinelDeleter> client(raw);

  if (verb == "route") return PrintRoute(client.get(), names, pos[0], pos[1], stored);
  std::vector<const void *> argv = {verb == "get" ? "GET" : "SET", stored.data()};
  std::vector<size_t> lens = {3, stored.size()};
  if (verb == "set") {
    argv.push_back(pos[2].data());
    lens.push_back(pos[2].size());
  }
  cr_reply *r = nullptr;
  const cr_status s =
      cr_sentinel_client_command(&r, client.get(), verb == "get" ? CR_ACCESS_READ : CR_ACCESS_WRITE,
                                 1, argv.size(), argv.data(), lens.data());
  if (s != CR_OK) return Die(verb + " " + pos[0] + " " + pos[1], s), kExitCommandFailed;
  PrintValue(r);
  cr_reply_free(r);
  return kExitOk;
}

}  // namespace cli
