// C API: the Sentinel client (shard groups kept current by Redis Sentinel).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cloudroute/net/discovery.hpp"
#include "cloudroute/net/key_batch.hpp"
#include "cloudroute/net/sentinel.hpp"
#include "live.hpp"
#include "live_calls.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary
namespace net = cloudroute::net;

namespace {
constexpr cr_sentinel_options kSentinelDefaults = CR_SENTINEL_OPTIONS_INIT;

// A batch's keys (and MSET's values) checked and copied into k and v.
cr_status BatchInputs(std::vector<std::string> *k, std::vector<std::string> *v,
                      net::KeyBatchKind kind, const void *const *keys, const size_t *key_lens,
                      const void *const *values, const size_t *value_lens, size_t n,
                      const char *fn) {
  if (cr_status s = Keys(k, keys, key_lens, n, fn, "keys"); s != CR_OK) return s;
  if (kind == net::KeyBatchKind::kMSet) {
    if (cr_status s = Keys(v, values, value_lens, n, fn, "values"); s != CR_OK) return s;
  }
  return CR_OK;
}

// A batch's result out: a result per key into replies (may be NULL) and
// statuses (may be NULL), the count (DEL / EXISTS; may be NULL) into *count.
// CR_OK when every key succeeded; else the first failed key's status, with
// a message naming every failed group and its keys.
cr_status BatchOut(net::KeyBatchResult &r, cr_reply **replies, cr_status *statuses, int64_t *count,
                   size_t n, const char *fn) {
  if (r.status.size() != n) return Fail(r.summary);  // refused before anything was sent
  ResultsOut(
      replies, statuses, n,
      [&](size_t i) { return r.values.empty() ? nullptr : r.values[i].get(); },
      [&](size_t i) -> const cloudroute::Status & { return r.status[i]; });
  if (count != nullptr) *count = r.count;
  if (!r.summary.ok())
    return Fail(cloudroute::Status(r.summary.code(), std::string(fn) + ": " + r.summary.message()));
  return CR_OK;
}

// The blocking batches (cr_sentinel_client_mget, _mset, _del, _exists).
cr_status RunBatch(cr_reply **replies, cr_status *statuses, int64_t *count, cr_sentinel_client *c,
                   net::KeyBatchKind kind, const void *const *keys, const size_t *key_lens,
                   const void *const *values, const size_t *value_lens, size_t n, const char *fn) {
  if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
  std::vector<std::string> k, v;
  if (cr_status s = BatchInputs(&k, &v, kind, keys, key_lens, values, value_lens, n, fn);
      s != CR_OK) {
    return s;
  }
  if (kind == net::KeyBatchKind::kMGet) {  // MGET's values: required
    if (cr_status s = NotNull(replies, fn, "replies"); s != CR_OK) return s;
  }
  net::KeyBatchResult r =
      c->client->RunBatch(kind, k, kind == net::KeyBatchKind::kMSet ? &v : nullptr);
  return BatchOut(r, replies, statuses, count, n, fn);
}

// The submitted batches (cr_sentinel_client_submit_mget, …): done gets
// what the blocking batch would give.
cr_status SubmitBatch(cr_sentinel_client *c, net::KeyBatchKind kind, const void *const *keys,
                      const size_t *key_lens, const void *const *values, const size_t *value_lens,
                      size_t n, cr_batch_completion_fn done, void *ud, const char *fn) {
  if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
  if (done == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": done is NULL");
  std::vector<std::string> k, v;
  if (cr_status s = BatchInputs(&k, &v, kind, keys, key_lens, values, value_lens, n, fn);
      s != CR_OK) {
    return s;
  }
  const bool mget = kind == net::KeyBatchKind::kMGet;
  return Check(c->client->SubmitBatch(
      kind, k, kind == net::KeyBatchKind::kMSet ? &v : nullptr,
      [done, ud, mget, n, fn](net::KeyBatchResult r) {
        std::vector<cr_reply *> replies(mget ? n : 0, nullptr);
        std::vector<cr_status> statuses(n, CR_OK);
        int64_t count = 0;
        const cr_status st = Guard([&] {
          return BatchOut(r, mget ? replies.data() : nullptr, statuses.data(), &count, n, fn);
        });
        done(ud, st, n, mget ? replies.data() : nullptr, statuses.data(), count);
      }));
}

}  // namespace

