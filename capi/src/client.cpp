// C API: the live cluster client and its replies.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "api.hpp"
#include "cloudroute/net/client.hpp"
#include "cloudroute/net/discovery.hpp"
#include "cloudroute/net/tls.hpp"
#include "reply_out.hpp"

using cloudroute::capi::Fail;
using cloudroute::capi::Guard;
namespace net = cloudroute::net;

struct cr_reply {
  cr_reply_type type = CR_REPLY_NIL;
  int64_t integer = 0;
  std::string str;
  std::vector<cr_reply> elements;
};

struct cr_client {
  std::unique_ptr<cr_router> router;  // declared first: outlives the client
  std::unique_ptr<net::Client> client;
};

namespace {

// Moves a net reply tree into the C reply type.
void Convert(net::Reply &from, cr_reply *to) {
  using cloudroute::RespType;
  switch (from.type) {
    case RespType::kBulkString: to->type = CR_REPLY_STRING; break;
    case RespType::kSimpleString: to->type = CR_REPLY_STATUS; break;
    case RespType::kInteger: to->type = CR_REPLY_INTEGER; break;
    case RespType::kNull: to->type = CR_REPLY_NIL; break;
    case RespType::kArray: to->type = CR_REPLY_ARRAY; break;
    case RespType::kError: to->type = CR_REPLY_ERROR; break;
    case RespType::kMap: to->type = CR_REPLY_MAP; break;
    case RespType::kDouble: to->type = CR_REPLY_DOUBLE; break;
    case RespType::kBoolean: to->type = CR_REPLY_BOOL; break;
    case RespType::kBigNumber: to->type = CR_REPLY_BIGNUM; break;
  }
  to->integer = from.integer;
  to->str = std::move(from.str);
  to->elements.resize(from.elements.size());
  for (size_t i = 0; i < from.elements.size(); ++i) {
    if (from.elements[i] != nullptr) Convert(*from.elements[i], &to->elements[i]);
  }
}

cr_status ReplyOut(cr_reply **out, cloudroute::Result<net::ReplyPtr> r) {
  if (!r.ok()) return Fail(r.status());
  auto reply = std::make_unique<cr_reply>();
  Convert(**r, reply.get());
  *out = reply.release();
  return CR_OK;
}

// n keys (or values) as strings; NULL pointers refused.
cr_status Strings(std::vector<std::string> *out, const void *const *ptrs, const size_t *lens,
                  size_t n, const char *fn, const char *what) {
  if (ptrs == nullptr || lens == nullptr) {
    return Fail(CR_EINVAL, std::string(fn) + ": " + what + " or their lengths are NULL");
  }
  out->reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (ptrs[i] == nullptr && lens[i] != 0) {
      return Fail(CR_EINVAL, std::string(fn) + ": " + what + "[" + std::to_string(i) +
                                 "] is NULL with a non-zero length");
    }
    out->emplace_back(ptrs[i] == nullptr ? "" : static_cast<const char *>(ptrs[i]), lens[i]);
  }
  return CR_OK;
}

std::string Bytes(const void *p, size_t len) {
  return p == nullptr ? std::string() : std::string(static_cast<const char *>(p), len);
}

}  // namespace

// Shared with the other client sections (reply_out.hpp): cr_reply lives here.
cr_status cloudroute::capi::ReplyOutFrom(cr_reply **out, cloudroute::Result<net::ReplyPtr> r) {
  return ReplyOut(out, std::move(r));
}

