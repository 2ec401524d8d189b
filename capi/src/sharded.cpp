// C API: the pre-sharded client (standalone servers placed on a ring).
#include <memory>
#include <string>
#include <vector>

#include "cloudroute/net/sharded.hpp"
#include "live.hpp"
#include "live_calls.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary
namespace net = cloudroute::net;

namespace {

constexpr cr_sharded_options kShardedDefaults = CR_SHARDED_OPTIONS_INIT;

// servers[0..n) parsed, each entry named in an error.
cr_status ServersFrom(std::vector<cloudroute::GroupInstances> *out, const char *const *servers,
                      size_t n, const char *fn) {
  if (servers == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": servers is NULL");
  if (n == 0) return Fail(CR_EINVAL, std::string(fn) + ": no servers");
  out->clear();
  for (size_t i = 0; i < n; ++i) {
    const std::string where = std::string(fn) + ": servers[" + std::to_string(i) + "]";
    if (servers[i] == nullptr) return Fail(CR_EINVAL, where + " is NULL");
    auto g = net::ParseShardServers(servers[i]);
    if (!g.ok()) return Fail(CR_EINVAL, where + ": " + g.status().message());
    out->push_back(std::move(*g));
  }
  return CR_OK;
}

}  // namespace

extern "C" {

cr_status cr_sharded_options_init(cr_sharded_options *opts, size_t size) {
  return Guard(
      [&] { return InitOptions(opts, size, kShardedDefaults, "cr_sharded_options_init"); });
}

cr_status cr_sharded_client_new(cr_sharded_client **out, const cr_config *cfg,
                                const cr_sharded_options *opts, const cr_ring *ring,
                                const char *const *servers, size_t n_shards) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_sharded_client_new";
    if (out == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": out is NULL");
    *out = nullptr;
    if (cr_status s = NotNull(ring, fn, "ring"); s != CR_OK) return s;
    if (ring->built == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": the ring is not built");
    std::vector<cloudroute::GroupInstances> parsed;
    if (cr_status s = ServersFrom(&parsed, servers, n_shards, fn); s != CR_OK) return s;
    if (ring->built->shard_count() != n_shards) {
      return Fail(CR_EINVAL, std::string(fn) + ": " + std::to_string(n_shards) +
                                 " server entries for a ring of " +
                                 std::to_string(ring->built->shard_count()) +
                                 " shards (servers[i] serves ring shard i)");
    }
    cr_sharded_options o;
    if (cr_status s = ReadInput(&o, opts, kShardedDefaults, fn, "opts"); s != CR_OK) return s;
    if (cr_status s = CheckLiveOptions(o, fn); s != CR_OK) return s;
    net::ClientOptions e;
    if (cr_status s = EngineBaseFrom(o, cfg != nullptr ? &cfg->log : nullptr, fn, &e); s != CR_OK)
      return s;
    e.refresh_interval_ms = 0;  // nothing to refresh: the table changes by set_servers only

    auto c = std::make_unique<cr_sharded_client>();
    c->groups = std::make_unique<cr_shard_groups>(
        cfg != nullptr ? cfg->cfg : cloudroute::RouterConfig{}, true);
    if (cr_status s = Prefixed(net::AddRingGroups(&c->groups->groups, ring->built), fn); s != CR_OK)
      return s;
    auto client = net::ShardedClient::Create(&c->groups->groups, std::move(parsed), std::move(e));
    if (!client.ok()) return Prefixed(client.status(), fn);
    c->client = std::move(*client);
    *out = c.release();
    return CR_OK;
  });
}

void cr_sharded_client_free(cr_sharded_client *c) { FreeLive(c); }

cr_status cr_sharded_client_set_servers(cr_sharded_client *c, const char *const *servers,
                                        size_t n_shards) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_sharded_client_set_servers";
    if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
    std::vector<cloudroute::GroupInstances> parsed;
    if (cr_status s = ServersFrom(&parsed, servers, n_shards, fn); s != CR_OK) return s;
    return Prefixed(c->client->SetServers(parsed), fn);
  });
}

