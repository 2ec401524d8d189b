// C API: the Sentinel client (shard groups kept current by Redis Sentinel).
#include <memory>
#include <string>
#include <vector>

#include "api.hpp"
#include "cloudroute/net/discovery.hpp"
#include "cloudroute/net/sentinel.hpp"
#include "reply_out.hpp"
#include "ring_handles.hpp"

using cloudroute::capi::Fail;
using cloudroute::capi::Guard;
namespace net = cloudroute::net;

struct cr_sentinel_client {
  std::unique_ptr<cr_shard_groups> groups;  // declared first: outlives the client
  std::unique_ptr<net::SentinelClient> client;
};

extern "C" {

void cr_sentinel_options_init(cr_sentinel_options *opts) {
  if (opts != nullptr) *opts = CR_SENTINEL_OPTIONS_INIT;
}

cr_status cr_sentinel_client_new(cr_sentinel_client **out, const cr_config *cfg,
                                 const cr_sentinel_options *opts, const cr_ring *ring,
                                 const char *const *names, size_t n_groups, const char *sentinels) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_sentinel_client_new: ";
    if (out == nullptr) return Fail(CR_EINVAL, std::string(fn) + "out is NULL");
    *out = nullptr;
    if (ring == nullptr || names == nullptr || sentinels == nullptr) {
      return Fail(CR_EINVAL, std::string(fn) + "ring, names or sentinels is NULL");
    }
    if (n_groups == 0) return Fail(CR_EINVAL, std::string(fn) + "no groups");
    if (ring->built == nullptr) return Fail(CR_EINVAL, std::string(fn) + "the ring is not built");
    cr_sentinel_options o = CR_SENTINEL_OPTIONS_INIT;
    if (opts != nullptr) {
      if (opts->struct_size < sizeof(cr_sentinel_options)) {
        return Fail(CR_EINVAL, std::string(fn) + "opts->struct_size is too small (use CR_SENTINEL_OPTIONS_INIT)");
      }
      o = *opts;
    }
    if (o.pool_size == 0 || o.connect_timeout_ms == 0 || o.sentinel_timeout_ms == 0) {
      return Fail(CR_EINVAL, std::string(fn) + "pool_size, connect_timeout_ms and sentinel_timeout_ms must be > 0");
    }
    for (uint32_t t : o.command_timeout_ms) {
      if (t == 0) return Fail(CR_EINVAL, std::string(fn) + "command_timeout_ms entries must be > 0");
    }
    auto parsed = net::ParseSeeds(sentinels);
    if (!parsed.ok()) return Fail(CR_EINVAL, fn + parsed.status().message());

    auto groups = std::make_unique<cr_shard_groups>(cfg != nullptr ? cfg->cfg : cloudroute::RouterConfig{});
    std::vector<std::string> group_names;
    for (size_t i = 0; i < n_groups; ++i) {
      if (names[i] == nullptr) return Fail(CR_EINVAL, std::string(fn) + "names[" + std::to_string(i) + "] is NULL");
      auto g = groups->groups.AddGroup(names[i]);
      if (!g.ok()) return Fail(CR_EINVAL, fn + g.status().message());
      group_names.emplace_back(names[i]);
    }
    cloudroute::Status st = groups->groups.SetRing(ring->built);
    if (!st.ok()) return Fail(CR_EINVAL, fn + st.message());

    net::SentinelOptions so;
    so.node_conn.connect_timeout_ms = o.connect_timeout_ms;
    so.node_conn.keepalive_idle_s = o.tcp_keepalive_s;
    so.node_conn.user_timeout_ms = o.tcp_user_timeout_ms;
    if (o.username != nullptr) so.node_conn.username = o.username;
    if (o.password != nullptr) so.node_conn.password = o.password;
    if (o.client_name != nullptr) so.node_conn.client_name = o.client_name;
    so.sentinel_conn.connect_timeout_ms = o.connect_timeout_ms;
    so.sentinel_conn.keepalive_idle_s = o.tcp_keepalive_s;
    so.sentinel_conn.user_timeout_ms = o.tcp_user_timeout_ms;
    if (o.sentinel_username != nullptr) so.sentinel_conn.username = o.sentinel_username;
    if (o.sentinel_password != nullptr) so.sentinel_conn.password = o.sentinel_password;
    so.sentinel_timeout_ms = o.sentinel_timeout_ms;
    for (int i = 0; i < CR_TIER_COUNT; ++i) so.timeout_ms[i] = o.command_timeout_ms[i];
    so.reask_interval_ms = o.reask_interval_ms;
    so.pool.max_size = o.pool_size;
    so.pool.idle_ms = o.pool_idle_ms;
    so.max_retries = o.max_retries;
    so.retry_base_ms = o.retry_backoff_ms;

    auto c = std::make_unique<cr_sentinel_client>();
    c->groups = std::move(groups);
    auto client = net::SentinelClient::Create(&c->groups->groups, std::move(*parsed),
                                              std::move(group_names), std::move(so));
    if (!client.ok()) return Fail(client.status());
    c->client = std::move(*client);
    *out = c.release();
    return CR_OK;
  });
}