extern "C" {

cr_status cr_sentinel_options_init(cr_sentinel_options *opts, size_t size) {
  return Guard(
      [&] { return InitOptions(opts, size, kSentinelDefaults, "cr_sentinel_options_init"); });
}

cr_status cr_sentinel_client_new(cr_sentinel_client **out, const cr_config *cfg,
                                 const cr_sentinel_options *opts, const cr_ring *ring,
                                 const char *const *names, size_t n_groups, const char *sentinels) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_sentinel_client_new";
    if (out == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": out is NULL");
    *out = nullptr;
    if (ring == nullptr || names == nullptr || sentinels == nullptr) {
      return Fail(CR_EINVAL, std::string(fn) + ": ring, names or sentinels is NULL");
    }
    if (n_groups == 0) return Fail(CR_EINVAL, std::string(fn) + ": no groups");
    if (ring->built == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": the ring is not built");
    cr_sentinel_options o;
    if (cr_status s = ReadInput(&o, opts, kSentinelDefaults, fn, "opts"); s != CR_OK) return s;
    if (cr_status s = CheckLiveOptions(o, fn); s != CR_OK) return s;
    if (o.sentinel_timeout_ms == 0)
      return Fail(CR_EINVAL, std::string(fn) + ": sentinel_timeout_ms must be > 0");
    auto parsed = net::ParseSeeds(sentinels);
    if (!parsed.ok()) return Fail(CR_EINVAL, std::string(fn) + ": " + parsed.status().message());

    auto groups = std::make_unique<cr_shard_groups>(
        cfg != nullptr ? cfg->cfg : cloudroute::RouterConfig{}, true);
    std::vector<std::string> group_names;
    for (size_t i = 0; i < n_groups; ++i) {
      if (names[i] == nullptr)
        return Fail(CR_EINVAL, std::string(fn) + ": names[" + std::to_string(i) + "] is NULL");
      auto g = groups->groups.AddGroup(names[i]);
      if (!g.ok()) return Fail(CR_EINVAL, std::string(fn) + ": " + g.status().message());
      group_names.emplace_back(names[i]);
    }
    cloudroute::Status st = groups->groups.SetRing(ring->built);
    if (!st.ok()) return Fail(CR_EINVAL, std::string(fn) + ": " + st.message());

    net::SentinelOptions so;
    net::ClientOptions &e = so.engine;
    if (cr_status s = EngineOptionsFrom(o, cfg != nullptr ? &cfg->log : nullptr, fn, &e);
        s != CR_OK) {
      return s;
    }
    // The sentinels: the same socket settings and TLS, their own AUTH, no name.
    so.sentinel_conn = e.conn;
    so.sentinel_conn.username = o.sentinel_username != nullptr ? o.sentinel_username : "";
    so.sentinel_conn.password = o.sentinel_password != nullptr ? o.sentinel_password : "";
    so.sentinel_conn.client_name.clear();
    so.sentinel_conn.db = 0;  // sentinels have no databases
    so.sentinel_timeout_ms = o.sentinel_timeout_ms;
    so.reask_interval_ms = o.reask_interval_ms;

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

void cr_sentinel_client_free(cr_sentinel_client *c) { FreeLive(c); }

cr_status cr_sentinel_client_command(cr_reply **out, cr_sentinel_client *c, cr_access access,
                                     size_t key_index, size_t argc, const void *const *argv,
                                     const size_t *argvlen) {
  return Guard([&] {
    return CommandCall(out, c, nullptr, access, key_index, argc, argv, argvlen,
                       "cr_sentinel_client_command");
  });
}

cr_status cr_sentinel_client_get(cr_reply **out, cr_sentinel_client *c, const void *key,
                                 size_t len) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_sentinel_client_get";
    if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
    *out = nullptr;
    if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
    if (cr_status s = Bytes(key, len, fn, "key"); s != CR_OK) return s;
    const std::string k = Str(key, len);
    return ReplyOut(out, c->client->Execute(net::Access::kRead, k, {"GET", k}));
  });
}