cr_status cr_sharded_client_command(cr_reply **out, cr_sharded_client *c,
                                    const cr_call_options *opts, cr_access access, size_t key_index,
                                    size_t argc, const void *const *argv, const size_t *argvlen) {
  return Guard([&] {
    return CommandCall(out, c, opts, access, key_index, argc, argv, argvlen,
                       "cr_sharded_client_command");
  });
}

cr_status cr_sharded_client_mget(cr_reply **out, cr_sharded_client *c, const void *const *keys,
                                 const size_t *lens, size_t n) {
  return Guard([&] { return MGetCall(out, c, keys, lens, n, "cr_sharded_client_mget"); });
}

cr_status cr_sharded_client_mset(cr_sharded_client *c, const void *const *keys,
                                 const size_t *key_lens, const void *const *values,
                                 const size_t *value_lens, size_t n) {
  return Guard(
      [&] { return MSetCall(c, keys, key_lens, values, value_lens, n, "cr_sharded_client_mset"); });
}

cr_status cr_sharded_client_del(int64_t *out_deleted, cr_sharded_client *c, const void *const *keys,
                                const size_t *lens, size_t n) {
  return Guard([&] {
    return CountCall(out_deleted, c, keys, lens, n, &net::ShardedClient::Del,
                     "cr_sharded_client_del");
  });
}

cr_status cr_sharded_client_exists(int64_t *out_count, cr_sharded_client *c,
                                   const void *const *keys, const size_t *lens, size_t n) {
  return Guard([&] {
    return CountCall(out_count, c, keys, lens, n, &net::ShardedClient::Exists,
                     "cr_sharded_client_exists");
  });
}

cr_status cr_sharded_client_eval(cr_reply **out, cr_sharded_client *c, const cr_call_options *opts,
                                 const cr_script *script, int read_only, size_t numkeys,
                                 const void *const *keys, const size_t *key_lens, size_t nargs,
                                 const void *const *args, const size_t *arg_lens) {
  return Guard([&] {
    return EvalCall(out, c, opts, script, read_only, numkeys, keys, key_lens, nargs, args, arg_lens,
                    "cr_sharded_client_eval");
  });
}

cr_status cr_sharded_client_fcall(cr_reply **out, cr_sharded_client *c, const cr_call_options *opts,
                                  const char *function, int read_only, size_t numkeys,
                                  const void *const *keys, const size_t *key_lens, size_t nargs,
                                  const void *const *args, const size_t *arg_lens) {
  return Guard([&] {
    return FcallCall(out, c, opts, function, read_only, numkeys, keys, key_lens, nargs, args,
                     arg_lens, "cr_sharded_client_fcall");
  });
}

cr_status cr_sharded_client_command_nodes(cr_node_replies **out, cr_sharded_client *c,
                                          const cr_call_options *opts, cr_target target,
                                          const char *node, size_t argc, const void *const *argv,
                                          const size_t *argvlen) {
  return Guard([&] {
    return NodesCall(out, c, opts, target, node, argc, argv, argvlen,
                     "cr_sharded_client_command_nodes");
  });
}

cr_status cr_sharded_pipeline_new(cr_pipeline **out, cr_sharded_client *c) {
  return Guard([&] { return PipelineNew(out, c, "cr_sharded_pipeline_new"); });
}

cr_status cr_sharded_scan_new(cr_scan **out, cr_sharded_client *c, const cr_scan_options *opts) {
  return Guard([&] { return ScanNew(out, c, opts, "cr_sharded_scan_new"); });
}

cr_shard_groups *cr_sharded_client_get_groups(cr_sharded_client *c) {
  return c == nullptr ? nullptr : c->groups.get();
}

cr_status cr_sharded_client_get_stats(cr_client_stats *out, const cr_sharded_client *c) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_sharded_client_get_stats";
    if (cr_status s = CheckOutput(out, fn, "out"); s != CR_OK) return s;
    if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
    WriteOutput(out, ClientStatsFrom(c->client->stats()));
    return CR_OK;
  });
}

cr_status cr_sharded_client_get_node_stats(cr_client_node_stats *out, size_t cap, size_t *needed,
                                           const cr_sharded_client *c) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_sharded_client_get_node_stats";
    if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
    return NodeStatsOut(out, cap, needed, c->client->node_stats(), fn);
  });
}

}  // extern "C"