void cr_sentinel_client_free(cr_sentinel_client *c) { delete c; }

cr_status cr_sentinel_client_command(cr_reply **out, cr_sentinel_client *c, cr_access access,
                                     size_t key_index, size_t argc, const void *const *argv,
                                     const size_t *argvlen) {
  return Guard([&]() -> cr_status {
    if (out != nullptr) *out = nullptr;
    if (out == nullptr || c == nullptr) {
      return Fail(CR_EINVAL, "cr_sentinel_client_command: out or client is NULL");
    }
    const int a = cloudroute::capi::RawEnum(access);
    if (a != CR_ACCESS_READ && a != CR_ACCESS_WRITE) {
      return Fail(CR_EINVAL, "cr_sentinel_client_command: access must be CR_ACCESS_READ or CR_ACCESS_WRITE");
    }
    if (argc == 0 || key_index >= argc || argv == nullptr || argvlen == nullptr) {
      return Fail(CR_EINVAL, "cr_sentinel_client_command: argc is 0, key_index is not below argc, "
                             "or argv / argvlen is NULL");
    }
    net::Args args;
    args.reserve(argc);
    for (size_t i = 0; i < argc; ++i) {
      if (argv[i] == nullptr && argvlen[i] != 0) {
        return Fail(CR_EINVAL, "cr_sentinel_client_command: argv[" + std::to_string(i) +
                                   "] is NULL with a non-zero length");
      }
      args.emplace_back(argv[i] == nullptr ? "" : static_cast<const char *>(argv[i]), argvlen[i]);
    }
    const std::string key = args[key_index];
    return cloudroute::capi::ReplyOutFrom(out, c->client->Execute(a == CR_ACCESS_WRITE, key, args));
  });
}

cr_status cr_sentinel_client_refresh(cr_sentinel_client *c) {
  return Guard([&]() -> cr_status {
    if (c == nullptr) return Fail(CR_EINVAL, "cr_sentinel_client_refresh: client is NULL");
    return cloudroute::capi::Check(c->client->Refresh());
  });
}

cr_status cr_sentinel_client_groups(cr_shard_groups **out, cr_sentinel_client *c) {
  return Guard([&]() -> cr_status {
    if (out != nullptr) *out = nullptr;
    if (out == nullptr || c == nullptr) {
      return Fail(CR_EINVAL, "cr_sentinel_client_groups: out or client is NULL");
    }
    *out = c->groups.get();
    return CR_OK;
  });
}

cr_status cr_sentinel_client_get_stats(cr_sentinel_stats *out, cr_sentinel_client *c) {
  return Guard([&]() -> cr_status {
    if (!cloudroute::capi::SizeOk(out) || c == nullptr) {
      return Fail(CR_EINVAL, "cr_sentinel_client_get_stats: out (with struct_size set) or client is NULL");
    }
    const net::SentinelCounters &k = c->client->counters();
    auto v = [](const std::atomic<uint64_t> &a) { return a.load(std::memory_order_relaxed); };
    out->subscribed = c->client->subscribed() ? 1u : 0u;
    out->reads = v(k.reads);
    out->writes = v(k.writes);
    out->fallbacks = v(k.fallbacks);
    out->retries = v(k.retries);
    out->conn_errors = v(k.conn_errors);
    out->timeouts = v(k.timeouts);
    out->server_errors = v(k.server_errors);
    out->master_changes = v(k.master_changes);
    out->switch_events = v(k.switch_events);
    out->asks = v(k.asks);
    out->ask_failures = v(k.ask_failures);
    out->subscriptions = v(k.subscriptions);
    return CR_OK;
  });
}

}  // extern "C"