cr_status cr_sentinel_client_set(cr_sentinel_client *c, const void *key, size_t key_len,
                                 const void *value, size_t value_len, uint64_t ttl_ms) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_sentinel_client_set";
    if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
    if (cr_status s = Bytes(key, key_len, fn, "key"); s != CR_OK) return s;
    if (cr_status s = Bytes(value, value_len, fn, "value"); s != CR_OK) return s;
    const std::string k = Str(key, key_len);
    net::Args args{"SET", k, Str(value, value_len)};
    if (ttl_ms > 0) {
      args.push_back("PX");
      args.push_back(std::to_string(ttl_ms));
    }
    auto r = c->client->Execute(net::Access::kWrite, k, args);
    return r.ok() ? CR_OK : Fail(r.status());
  });
}

cr_status cr_sentinel_client_expire(int *out_set, cr_sentinel_client *c, const void *key,
                                    size_t len, uint64_t ttl_ms) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_sentinel_client_expire";
    if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
    if (cr_status s = Bytes(key, len, fn, "key"); s != CR_OK) return s;
    if (ttl_ms == 0 || ttl_ms > static_cast<uint64_t>(INT64_MAX)) {
      return Fail(CR_EINVAL, std::string(fn) + ": ttl_ms must be 1-" + std::to_string(INT64_MAX) +
                                 " (DEL removes a key now)");
    }
    const std::string k = Str(key, len);
    auto r = c->client->Execute(net::Access::kWrite, k, {"PEXPIRE", k, std::to_string(ttl_ms)});
    if (!r.ok()) return Fail(r.status());
    if ((*r)->type != cloudroute::RespType::kInteger) {
      return Fail(CR_EPARSE, std::string(fn) + ": PEXPIRE answered with a non-integer");
    }
    if (out_set != nullptr) *out_set = (*r)->integer != 0 ? 1 : 0;
    return CR_OK;
  });
}

cr_status cr_sentinel_client_mget(cr_reply **replies, cr_status *statuses, cr_sentinel_client *c,
                                  const void *const *keys, const size_t *lens, size_t n) {
  return Guard([&]() -> cr_status {
    return RunBatch(replies, statuses, nullptr, c, net::KeyBatchKind::kMGet, keys, lens, nullptr,
                    nullptr, n, "cr_sentinel_client_mget");
  });
}

cr_status cr_sentinel_client_mset(cr_status *statuses, cr_sentinel_client *c,
                                  const void *const *keys, const size_t *key_lens,
                                  const void *const *values, const size_t *value_lens, size_t n) {
  return Guard([&]() -> cr_status {
    return RunBatch(nullptr, statuses, nullptr, c, net::KeyBatchKind::kMSet, keys, key_lens, values,
                    value_lens, n, "cr_sentinel_client_mset");
  });
}

cr_status cr_sentinel_client_del(int64_t *out_count, cr_status *statuses, cr_sentinel_client *c,
                                 const void *const *keys, const size_t *lens, size_t n) {
  return Guard([&]() -> cr_status {
    return RunBatch(nullptr, statuses, out_count, c, net::KeyBatchKind::kDel, keys, lens, nullptr,
                    nullptr, n, "cr_sentinel_client_del");
  });
}

cr_status cr_sentinel_client_exists(int64_t *out_count, cr_status *statuses, cr_sentinel_client *c,
                                    const void *const *keys, const size_t *lens, size_t n) {
  return Guard([&]() -> cr_status {
    return RunBatch(nullptr, statuses, out_count, c, net::KeyBatchKind::kExists, keys, lens,
                    nullptr, nullptr, n, "cr_sentinel_client_exists");
  });
}

