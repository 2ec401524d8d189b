// Internal to capi/: what the live clients' sections (client.cpp,
// sentinel.cpp, sharded.cpp) share — options to connect options, command arguments,
// replies handed to the caller.
#pragma once

#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include "api.hpp"
#include "cloudroute/net/client.hpp"
#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/connection.hpp"
#include "cloudroute/net/node_pools.hpp"
#include "cloudroute/net/reply.hpp"
#include "cloudroute/net/sentinel.hpp"
#include "cloudroute/net/sharded.hpp"
#include "cloudroute/net/tls.hpp"
#include "hedge.hpp"

namespace cloudroute {
namespace capi {

// The connection settings both option structs carry (cr_client_options,
// cr_sentinel_options): one mapping for both.
template <typename O>
net::ConnectOptions NodeConnectOptions(const O &o) {
  net::ConnectOptions c;
  c.connect_timeout_ms = o.connect_timeout_ms;
  c.keepalive_idle_s = o.tcp_keepalive_s;
  c.user_timeout_ms = o.tcp_user_timeout_ms;
  if (o.username != nullptr) c.username = o.username;
  if (o.password != nullptr) c.password = o.password;
  if (o.client_name != nullptr) c.client_name = o.client_name;
  c.db = o.db;
  return c;
}

// The checks both option structs share: timeouts and pool size non-zero.
template <typename O>
cr_status CheckLiveOptions(const O &o, const char *fn) {
  if (o.pool_size == 0) return Fail(CR_EINVAL, std::string(fn) + ": pool_size must be at least 1");
  if (o.connect_timeout_ms == 0)
    return Fail(CR_EINVAL, std::string(fn) + ": connect_timeout_ms must be > 0");
  if (o.db > 2147483647u) {
    return Fail(CR_EINVAL, std::string(fn) + ": db " + std::to_string(o.db) +
                               " is above the largest database index, 2147483647");
  }
  for (uint32_t t : o.command_timeout_ms) {
    if (t == 0)
      return Fail(CR_EINVAL, std::string(fn) + ": command_timeout_ms entries must be > 0");
  }
  return CR_OK;
}

// The TLS fields both option structs carry, checked (tls, tls_verify are
// booleans) and, when tls is 1, a TLS context into *conn (CR_EINVAL naming
// fn when the files do not load).
template <typename O>
cr_status TlsFrom(const O &o, const char *fn, net::ConnectOptions *conn) {
  if (cr_status s = Boolean(o.tls, fn, "tls"); s != CR_OK) return s;
  if (cr_status s = Boolean(o.tls_verify, fn, "tls_verify"); s != CR_OK) return s;
  if (o.tls == 0) return CR_OK;
  net::TlsOptions t;
  t.verify = o.tls_verify != 0;
  if (o.tls_ca_file != nullptr) t.ca_file = o.tls_ca_file;
  if (o.tls_ca_dir != nullptr) t.ca_dir = o.tls_ca_dir;
  if (o.tls_cert_file != nullptr) t.cert_file = o.tls_cert_file;
  if (o.tls_key_file != nullptr) t.key_file = o.tls_key_file;
  if (o.tls_server_name != nullptr) t.server_name = o.tls_server_name;
  auto tls = net::TlsContext::Create(t);
  if (!tls.ok()) return Fail(CR_EINVAL, std::string(fn) + ": " + tls.status().message());
  conn->tls = std::move(*tls);
  return CR_OK;
}

// The engine's options every live option struct carries (connections and
// TLS, timeouts, pool and shared connections, retries, hedged reads), into *e; log: the
// cr_config's sink, or null. CR_EINVAL naming fn for a bad TLS or hedge
// field.
template <typename O>
cr_status EngineBaseFrom(const O &o, const net::LogSink *log, const char *fn,
                         net::ClientOptions *e) {
  e->conn = NodeConnectOptions(o);
  if (cr_status s = TlsFrom(o, fn, &e->conn); s != CR_OK) return s;
  if (cr_status s = HedgeOptionsFrom(o, fn, &e->hedge); s != CR_OK) return s;
  for (int i = 0; i < CR_TIER_COUNT; ++i) e->timeout_ms[i] = o.command_timeout_ms[i];
  e->pool.max_size = o.pool_size;
  e->pool.idle_ms = o.pool_idle_ms;
  if (o.shared_connections > 16) {
    return Fail(CR_EINVAL, std::string(fn) + ": shared_connections must be 0 (off) or 1-16, not " +
                               std::to_string(o.shared_connections));
  }
  e->pool.shared = o.shared_connections;
  e->max_retries = o.max_retries;
  e->retry_base_ms = o.retry_backoff_ms;
  if (log != nullptr) e->log = *log;
  return CR_OK;
}

// EngineBaseFrom, and the failures before a refresh (the clients that
// refresh a topology: cr_client_options, cr_sentinel_options).
template <typename O>
cr_status EngineOptionsFrom(const O &o, const net::LogSink *log, const char *fn,
                            net::ClientOptions *e) {
  if (cr_status s = EngineBaseFrom(o, log, fn, e); s != CR_OK) return s;
  e->failures_before_refresh = o.failures_before_refresh;
  e->refresh_min_gap_ms = o.refresh_min_gap_ms;
  return CR_OK;
}

// cr_client_get_node_stats and cr_sentinel_client_get_node_stats: all into
// (out, cap, needed).
cr_status NodeStatsOut(cr_client_node_stats *out, size_t cap, size_t *needed,
                       const std::vector<net::NodeStatsValues> &all, const char *fn);

// The clients' Prometheus text into (buf, cap, needed).
cr_status TextOut(char *buf, size_t cap, size_t *needed, const std::string &text, const char *fn);

// cr_client_free and cr_sentinel_client_free: from inside one of the
// client's log handlers (the thread may be one the destructor joins or waits
// for) the free happens on a thread of its own once the handler has
// returned; with no thread to be had the client is leaked rather than
// joined from inside itself.
// Whether this thread runs one of the client's completion callbacks.
template <typename C>
bool InCompletion(const C &client) {
  if constexpr (std::is_same_v<C, net::ShardedClient>) {
    return client.async().InCompletion();
  } else {
    return client.InCompletion();
  }
}

template <typename H>
void FreeLive(H *c) {
  if (c == nullptr) return;
  if (c->client != nullptr && (c->client->InLogHandler() || InCompletion(*c->client))) {
    try {
      std::thread([c] { delete c; }).detach();
    } catch (const std::system_error &) {
    }
    return;
  }
  delete c;
}

// Keys (or values) for the multi-key commands: at least one, each checked.
cr_status Keys(std::vector<std::string> *out, const void *const *ptrs, const size_t *lens, size_t n,
               const char *fn, const char *what);

// A command's arguments (checked with BytesArray first) as net::Args.
net::Args ArgsFrom(const void *const *argv, const size_t *argvlen, size_t argc);

// Keys (or values) of the multi-key commands: at least one (CR_EINVAL
// naming fn and what otherwise), each checked with BytesArray.
cr_status Keys(std::vector<std::string> *out, const void *const *ptrs, const size_t *lens, size_t n,
               const char *fn, const char *what);

// A caller's (pointer, length) as a string; "" for NULL.
std::string Str(const void *p, size_t len);

// The checks of every single-key command call: out, access (up to
// CR_ACCESS_AUTO: CommandCall refuses that for the shard-group clients),
// argc/key_index and argv. *out is cleared first.
cr_status CheckCommand(cr_reply **out, const void *client, int access, size_t key_index,
                       size_t argc, const void *const *argv, const size_t *argvlen, const char *fn);

// cr_client_command's routing: by argv[key_index] as a read or a write, or
// (CR_ACCESS_AUTO) as the server's command table says. REQUIRES: checked
// by CheckCommand.
cloudroute::Result<net::ReplyPtr> RunCommand(net::Client *c, int access, size_t key_index,
                                             const net::Args &args, const net::CallOptions &call);

// A net reply tree moved into a new C reply.
std::unique_ptr<cr_reply> NewReply(net::Reply &from);

// Results by position (cr_pipeline_execute, the Sentinel client's batches):
// n results, result i a reply (reply_at(i) non-null) or a failed status
// (status_at(i)). Every one is converted before any is handed out, so an
// allocation failure leaves the caller's arrays untouched; then replies[i]
// (replies may be NULL: not wanted) receives the reply, or a
// CR_REPLY_TYPE_ERROR reply holding the failure's message, and statuses[i]
// (may be NULL) its code.
template <typename ReplyAt, typename StatusAt>
void ResultsOut(cr_reply **replies, cr_status *statuses, size_t n, ReplyAt reply_at,
                StatusAt status_at) {
  std::vector<std::unique_ptr<cr_reply>> out(replies != nullptr ? n : 0);
  for (size_t i = 0; i < out.size(); ++i) {
    net::Reply *r = reply_at(i);
    if (r != nullptr) {
      out[i] = NewReply(*r);
    } else {
      out[i] = std::make_unique<cr_reply>();
      out[i]->type = CR_REPLY_TYPE_ERROR;
      out[i]->str = status_at(i).message();
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (statuses != nullptr) statuses[i] = static_cast<cr_status>(status_at(i).code());
    if (replies != nullptr) replies[i] = out[i].release();
  }
}

// A pipeline's results (cr_pipeline_execute's, cr_pipeline_submit's):
// ResultsOut of the jobs, then CR_OK, or the first failed job's status
// recorded with Fail() (fn, its position and its message).
// REQUIRES: replies (and statuses when not NULL) hold jobs.size().
cr_status JobResultsOut(cr_reply **replies, cr_status *statuses, const std::vector<net::Job> &jobs,
                        const char *fn);

// *out gets the converted reply on success; a failed r is recorded with
// Fail() and its status returned. REQUIRES: out != NULL.
cr_status ReplyOut(cr_reply **out, Result<net::ReplyPtr> r);

}  // namespace capi
}  // namespace cloudroute