extern "C" {

void cr_client_options_init(cr_client_options *opts) {
  if (opts != nullptr) *opts = CR_CLIENT_OPTIONS_INIT;
}

cr_status cr_client_new(cr_client **out, const cr_config *cfg, const cr_client_options *opts,
                        const char *seeds) {
  return Guard([&]() -> cr_status {
    if (out == nullptr) return Fail(CR_EINVAL, "cr_client_new: out is NULL");
    *out = nullptr;
    if (seeds == nullptr) return Fail(CR_EINVAL, "cr_client_new: seeds is NULL");
    cr_client_options o = CR_CLIENT_OPTIONS_INIT;
    if (opts != nullptr) {
      // The fields up to client_name are version 1; later ones (TLS) keep
      // their defaults when an older caller's struct ends before them.
      if (opts->struct_size < offsetof(cr_client_options, tls)) {
        return Fail(CR_EINVAL, "cr_client_new: opts->struct_size is too small (use CR_CLIENT_OPTIONS_INIT)");
      }
      std::memcpy(&o, opts, std::min<size_t>(opts->struct_size, sizeof o));
      o.struct_size = sizeof o;
    }
    if (o.pool_size == 0) return Fail(CR_EINVAL, "cr_client_new: pool_size must be at least 1");
    if (o.connect_timeout_ms == 0) return Fail(CR_EINVAL, "cr_client_new: connect_timeout_ms must be > 0");
    for (uint32_t t : o.command_timeout_ms) {
      if (t == 0) return Fail(CR_EINVAL, "cr_client_new: command_timeout_ms entries must be > 0");
    }
    if (o.max_reply_elements == 0 || o.max_bulk_len == 0 || o.max_reply_bytes == 0) {
      return Fail(CR_EINVAL, "cr_client_new: reply caps must be > 0");
    }
    auto parsed = net::ParseSeeds(seeds);
    if (!parsed.ok()) return Fail(parsed.status());

    net::ClientOptions co;
    co.conn.connect_timeout_ms = o.connect_timeout_ms;
    co.conn.keepalive_idle_s = o.tcp_keepalive_s;
    co.conn.user_timeout_ms = o.tcp_user_timeout_ms;
    if (o.username != nullptr) co.conn.username = o.username;
    if (o.password != nullptr) co.conn.password = o.password;
    if (o.client_name != nullptr) co.conn.client_name = o.client_name;
    co.conn.limits.max_elements = o.max_reply_elements;
    co.conn.limits.max_bulk_len = o.max_bulk_len;
    co.conn.limits.max_total_bytes = o.max_reply_bytes;
    for (int i = 0; i < CR_TIER_COUNT; ++i) co.timeout_ms[i] = o.command_timeout_ms[i];
    co.pool.max_size = o.pool_size;
    co.pool.idle_ms = o.pool_idle_ms;
    co.refresh_interval_ms = o.refresh_interval_ms;
    co.refresh_min_gap_ms = o.refresh_min_gap_ms;
    co.max_redirects = o.max_redirects;
    co.max_retries = o.max_retries;
    co.retry_base_ms = o.retry_backoff_ms;
    co.failures_before_refresh = o.failures_before_refresh;
    co.replica_max_lag_bytes = o.replica_max_lag_bytes;
    co.replica_max_lag_s = o.replica_max_lag_s;

    if (o.tls != 0) {
      net::TlsOptions t;
      t.verify = o.tls_verify != 0;
      if (o.tls_ca_file != nullptr) t.ca_file = o.tls_ca_file;
      if (o.tls_ca_dir != nullptr) t.ca_dir = o.tls_ca_dir;
      if (o.tls_cert_file != nullptr) t.cert_file = o.tls_cert_file;
      if (o.tls_key_file != nullptr) t.key_file = o.tls_key_file;
      if (o.tls_server_name != nullptr) t.server_name = o.tls_server_name;
      auto tls = net::TlsContext::Create(t);
      if (!tls.ok()) return Fail(CR_EINVAL, "cr_client_new: " + tls.status().message());
      co.conn.tls = std::move(*tls);
    }

    auto c = std::make_unique<cr_client>();
    c->router = std::make_unique<cr_router>(cfg != nullptr ? cfg->cfg : cloudroute::RouterConfig{});
    auto client = net::Client::Create(&c->router->router, std::move(*parsed), std::move(co));
    if (!client.ok()) return Fail(client.status());
    c->client = std::move(*client);
    *out = c.release();
    return CR_OK;
  });
}

void cr_client_free(cr_client *c) { delete c; }

cr_status cr_client_command(cr_reply **out, cr_client *c, cr_access access, size_t key_index,
                            size_t argc, const void *const *argv, const size_t *argvlen) {
  return Guard([&]() -> cr_status {
    if (out != nullptr) *out = nullptr;
    if (out == nullptr || c == nullptr) return Fail(CR_EINVAL, "cr_client_command: out or client is NULL");
    const int a = cloudroute::capi::RawEnum(access);
    if (a != CR_ACCESS_READ && a != CR_ACCESS_WRITE) {
      return Fail(CR_EINVAL, "cr_client_command: access must be CR_ACCESS_READ or CR_ACCESS_WRITE");
    }
    if (argc == 0 || key_index >= argc) {
      return Fail(CR_EINVAL, "cr_client_command: argc is 0 or key_index is not below argc");
    }
    net::Args args;
    cr_status s = Strings(&args, argv, argvlen, argc, "cr_client_command", "argv");
    if (s != CR_OK) return s;
    const std::string key = args[key_index];
    return ReplyOut(out, c->client->Execute(a == CR_ACCESS_READ ? net::Access::kRead : net::Access::kWrite,
                                            key, args));
  });
}

cr_status cr_client_get(cr_reply **out, cr_client *c, const void *key, size_t len) {
  return Guard([&]() -> cr_status {
    if (out != nullptr) *out = nullptr;
    if (out == nullptr || c == nullptr) return Fail(CR_EINVAL, "cr_client_get: out or client is NULL");
    if (key == nullptr && len != 0) return Fail(CR_EINVAL, "cr_client_get: key is NULL with a non-zero length");
    return ReplyOut(out, c->client->Get(Bytes(key, len)));
  });
}

cr_status cr_client_set(cr_client *c, const void *key, size_t key_len, const void *value,
                        size_t value_len, uint64_t ttl_ms) {
  return Guard([&]() -> cr_status {
    if (c == nullptr) return Fail(CR_EINVAL, "cr_client_set: client is NULL");
    if ((key == nullptr && key_len != 0) || (value == nullptr && value_len != 0)) {
      return Fail(CR_EINVAL, "cr_client_set: key or value is NULL with a non-zero length");
    }
    return cloudroute::capi::Check(c->client->Set(Bytes(key, key_len), Bytes(value, value_len), ttl_ms));
  });
}

cr_status cr_client_mget(cr_reply **out, cr_client *c, const void *const *keys, const size_t *lens,
                         size_t n) {
  return Guard([&]() -> cr_status {
    if (out != nullptr) *out = nullptr;
    if (out == nullptr || c == nullptr) return Fail(CR_EINVAL, "cr_client_mget: out or client is NULL");
    if (n == 0) return Fail(CR_EINVAL, "cr_client_mget: no keys");
    std::vector<std::string> k;
    cr_status s = Strings(&k, keys, lens, n, "cr_client_mget", "keys");
    if (s != CR_OK) return s;
    return ReplyOut(out, c->client->MGet(k));
  });
}

cr_status cr_client_mset(cr_client *c, const void *const *keys, const size_t *key_lens,
                         const void *const *values, const size_t *value_lens, size_t n) {
  return Guard([&]() -> cr_status {
    if (c == nullptr) return Fail(CR_EINVAL, "cr_client_mset: client is NULL");
    if (n == 0) return Fail(CR_EINVAL, "cr_client_mset: no keys");
    std::vector<std::string> k, v;
    cr_status s = Strings(&k, keys, key_lens, n, "cr_client_mset", "keys");
    if (s == CR_OK) s = Strings(&v, values, value_lens, n, "cr_client_mset", "values");
    if (s != CR_OK) return s;
    return cloudroute::capi::Check(c->client->MSet(k, v));
  });
}

cr_status cr_client_del(int64_t *out_deleted, cr_client *c, const void *const *keys,
                        const size_t *lens, size_t n) {
  return Guard([&]() -> cr_status {
    if (c == nullptr) return Fail(CR_EINVAL, "cr_client_del: client is NULL");
    if (n == 0) return Fail(CR_EINVAL, "cr_client_del: no keys");
    std::vector<std::string> k;
    cr_status s = Strings(&k, keys, lens, n, "cr_client_del", "keys");
    if (s != CR_OK) return s;
    auto r = c->client->Del(k);
    if (!r.ok()) return Fail(r.status());
    if (out_deleted != nullptr) *out_deleted = *r;
    return CR_OK;
  });
}

cr_status cr_client_refresh(cr_client *c) {
  return Guard([&]() -> cr_status {
    if (c == nullptr) return Fail(CR_EINVAL, "cr_client_refresh: client is NULL");
    return cloudroute::capi::Check(c->client->Refresh());
  });
}

cr_status cr_client_router(cr_router **out, cr_client *c) {
  return Guard([&]() -> cr_status {
    if (out == nullptr || c == nullptr) return Fail(CR_EINVAL, "cr_client_router: out or client is NULL");
    *out = c->router.get();
    return CR_OK;
  });
}

cr_status cr_client_get_stats(cr_client_stats *out, cr_client *c) {
  return Guard([&]() -> cr_status {
    if (c == nullptr || out == nullptr) return Fail(CR_EINVAL, "cr_client_get_stats: out or client is NULL");
    if (!cloudroute::capi::SizeOk(out)) {
      return Fail(CR_EINVAL, "cr_client_get_stats: out->struct_size is too small (use CR_CLIENT_STATS_INIT)");
    }
    const net::StatsValues v = c->client->stats();
    out->reads = v.reads;
    for (int i = 0; i < CR_TIER_COUNT; ++i) out->reads_by_tier[i] = v.reads_by_tier[i];
    out->writes = v.writes;
    out->fallbacks = v.fallbacks;
    out->moved = v.moved;
    out->ask = v.ask;
    out->retries = v.retries;
    out->conn_errors = v.conn_errors;
    out->timeouts = v.timeouts;
    out->server_errors = v.server_errors;
    out->refreshes = v.refreshes;
    out->refresh_failures = v.refresh_failures;
    out->connections = v.connections;
    return CR_OK;
  });
}

cr_status cr_client_get_node_stats(cr_client_node_stats *out, size_t cap, size_t *count,
                                   cr_client *c) {
  return Guard([&]() -> cr_status {
    if (count == nullptr || c == nullptr) return Fail(CR_EINVAL, "cr_client_get_node_stats: count or client is NULL");
    if (cap > 0 && out == nullptr) return Fail(CR_EINVAL, "cr_client_get_node_stats: out is NULL with cap > 0");
    const std::vector<net::NodeStatsValues> all = c->client->node_stats();
    *count = all.size();
    for (size_t i = 0; i < all.size() && i < cap; ++i) {
      cr_client_node_stats *o = &out[i];
      if (!cloudroute::capi::SizeOk(o)) {
        return Fail(CR_EINVAL, "cr_client_get_node_stats: out[" + std::to_string(i) +
                                   "].struct_size is too small (use CR_CLIENT_NODE_STATS_INIT)");
      }
      o->node = all[i].node->handle;
      o->host = all[i].node->host.c_str();
      o->port = all[i].node->port;
      o->reads = all[i].reads;
      o->writes = all[i].writes;
      o->errors = all[i].errors;
      o->connections = all[i].connections;
      o->latency_us = all[i].latency_us;
      o->open_connections = static_cast<uint32_t>(all[i].open);
      o->idle_connections = static_cast<uint32_t>(all[i].idle);
    }
    if (cap < all.size()) {
      return Fail(CR_EBUFS, "cr_client_get_node_stats: " + std::to_string(all.size()) +
                                " nodes, room for " + std::to_string(cap));
    }
    return CR_OK;
  });
}

cr_reply_type cr_reply_get_type(const cr_reply *r) { return r == nullptr ? CR_REPLY_NIL : r->type; }

const char *cr_reply_string(const cr_reply *r, size_t *len) {
  const bool has = r != nullptr && (r->type == CR_REPLY_STRING || r->type == CR_REPLY_STATUS ||
                                    r->type == CR_REPLY_ERROR || r->type == CR_REPLY_DOUBLE ||
                                    r->type == CR_REPLY_BIGNUM);
  if (len != nullptr) *len = has ? r->str.size() : 0;
  return has ? r->str.c_str() : nullptr;
}

int64_t cr_reply_integer(const cr_reply *r) {
  return r != nullptr && (r->type == CR_REPLY_INTEGER || r->type == CR_REPLY_BOOL) ? r->integer : 0;
}

size_t cr_reply_count(const cr_reply *r) {
  return r != nullptr && (r->type == CR_REPLY_ARRAY || r->type == CR_REPLY_MAP) ? r->elements.size() : 0;
}

const cr_reply *cr_reply_element(const cr_reply *r, size_t i) {
  if (r == nullptr || (r->type != CR_REPLY_ARRAY && r->type != CR_REPLY_MAP)) return nullptr;
  return i < r->elements.size() ? &r->elements[i] : nullptr;
}

void cr_reply_free(cr_reply *r) { delete r; }

}  // extern "C"