cr_status cr_sentinel_client_submit_mget(cr_sentinel_client *c, const void *const *keys,
                                         const size_t *lens, size_t n, cr_batch_completion_fn done,
                                         void *ud) {
  return Guard([&] {
    return SubmitBatch(c, net::KeyBatchKind::kMGet, keys, lens, nullptr, nullptr, n, done, ud,
                       "cr_sentinel_client_submit_mget");
  });
}

cr_status cr_sentinel_client_submit_mset(cr_sentinel_client *c, const void *const *keys,
                                         const size_t *key_lens, const void *const *values,
                                         const size_t *value_lens, size_t n,
                                         cr_batch_completion_fn done, void *ud) {
  return Guard([&] {
    return SubmitBatch(c, net::KeyBatchKind::kMSet, keys, key_lens, values, value_lens, n, done, ud,
                       "cr_sentinel_client_submit_mset");
  });
}

cr_status cr_sentinel_client_submit_del(cr_sentinel_client *c, const void *const *keys,
                                        const size_t *lens, size_t n, cr_batch_completion_fn done,
                                        void *ud) {
  return Guard([&] {
    return SubmitBatch(c, net::KeyBatchKind::kDel, keys, lens, nullptr, nullptr, n, done, ud,
                       "cr_sentinel_client_submit_del");
  });
}

cr_status cr_sentinel_client_submit_exists(cr_sentinel_client *c, const void *const *keys,
                                           const size_t *lens, size_t n,
                                           cr_batch_completion_fn done, void *ud) {
  return Guard([&] {
    return SubmitBatch(c, net::KeyBatchKind::kExists, keys, lens, nullptr, nullptr, n, done, ud,
                       "cr_sentinel_client_submit_exists");
  });
}

cr_status cr_sentinel_client_refresh(cr_sentinel_client *c) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(c, "cr_sentinel_client_refresh", "client"); s != CR_OK) return s;
    return Check(c->client->Refresh());
  });
}

cr_shard_groups *cr_sentinel_client_get_groups(cr_sentinel_client *c) {
  return c == nullptr ? nullptr : c->groups.get();
}

cr_status cr_sentinel_client_get_stats(cr_sentinel_stats *out, const cr_sentinel_client *c) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_sentinel_client_get_stats";
    if (cr_status s = CheckOutput(out, fn, "out"); s != CR_OK) return s;
    if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
    const net::SentinelCounters &k = c->client->counters();
    auto v = [](const std::atomic<uint64_t> &a) { return a.load(std::memory_order_relaxed); };
    const net::StatsValues e = c->client->stats();
    cr_sentinel_stats o = CR_SENTINEL_STATS_INIT;
    o.subscribed = c->client->subscribed() ? 1 : 0;
    o.reads = e.reads;
    o.writes = e.writes;
    o.fallbacks = e.fallbacks;
    o.retries = e.retries;
    o.conn_errors = e.conn_errors;
    o.timeouts = e.timeouts;
    o.server_errors = e.server_errors;
    o.master_changes = v(k.master_changes);
    o.switch_events = v(k.switch_events);
    o.asks = v(k.asks);
    o.ask_failures = v(k.ask_failures);
    o.subscriptions = v(k.subscriptions);
    for (int i = 0; i < CR_TIER_COUNT; ++i) o.reads_by_tier[i] = e.reads_by_tier[i];
    o.connections = e.connections;
    o.hedges = e.hedges;
    o.hedges_won = e.hedges_won;
    o.hedges_denied = e.hedges_denied;
    o.poisoned = e.poisoned;
    WriteOutput(out, o);
    return CR_OK;
  });
}

cr_status cr_sentinel_client_get_node_stats(cr_client_node_stats *out, size_t cap, size_t *needed,
                                            const cr_sentinel_client *c) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_sentinel_client_get_node_stats";
    if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
    return NodeStatsOut(out, cap, needed, c->client->node_stats(), fn);
  });
}

}  // extern "C"
