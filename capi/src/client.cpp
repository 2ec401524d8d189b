// C API: the live cluster client and its replies.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "cloudroute/net/client.hpp"
#include "cloudroute/net/discovery.hpp"
#include "cloudroute/net/interrupt.hpp"
#include "cloudroute/net/tls.hpp"
#include "live.hpp"
#include "live_calls.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary
namespace net = cloudroute::net;

namespace {

constexpr cr_client_options kClientDefaults = CR_CLIENT_OPTIONS_INIT;

// Moves a net reply tree into the C reply type, freeing each net child once
// converted: a cr_reply node costs less than a net one (a slot in a
// contiguous vector), so the conversion needs no more memory than the
// reader charged for the tree (net/reader.hpp).
void Convert(net::Reply &from, cr_reply *to) {
  using cloudroute::RespType;
  switch (from.type) {
    case RespType::kBulkString:
      to->type = CR_REPLY_TYPE_STRING;
      break;
    case RespType::kSimpleString:
      to->type = CR_REPLY_TYPE_STATUS;
      break;
    case RespType::kInteger:
      to->type = CR_REPLY_TYPE_INTEGER;
      break;
    case RespType::kNull:
      to->type = CR_REPLY_TYPE_NIL;
      break;
    case RespType::kArray:
      to->type = CR_REPLY_TYPE_ARRAY;
      break;
    case RespType::kError:
      to->type = CR_REPLY_TYPE_ERROR;
      break;
    case RespType::kMap:
      to->type = CR_REPLY_TYPE_MAP;
      break;
    case RespType::kDouble:
      to->type = CR_REPLY_TYPE_DOUBLE;
      break;
    case RespType::kBoolean:
      to->type = CR_REPLY_TYPE_BOOL;
      break;
    case RespType::kBigNumber:
      to->type = CR_REPLY_TYPE_BIGNUM;
      break;
  }
  to->integer = from.integer;
  to->str = std::move(from.str);
  to->elements.resize(from.elements.size());
  for (size_t i = 0; i < from.elements.size(); ++i) {
    if (from.elements[i] != nullptr) Convert(*from.elements[i], &to->elements[i]);
    from.elements[i].reset();
  }
}

cr_status NeedClient(const cr_client *c, const char *fn) { return NotNull(c, fn, "client"); }

}  // namespace

cr_status cloudroute::capi::Keys(std::vector<std::string> *out, const void *const *ptrs,
                                 const size_t *lens, size_t n, const char *fn, const char *what) {
  if (n == 0) return Fail(CR_EINVAL, std::string(fn) + ": no " + what);
  if (cr_status s = BytesArray(ptrs, lens, n, fn, what); s != CR_OK) return s;
  *out = ArgsFrom(ptrs, lens, n);
  return CR_OK;
}

std::string cloudroute::capi::Str(const void *p, size_t len) {
  return p == nullptr ? std::string() : std::string(static_cast<const char *>(p), len);
}

net::Args cloudroute::capi::ArgsFrom(const void *const *argv, const size_t *argvlen, size_t argc) {
  net::Args args;
  args.reserve(argc);
  for (size_t i = 0; i < argc; ++i)
    args.emplace_back(argv[i] == nullptr ? "" : static_cast<const char *>(argv[i]), argvlen[i]);
  return args;
}

cr_status cloudroute::capi::NodeStatsOut(cr_client_node_stats *out, size_t cap, size_t *needed,
                                         const std::vector<net::NodeStatsValues> &all,
                                         const char *fn) {
  if (cr_status s = OutBuffer(out, cap, needed, fn); s != CR_OK) return s;
  const OutArray<cr_client_node_stats> arr(out, cap);
  if (cr_status s = arr.Check(fn, "out[0]"); s != CR_OK) return s;
  *needed = all.size();
  for (size_t i = 0; i < all.size() && i < cap; ++i) {
    cr_client_node_stats o = CR_CLIENT_NODE_STATS_INIT;
    o.node_handle = all[i].node->handle;
    o.host = all[i].node->host.c_str();
    o.port = all[i].node->port;
    o.reads = all[i].reads;
    o.writes = all[i].writes;
    o.errors = all[i].errors;
    o.connections = all[i].connections;
    o.latency_us = all[i].latency_us;
    o.open_connections = static_cast<uint32_t>(all[i].open);
    o.idle_connections = static_cast<uint32_t>(all[i].idle);
    arr.Write(i, o);
  }
  if (cap < all.size()) return TooSmall(all.size(), cap, fn, "nodes");
  return CR_OK;
}

