// `cloudroute sentinel route|get|set|mget|mset|del|exists`: the family-key design on shard groups
// kept current by Redis Sentinel (cr_sentinel_client). The stored key of
// (FAMILY, KEY) is cr_family_key_as of the chosen variant; a ring over the
// Sentinel master names (ring shard i is group i, as the existing client
// builds it) places it on a group. `route` prints the group, its master (the
// write) and its read candidates in the order a read tries them; `get` reads
// it from the group's nearest instance; `set` writes it on the master;
// `mget`, `mset`, `del` and `exists` run one command per group over many
// keys of the family (cr_sentinel_client_mget …), every group at once, and
// name the keys that failed.
// Passwords come from $CLOUDROUTE_PASSWORD (data nodes) and
// $CLOUDROUTE_SENTINEL_PASSWORD (the sentinels), never from the command line.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "client_setup.hpp"
#include "ring_spec.hpp"

namespace cli {

namespace {

const char kUsage[] =
    "usage: cloudroute sentinel route|get|set|mget|mset|del|exists --sentinels HOST:PORT[,...]\n"
    "           --masters NAME[,...]\n"
    "           [--algo murmur|md5|ketama|jump|modulo] [--shards SPEC|N] [--naming jedis3|jedis2]\n"
    "           [--hash murmur|md5] [--key-tags] [--variant jedis|commons-codec]\n"
    "           [LOCALITY] [--user U] [--sentinel-user U] [--client-name N] [--db N]\n"
    "           FAMILY KEY [VALUE]       (route, get, set)\n"
    "           FAMILY KEY [KEY...]      (mget, del, exists)\n"
    "           FAMILY KEY VALUE [KEY VALUE...]  (mset)\n"
    "  --db N: the data nodes' database (SELECT N on every connection; default 0).\n"
    "  The family-key design on Sentinel shard groups: KEY of FAMILY is stored as the\n"
    "  decimal MurmurHash of FAMILY:KEY (--variant, as `family-key`), placed by a ring\n"
    "  over the Sentinel master names (group i is the i-th of --masters; --algo and\n"
    "  --shards as for `ring`, default: a Jedis murmur ring of the names, weight 1).\n"
    "  route  the stored key, its group, the master a write goes to and the instances\n"
    "         a read tries, in order (tier, and 'down' when its breaker is open)\n"
    "  get    GET of the stored key, from the nearest instance of the group\n"
    "  set    SET of the stored key to VALUE, on the group's master\n"
    "  mget   the keys' values, one line each in order ((nil); (error) … for a key whose\n"
    "         group failed) — one MGET per group, every group at once\n"
    "  mset   the pairs, one MSET per group on its master: OK\n"
    "  del    DEL of the keys, one per group: how many existed\n"
    "  exists how many of the keys exist, one EXISTS per group\n"
    "  A batch is not a transaction: when a group fails, its keys fail (stderr names\n"
    "  them and why, exit 1) and the other groups' results stand.\n"
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

// mget, mset, del, exists over the stored keys (mset: values too): prints
// the results; kExitCommandFailed with the failed keys named when a group
// failed. labels: the caller's KEY of each stored key, for the messages.
int RunBatch(cr_sentinel_client *c, const std::string &verb, const std::vector<std::string> &keys,
             const std::vector<std::string> &values, const std::vector<std::string> &labels) {
  const ByteArgs k(keys), v(values);
  const size_t n = keys.size();
  std::vector<cr_status> st(n, CR_OK);
  std::vector<cr_reply *> replies(verb == "mget" ? n : 0, nullptr);
  int64_t count = 0;
  cr_status s;
  if (verb == "mget") {
    s = cr_sentinel_client_mget(replies.data(), st.data(), c, k.ptrs.data(), k.lens.data(), n);
  } else if (verb == "mset") {
    s = cr_sentinel_client_mset(st.data(), c, k.ptrs.data(), k.lens.data(), v.ptrs.data(),
                                v.lens.data(), n);
  } else {
    s = (verb == "del" ? cr_sentinel_client_del : cr_sentinel_client_exists)(
        &count, st.data(), c, k.ptrs.data(), k.lens.data(), n);
  }
  const std::string error = s != CR_OK ? cr_last_error() : "";
  for (size_t i = 0; i < replies.size(); ++i) {
    size_t len = 0;
    const char *p = cr_reply_get_string(replies[i], &len);
    if (st[i] != CR_OK) {
      std::printf("(error) %s\n", Printable(std::string_view(p, len)).c_str());
    } else {
      PrintValue(replies[i]);
    }
    cr_reply_free(replies[i]);
  }
  if (s == CR_OK) {
    if (verb == "mset") std::puts("OK");
    if (verb == "del" || verb == "exists") std::printf("%lld\n", static_cast<long long>(count));
    return kExitOk;
  }
  std::string failed;
  size_t nfailed = 0;
  for (size_t i = 0; i < n; ++i) {
    if (st[i] == CR_OK) continue;
    failed += (nfailed++ == 0 ? "" : " ") + Printable(labels[i]);
  }
  if (nfailed == 0) return Die("sentinel " + verb, s);  // refused before anything was sent
  std::fprintf(stderr, "cloudroute: sentinel %s: %zu of %zu keys failed: %s\ncloudroute: %s\n",
               verb.c_str(), nfailed, n, failed.c_str(), Printable(error).c_str());
  return kExitCommandFailed;
}

}  // namespace

int CmdSentinel(const std::vector<std::string> &args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? kExitUsage : kExitOk;
  }
  const std::string verb = args[0];
  const bool batch = verb == "mget" || verb == "mset" || verb == "del" || verb == "exists";
  if (verb != "route" && verb != "get" && verb != "set" && !batch) {
    return Usage("sentinel: unknown verb '" + verb +
                 "' (route, get, set, mget, mset, del or exists)");
  }
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
  if (verb == "mset" && (pos.size() < 3 || pos.size() % 2 == 0)) {
    return Usage("sentinel mset: want FAMILY KEY VALUE [KEY VALUE...] (" +
                 std::to_string(pos.size() < 1 ? 0 : pos.size() - 1) +
                 " words after FAMILY: keys and values must pair)");
  }
  if (batch && verb != "mset" && pos.size() < 2)
    return Usage("sentinel " + verb + ": want FAMILY KEY [KEY...]");
  if (!batch && pos.size() != (verb == "set" ? 3u : 2u))
    return Usage("sentinel " + verb + ": want FAMILY KEY" + (verb == "set" ? " VALUE" : ""));
  cr_family_key_variant variant = CR_FAMILY_KEY_VARIANT_JEDIS;
  if (cr_status s = cr_family_key_variant_from_name(&variant, variant_name.c_str()); s != CR_OK)
    return Die("--variant " + variant_name, s);
  // The stored key of every KEY (mset: of every KEY of its pairs).
  std::vector<std::string> stored_keys, values, labels;
  const size_t step = verb == "mset" || verb == "set" ? 2 : 1;
  for (size_t i = 1; i < pos.size(); i += step) {
    char stored_buf[CR_FAMILY_KEY_SIZE];
    size_t needed = 0;
    if (cr_status s = cr_family_key_as(stored_buf, sizeof stored_buf, &needed, variant,
                                       pos[0].c_str(), pos[i].data(), pos[i].size());
        s != CR_OK)
      return Die("family key of " + pos[0] + " " + pos[i], s);
    stored_keys.emplace_back(stored_buf);
    labels.push_back(pos[i]);
    if (step == 2) values.push_back(pos[i + 1]);
  }
  const std::string stored = stored_keys[0];

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
  const std::vector<const char *> name_ptrs = CStrings(names);
  cr_sentinel_client *raw = nullptr;
  if (cr_status s = cr_sentinel_client_new(&raw, setup.cfg, &o, raw_ring, name_ptrs.data(),
                                           name_ptrs.size(), sentinels.c_str());
      s != CR_OK)
    return Die("sentinels " + sentinels, s);
  std::unique_ptr<cr_sentinel_client, SentinelDeleter> client(raw);

  if (verb == "route") return PrintRoute(client.get(), names, pos[0], pos[1], stored);
  if (batch) return RunBatch(client.get(), verb, stored_keys, values, labels);
  std::vector<std::string> command = {verb == "get" ? "GET" : "SET", stored};
  if (verb == "set") command.push_back(pos[2]);
  const ByteArgs argv(command);
  cr_reply *r = nullptr;
  const cr_status s =
      cr_sentinel_client_command(&r, client.get(), verb == "get" ? CR_ACCESS_READ : CR_ACCESS_WRITE,
                                 1, argv.size(), argv.ptrs.data(), argv.lens.data());
  if (s != CR_OK) return Die(verb + " " + pos[0] + " " + pos[1], s), kExitCommandFailed;
  PrintValue(r);
  cr_reply_free(r);
  return kExitOk;
}

}  // namespace cli
