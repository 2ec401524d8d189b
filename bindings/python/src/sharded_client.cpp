// The pre-sharded client: cloudroute._native.ShardedClient over
// cr_sharded_client_* — standalone servers placed by a Ring (ring shard i
// served by servers[i]: a master and optional replicas). Conversion only:
// routing, read fallback, fan-out, pipelines, scans and hedged reads all
// happen in the C library. Its method names and signatures are the native
// Client's where they mean the same (command, command_opts, mget, mset,
// delete, command_nodes, scan, eval_script, fcall), so the Python layer
// (cloudroute/sharded.py) gives it the same redis-py shapes.
//
// Threading: as SentinelClient (sentinel_client.cpp): the handle lives in a
// shared_ptr; each network call holds its own reference while the GIL is
// released, and close() drops the object's.
#include <deque>
#include <string>
#include <vector>

#include "client.hpp"
#include "engine_options.hpp"

namespace crpy {

namespace sharded_client_cpp {

constexpr char kShardedClientName[] = "the sharded client";
using ShardedClient = OwnedClient<cr_sharded_client, cr_sharded_client_free, kShardedClientName>;
using ShardedHandle = ShardedClient::Handle;

// The keyword options, stored where cr_sharded_client_new reads them.
struct ShardedOptions {
  cr_sharded_options o;
  std::deque<std::string> strings;

  ShardedOptions() { cr_sharded_options_init(&o, sizeof o); }

  const char *Text(py::handle v, const char *name) {
    if (v.is_none()) return nullptr;
    strings.push_back(CString(v, name));
    return strings.back().c_str();
  }