cr_status cloudroute::capi::CheckCommand(cr_reply **out, const void *client, int access,
                                         size_t key_index, size_t argc, const void *const *argv,
                                         const size_t *argvlen, const char *fn) {
  if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
  *out = nullptr;
  if (cr_status s = NotNull(client, fn, "client"); s != CR_OK) return s;
  if (cr_status s = EnumInRange(access, CR_ACCESS_AUTO, fn, "access"); s != CR_OK) return s;
  if (argc == 0 || key_index >= argc) {
    return Fail(CR_EINVAL, std::string(fn) + ": argc is 0 or key_index is not below argc");
  }
  return BytesArray(argv, argvlen, argc, fn, "argv");
}

cloudroute::Result<net::ReplyPtr> cloudroute::capi::RunCommand(net::Client *c, int access,
                                                               size_t key_index,
                                                               const net::Args &args,
                                                               const net::CallOptions &call) {
  if (access == CR_ACCESS_AUTO) return c->ExecuteAuto(key_index, args, call);
  const net::Access a = access == CR_ACCESS_READ ? net::Access::kRead : net::Access::kWrite;
  return c->Execute(a, args[key_index], args, call);
}

std::unique_ptr<cr_reply> cloudroute::capi::NewReply(net::Reply &from) {
  auto reply = std::make_unique<cr_reply>();
  Convert(from, reply.get());
  return reply;
}

cr_status cloudroute::capi::ReplyOut(cr_reply **out, cloudroute::Result<net::ReplyPtr> r) {
  if (!r.ok()) return Fail(r.status());
  *out = NewReply(**r).release();
  return CR_OK;
}

extern "C" {

cr_status cr_client_options_init(cr_client_options *opts, size_t size) {
  return Guard([&] { return InitOptions(opts, size, kClientDefaults, "cr_client_options_init"); });
}

cr_status cr_client_new(cr_client **out, const cr_config *cfg, const cr_client_options *opts,
                        const char *seeds) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_client_new";
    if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
    *out = nullptr;
    if (cr_status s = NotNull(seeds, fn, "seeds"); s != CR_OK) return s;
    cr_client_options o;
    if (cr_status s = ReadInput(&o, opts, kClientDefaults, fn, "opts"); s != CR_OK) return s;
    if (cr_status s = CheckLiveOptions(o, fn); s != CR_OK) return s;
    if (o.max_reply_elements == 0 || o.max_bulk_len == 0 || o.max_reply_bytes == 0) {
      return Fail(CR_EINVAL, std::string(fn) + ": reply caps must be > 0");
    }
    auto parsed = net::ParseSeeds(seeds);
    if (!parsed.ok()) return Fail(parsed.status());

    net::ClientOptions co;
    if (cr_status s = EngineOptionsFrom(o, cfg != nullptr ? &cfg->log : nullptr, fn, &co);
        s != CR_OK) {
      return s;
    }
    co.conn.limits.max_elements = o.max_reply_elements;
    co.conn.limits.max_bulk_len = o.max_bulk_len;
    co.conn.limits.max_total_bytes = o.max_reply_bytes;
    co.refresh_interval_ms = o.refresh_interval_ms;
    co.max_redirects = o.max_redirects;
    co.replica_max_lag_bytes = o.replica_max_lag_bytes;
    co.replica_max_lag_s = o.replica_max_lag_s;
    co.read_your_writes_ms = o.read_your_writes_ms;

    auto c = std::make_unique<cr_client>();
    cloudroute::RouterConfig rc = cfg != nullptr ? cfg->cfg : cloudroute::RouterConfig{};
    rc.reclaim_nodes = true;  // the net layer pins what it uses (net/node_pools.hpp)
    c->router = std::make_unique<cr_router>(std::move(rc));
    auto client = net::Client::Create(&c->router->router, std::move(*parsed), std::move(co));
    if (!client.ok()) return Fail(client.status());
    c->client = std::move(*client);
    *out = c.release();
    return CR_OK;
  });
}

void cr_client_free(cr_client *c) { FreeLive(c); }

cr_status cr_client_command(cr_reply **out, cr_client *c, cr_access access, size_t key_index,
                            size_t argc, const void *const *argv, const size_t *argvlen) {
  return Guard([&]() -> cr_status {
    if (cr_status s = CheckCommand(out, c, RawEnum(access), key_index, argc, argv, argvlen,
                                   "cr_client_command");
        s != CR_OK) {
      return s;
    }
    return ReplyOut(out, RunCommand(c->client.get(), RawEnum(access), key_index,
                                    ArgsFrom(argv, argvlen, argc), net::CallOptions()));
  });
}