  void Apply(const std::string &k, py::handle v) {
    const char *n = k.c_str();
    uint32_t *u32 = k == "connect_timeout_ms"    ? &o.connect_timeout_ms
                    : k == "pool_size"           ? &o.pool_size
                    : k == "pool_idle_ms"        ? &o.pool_idle_ms
                    : k == "max_retries"         ? &o.max_retries
                    : k == "retry_backoff_ms"    ? &o.retry_backoff_ms
                    : k == "tcp_keepalive_s"     ? &o.tcp_keepalive_s
                    : k == "tcp_user_timeout_ms" ? &o.tcp_user_timeout_ms
                    : k == "db"                  ? &o.db
                                                 : nullptr;
    const char **text = k == "username"      ? &o.username
                        : k == "password"    ? &o.password
                        : k == "client_name" ? &o.client_name
                                             : nullptr;
    if (u32 != nullptr)
      *u32 = U32(v, n);
    else if (text != nullptr)
      *text = Text(v, n);
    else if (k == "command_timeout_ms")
      TierTimeouts(v, o.command_timeout_ms);
    else if (!ApplyEngineOption(&o, k, v,
                                [this](py::handle x, const char *name) { return Text(x, name); }))
      throw py::type_error("ShardedClient() got an unexpected keyword argument '" + k + "'");
  }
};

// servers as C strings: each a "host:port[,host:port...]" str.
struct ServerList {
  std::vector<std::string> s;
  std::vector<const char *> ptrs;
  explicit ServerList(py::handle servers) {
    if (PyUnicode_Check(servers.ptr()) || PyBytes_Check(servers.ptr())) {
      throw py::type_error(
          "servers must be a list of 'host:port[,host:port...]' entries, not a "
          "single " +
          std::string(Py_TYPE(servers.ptr())->tp_name));
    }
    for (py::handle e : py::iter(servers)) s.push_back(CString(e, "servers[]"));
    for (const std::string &x : s) ptrs.push_back(x.c_str());
  }
};

std::unique_ptr<ShardedClient> New(py::handle servers, py::handle ring, py::handle config,
                                   py::kwargs options) {
  const ServerList list(servers);
  if (!py::isinstance<Ring>(ring)) {
    throw py::type_error("ring must be a cloudroute.Ring, not " +
                         std::string(Py_TYPE(ring.ptr())->tp_name));
  }
  const cr_ring *r = ring.cast<Ring &>().ring;  // kept alive by the caller's reference
  const cr_config *cfg = ConfigOrNull(config);
  ShardedOptions o;
  for (auto item : options) {
    if (!item.second.is_none()) o.Apply(py::cast<std::string>(item.first), item.second);
  }
  auto client = std::make_unique<ShardedClient>();
  client->h = std::make_shared<ShardedHandle>();
  Check(cr_sharded_client_new(&client->h->c, cfg, &o.o, r, list.ptrs.data(), list.ptrs.size()));
  return client;
}

py::object CommandOpts(const ShardedClient &self, py::handle access, py::handle key_index,
                       py::handle args, py::handle timeout_ms) {
  const CommandCall call(access, key_index, args);
  const cr_call_options o = CallOptions(timeout_ms);
  cr_reply *out = nullptr;
  const cr_status st = self.Released([&](cr_sharded_client *c) {
    return cr_sharded_client_command(&out, c, &o, call.access, call.key_index, call.argv.size(),
                                     call.argv.ptrs(), call.argv.lens());
  });
  return ReplyResult(st, out);
}

py::object Command(const ShardedClient &self, py::handle access, py::handle key_index,
                   py::handle args) {
  return CommandOpts(self, access, key_index, args, py::none());
}

py::object MGet(const ShardedClient &self, py::handle keys) {
  Args k;
  k.Set(keys, "keys");
  if (k.size() == 0) return py::list();
  cr_reply *out = nullptr;
  const cr_status st = self.Released([&](cr_sharded_client *c) {
    return cr_sharded_client_mget(&out, c, k.ptrs(), k.lens(), k.size());
  });
  return ReplyResult(st, out);
}

void MSet(const ShardedClient &self, py::handle keys, py::handle values) {
  Args k, v;
  k.Set(keys, "keys");
  v.Set(values, "values");
  if (k.size() != v.size()) {
    ThrowInvalid(std::to_string(k.size()) + " keys but " + std::to_string(v.size()) + " values");
  }
  if (k.size() == 0) return;
  Check(self.Released([&](cr_sharded_client *c) {
    return cr_sharded_client_mset(c, k.ptrs(), k.lens(), v.ptrs(), v.lens(), k.size());
  }));
}

// DEL or EXISTS (count) of keys: the count.
template <cr_status (*Count)(int64_t *, cr_sharded_client *, const void *const *, const size_t *,
                             size_t)>
int64_t CountKeys(const ShardedClient &self, py::handle keys) {
  Args k;
  k.Set(keys, "keys");
  if (k.size() == 0) return 0;
  int64_t n = 0;
  Check(self.Released(
      [&](cr_sharded_client *c) { return Count(&n, c, k.ptrs(), k.lens(), k.size()); }));
  return n;
}

py::list CommandNodes(const ShardedClient &self, py::handle target, py::handle node,
                      py::handle args, py::handle timeout_ms) {
  const int64_t t = BoundedInt(target, "target", 0, CR_TARGET_ALL_NODES);
  std::string n;
  if (!node.is_none()) n = CString(node, "node");
  Args argv;
  argv.Set(args, "args");
  const cr_call_options o = CallOptions(timeout_ms);
  cr_node_replies *raw = nullptr;
  const cr_status st = self.Released([&](cr_sharded_client *c) {
    return cr_sharded_client_command_nodes(&raw, c, &o, static_cast<cr_target>(t),
                                           node.is_none() ? nullptr : n.c_str(), argv.size(),
                                           argv.ptrs(), argv.lens());
  });
  return NodeRepliesList(st, raw);
}

py::object EvalScript(const ShardedClient &self, py::handle script, bool read_only, py::handle keys,
                      py::handle args, py::handle timeout_ms) {
  const cr_script *s = ScriptHandle(script);
  Args k, a;
  k.Set(keys, "keys");
  a.Set(args, "args");
  const cr_call_options o = CallOptions(timeout_ms);
  cr_reply *out = nullptr;
  const cr_status st = self.Released([&](cr_sharded_client *c) {
    return cr_sharded_client_eval(&out, c, &o, s, read_only ? 1 : 0, k.size(), k.ptrs(), k.lens(),
                                  a.size(), a.ptrs(), a.lens());
  });
  return ReplyResult(st, out);
}

void SetServers(const ShardedClient &self, py::handle servers) {
  const ServerList list(servers);
  Check(self.Released([&](cr_sharded_client *c) {
    return cr_sharded_client_set_servers(c, list.ptrs.data(), list.ptrs.size());
  }));
}

}  // namespace sharded_client_cpp

namespace sharded_client_cpp {

void Init(py::module_ &m) {
  auto cls =
      NativeClass<ShardedClient>(
          m, "ShardedClient",
          "A client for pre-sharded standalone servers (use cloudroute.ShardedClient): a Ring\n"
          "places each key on a shard, writes go to its master, reads to its instances\n"
          "nearest first. Safe to share between threads; every network call releases the GIL.")
          .def(py::init(&New), py::arg("servers"), py::arg("ring"), py::arg("config") = py::none(),
               "servers[i] ('host:port', or 'host:port,host:port...': the master, then its\n"
               "replicas) serves ring shard i. config (a Config: locality, weights, breaker) is\n"
               "copied. Keyword options are the fields of cr_sharded_options. Nothing is dialed.")
          .def("command", &Command, py::arg("access"), py::arg("key_index"), py::arg("args"),
               "Any command on one key: access 0 = read, 1 = write; args[key_index] places it.")
          .def("command_opts", &CommandOpts, py::arg("access"), py::arg("key_index"),
               py::arg("args"), py::arg("timeout_ms") = py::none(),
               "command() with a call-level timeout in ms (None: the tier's).")
          .def("mget", &MGet, py::arg("keys"), "MGET of keys on any shards: a list in key order.")
          .def("mset", &MSet, py::arg("keys"), py::arg("values"), "MSET of pairs on any shards.")
          .def("delete", &CountKeys<cr_sharded_client_del>, py::arg("keys"),
               "DEL of keys on any shards: how many existed.")
          .def("exists", &CountKeys<cr_sharded_client_exists>, py::arg("keys"),
               "EXISTS of keys on any shards: how many exist.")
          .def("command_nodes", &CommandNodes, py::arg("target"), py::arg("node"), py::arg("args"),
               py::arg("timeout_ms") = py::none(),
               "A command sent to instances: target 0 = the instance 'host:port', 1 = every\n"
               "master, 2 = every instance. A list of (address, Role, reply or exception).")
          .def(
              "scan",
              [](const ShardedClient &self, py::handle match, py::handle count, py::handle type,
                 py::handle timeout_ms) {
                std::shared_ptr<ShardedHandle> h = self.Acquire();
                return NewScanOf(h, match, count, type, timeout_ms,
                                 [c = h->c](cr_scan **out, const cr_scan_options *o) {
                                   return cr_sharded_scan_new(out, c, o);
                                 });
              },
              py::arg("match") = py::none(), py::arg("count") = py::none(),
              py::arg("type") = py::none(), py::arg("timeout_ms") = py::none(),
              "A SCAN over every shard, each on the instance a read would use.")
          .def("eval_script", &EvalScript, py::arg("script"), py::arg("read_only"), py::arg("keys"),
               py::arg("args"), py::arg("timeout_ms") = py::none(),
               "EVALSHA (EVALSHA_RO when read_only) on its keys' shard; NOSCRIPT loads it once.")
          .def("set_servers", &SetServers, py::arg("servers"),
               "New addresses for every shard (as the constructor's servers, the same count);\n"
               "the ring is unchanged, so no key moves.")
          .def(
              "stats",
              [](const ShardedClient &self) {
                std::shared_ptr<ShardedHandle> h = self.Acquire();
                cr_client_stats s = CR_CLIENT_STATS_INIT;
                Check(cr_sharded_client_get_stats(&s, h->c));  // counters only: keeps the GIL
                return ClientStatsRecord(s);
              },
              "Counters since the client was created (ClientStats).")
          .def(
              "node_stats",
              [](const ShardedClient &self) {
                std::shared_ptr<ShardedHandle> h = self.Acquire();
                return NodeStatsList([&h](cr_client_node_stats *out, size_t cap, size_t *needed) {
                  return cr_sharded_client_get_node_stats(out, cap, needed, h->c);
                });
              },
              "Per-instance counters of every server talked to (list of NodeStats).")
          .def(
              "metrics_text",
              [](const ShardedClient &self) {
                std::string text;
                Check(self.Released([&text](cr_sharded_client *c) {
                  return TextOf(&text, [c](char *buf, size_t cap, size_t *needed) {
                    return cr_sharded_client_get_metrics_text(buf, cap, needed, c);
                  });
                }));
                return text;
              },
              "The client's statistics as Prometheus text exposition, as Client.metrics_text.")
          .def_property_readonly(
              "groups",
              [](const ShardedClient &self) {
                std::shared_ptr<ShardedHandle> h = self.Acquire();
                cr_shard_groups *g = cr_sharded_client_get_groups(h->c);
                return BorrowedShardGroups(g, std::static_pointer_cast<void>(h));
              },
              "The client's ShardGroups (borrowed), for locate / route_read / read_order.")
          .def_property_readonly("closed", [](const ShardedClient &self) { return !self.h; })
          .def(
              "close",
              [](ShardedClient &self) {
                std::shared_ptr<ShardedHandle> h = std::move(self.h);
                self.h.reset();
                py::gil_scoped_release nogil;
                h.reset();
              },
              "Closes every connection once no call is running. Idempotent.");
  DefCompletionQueue(cls, &cr_sharded_client_completion_fd, &cr_sharded_client_submit,
                     &cr_sharded_client_run_completions);
  DefSubmitMulti(cls, MultiSubmits<cr_sharded_client>{
                          &cr_sharded_client_completion_fd, &cr_sharded_client_submit_mget,
                          &cr_sharded_client_submit_mset, &cr_sharded_client_submit_del,
                          &cr_sharded_client_submit_exists});

  m.def(
      "execute_pipeline",
      [](const ShardedClient &self, py::handle commands) {
        std::shared_ptr<ShardedHandle> h = self.Acquire();
        cr_pipeline *raw = nullptr;
        Check(cr_sharded_pipeline_new(&raw, h->c));
        return RunPipeline(raw, commands);
      },
      py::arg("client"), py::arg("commands"),
      "As execute_pipeline for a Client, on a ShardedClient (commands placed by shard).");
}

}  // namespace sharded_client_cpp

void InitShardedClient(py::module_ &m) { sharded_client_cpp::Init(m); }

}  // namespace crpy