cr_status cr_client_cmd_get(cr_reply **out, cr_client *c, const void *key, size_t len) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_client_cmd_get";
    if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
    *out = nullptr;
    if (cr_status s = NeedClient(c, fn); s != CR_OK) return s;
    if (cr_status s = Bytes(key, len, fn, "key"); s != CR_OK) return s;
    return ReplyOut(out, c->client->Get(Str(key, len)));
  });
}

cr_status cr_client_cmd_set(cr_client *c, const void *key, size_t key_len, const void *value,
                            size_t value_len, uint64_t ttl_ms) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_client_cmd_set";
    if (cr_status s = NeedClient(c, fn); s != CR_OK) return s;
    if (cr_status s = Bytes(key, key_len, fn, "key"); s != CR_OK) return s;
    if (cr_status s = Bytes(value, value_len, fn, "value"); s != CR_OK) return s;
    return Check(c->client->Set(Str(key, key_len), Str(value, value_len), ttl_ms));
  });
}

cr_status cr_client_cmd_mget(cr_reply **out, cr_client *c, const void *const *keys,
                             const size_t *lens, size_t n) {
  return Guard([&] { return MGetCall(out, c, keys, lens, n, "cr_client_cmd_mget"); });
}

cr_status cr_client_cmd_mset(cr_client *c, const void *const *keys, const size_t *key_lens,
                             const void *const *values, const size_t *value_lens, size_t n) {
  return Guard(
      [&] { return MSetCall(c, keys, key_lens, values, value_lens, n, "cr_client_cmd_mset"); });
}

cr_status cr_client_cmd_del(int64_t *out_deleted, cr_client *c, const void *const *keys,
                            const size_t *lens, size_t n) {
  return Guard([&] {
    return CountCall(out_deleted, c, keys, lens, n, &net::Client::Del, "cr_client_cmd_del");
  });
}

cr_status cr_client_refresh(cr_client *c) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedClient(c, "cr_client_refresh"); s != CR_OK) return s;
    return Check(c->client->Refresh());
  });
}

cr_status cr_thread_set_interrupt_check(cr_interrupt_check check, void *payload) {
  net::SetInterruptCheck(check, payload);
  return CR_OK;
}

cr_router *cr_client_get_router(cr_client *c) { return c == nullptr ? nullptr : c->router.get(); }

cr_status cr_client_get_stats(cr_client_stats *out, const cr_client *c) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_client_get_stats";
    if (cr_status s = CheckOutput(out, fn, "out"); s != CR_OK) return s;
    if (cr_status s = NeedClient(c, fn); s != CR_OK) return s;
    const cr_client_stats o = ClientStatsFrom(c->client->stats());
    WriteOutput(out, o);
    return CR_OK;
  });
}

cr_status cr_client_get_node_stats(cr_client_node_stats *out, size_t cap, size_t *needed,
                                   const cr_client *c) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_client_get_node_stats";
    if (cr_status s = NeedClient(c, fn); s != CR_OK) return s;
    return NodeStatsOut(out, cap, needed, c->client->node_stats(), fn);
  });
}

cr_reply_type cr_reply_get_type(const cr_reply *r) {
  return r == nullptr ? CR_REPLY_TYPE_NIL : r->type;
}

const char *cr_reply_get_string(const cr_reply *r, size_t *len) {
  const bool has =
      r != nullptr && (r->type == CR_REPLY_TYPE_STRING || r->type == CR_REPLY_TYPE_STATUS ||
                       r->type == CR_REPLY_TYPE_ERROR || r->type == CR_REPLY_TYPE_DOUBLE ||
                       r->type == CR_REPLY_TYPE_BIGNUM);
  if (len != nullptr) *len = has ? r->str.size() : 0;
  return has ? r->str.c_str() : nullptr;
}

int64_t cr_reply_get_integer(const cr_reply *r) {
  return r != nullptr && (r->type == CR_REPLY_TYPE_INTEGER || r->type == CR_REPLY_TYPE_BOOL)
             ? r->integer
             : 0;
}

size_t cr_reply_get_count(const cr_reply *r) {
  return r != nullptr && (r->type == CR_REPLY_TYPE_ARRAY || r->type == CR_REPLY_TYPE_MAP)
             ? r->elements.size()
             : 0;
}

const cr_reply *cr_reply_get_element(const cr_reply *r, size_t i) {
  if (r == nullptr || (r->type != CR_REPLY_TYPE_ARRAY && r->type != CR_REPLY_TYPE_MAP))
    return nullptr;
  return i < r->elements.size() ? &r->elements[i] : nullptr;
}

void cr_reply_free(cr_reply *r) { delete r; }

}  // extern "C"
