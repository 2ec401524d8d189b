// The live cluster client: cloudroute._native.Client over cr_client_* (and
// cr_reply_*). Conversion only: routing, redirects, retries, fan-out and
// refresh all happen in the C library.
//
// Threading: a Client is shared between threads. Every call that may touch
// the network releases the GIL around the C call. The cr_client handle lives
// in a shared_ptr: each call holds its own reference while the GIL is
// released, and close() only drops the object's reference, so the handle is
// freed (cr_client_free) once the last running call — or the last borrowed
// Router — lets go of it. That satisfies cr_client_free's "no other call is
// running" without a lock on the hot path.
#include <cstring>
#include <string>

#include "client.hpp"
#include "engine_options.hpp"

namespace crpy {

// ---- replies --------------------------------------------------------------

namespace client_cpp {

PyObject *g_response_error = nullptr;  // cloudroute.errors.ResponseError

py::object Text(const cr_reply *r) {
  size_t len = 0;
  const char *s = cr_reply_get_string(r, &len);
  return py::reinterpret_steal<py::object>([&] {
    PyObject *o = PyUnicode_DecodeUTF8(s, static_cast<Py_ssize_t>(len), "backslashreplace");
    if (o == nullptr) throw py::error_already_set();
    return o;
  }());
}

}  // namespace client_cpp

py::object FromReply(const cr_reply *r) {
  size_t len = 0;
  switch (cr_reply_get_type(r)) {
    case CR_REPLY_TYPE_STRING: {
      const char *s = cr_reply_get_string(r, &len);
      return py::bytes(s, len);
    }
    case CR_REPLY_TYPE_STATUS:
      return client_cpp::Text(r);
    case CR_REPLY_TYPE_INTEGER:
      return py::int_(cr_reply_get_integer(r));
    case CR_REPLY_TYPE_NIL:
      return py::none();
    case CR_REPLY_TYPE_BOOL:
      return py::bool_(cr_reply_get_integer(r) != 0);
    case CR_REPLY_TYPE_DOUBLE:
      return py::reinterpret_steal<py::object>([&] {
        PyObject *f = PyFloat_FromString(client_cpp::Text(r).ptr());
        if (f == nullptr) throw py::error_already_set();
        return f;
      }());
    case CR_REPLY_TYPE_BIGNUM: {
      const char *s = cr_reply_get_string(r, &len);
      PyObject *i = PyLong_FromString(s, nullptr, 10);
      if (i == nullptr) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(i);
    }
    case CR_REPLY_TYPE_ERROR: {
      // An error inside an array (EXEC): returned as an exception object,
      // not raised, as redis-py does.
      py::object exc =
          py::reinterpret_borrow<py::object>(client_cpp::g_response_error)(client_cpp::Text(r));
      exc.attr("status") = static_cast<int>(CR_EREDIS);
      return exc;
    }
    case CR_REPLY_TYPE_ARRAY: {
      const size_t n = cr_reply_get_count(r);
      py::list out(n);
      for (size_t i = 0; i < n; ++i) out[i] = FromReply(cr_reply_get_element(r, i));
      return std::move(out);
    }
    case CR_REPLY_TYPE_MAP: {
      const size_t n = cr_reply_get_count(r);
      py::dict out;
      for (size_t i = 0; i + 1 < n; i += 2) {
        py::object k = FromReply(cr_reply_get_element(r, i));
        if (PyList_Check(k.ptr())) k = py::tuple(k);  // dict keys must be hashable
        out[k] = FromReply(cr_reply_get_element(r, i + 1));
      }
      return std::move(out);
    }
  }
  return py::none();
}

py::object ReplyResult(cr_status st, cr_reply *raw) {
  ReplyPtr reply(raw, cr_reply_free);
  Check(st);
  return FromReply(reply.get());
}

void TierTimeouts(py::handle v, uint32_t (&out)[CR_TIER_COUNT]) {
  const char *n = "command_timeout_ms";
  if (PyIndex_Check(v.ptr()) && !PyBool_Check(v.ptr())) {
    const uint32_t t = U32(v, n);
    for (uint32_t &x : out) x = t;
    return;
  }
  if (!PySequence_Check(v.ptr()) || PyUnicode_Check(v.ptr()) || py::len(v) != CR_TIER_COUNT) {
    throw py::type_error("command_timeout_ms must be an int or a sequence of 5 ints (by Tier)");
  }
  py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
  for (size_t i = 0; i < CR_TIER_COUNT; ++i) out[i] = U32(seq[i], n);
}

namespace client_cpp {

// ---- options --------------------------------------------------------------

uint32_t OptU32(py::handle v, const char *name) { return U32(v, name); }

// The options keywords, stored where cr_client_new reads them.
struct Options {
  cr_client_options o;
  std::deque<std::string> strings;

  Options() { cr_client_options_init(&o, sizeof o); }

  const char *Str(py::handle v, const char *name) {
    if (v.is_none()) return nullptr;
    strings.push_back(CString(v, name));
    return strings.back().c_str();
  }

  void Apply(const std::string &k, py::handle v) {
    const char *n = k.c_str();
    if (k == "connect_timeout_ms")
      o.connect_timeout_ms = OptU32(v, n);
    else if (k == "command_timeout_ms")
      TierTimeouts(v, o.command_timeout_ms);
    else if (k == "pool_size")
      o.pool_size = OptU32(v, n);
    else if (k == "pool_idle_ms")
      o.pool_idle_ms = OptU32(v, n);
    else if (k == "refresh_interval_ms")
      o.refresh_interval_ms = OptU32(v, n);
    else if (k == "refresh_min_gap_ms")
      o.refresh_min_gap_ms = OptU32(v, n);
    else if (k == "max_redirects")
      o.max_redirects = OptU32(v, n);
    else if (k == "max_retries")
      o.max_retries = OptU32(v, n);
    else if (k == "retry_backoff_ms")
      o.retry_backoff_ms = OptU32(v, n);
    else if (k == "failures_before_refresh")
      o.failures_before_refresh = OptU32(v, n);
    else if (k == "tcp_keepalive_s")
      o.tcp_keepalive_s = OptU32(v, n);
    else if (k == "tcp_user_timeout_ms")
      o.tcp_user_timeout_ms = OptU32(v, n);
    else if (k == "max_reply_elements")
      o.max_reply_elements = OptU32(v, n);
    else if (k == "max_bulk_len")
      o.max_bulk_len = U64OrLong(v, n, false);
    else if (k == "max_reply_bytes")
      o.max_reply_bytes = U64OrLong(v, n, false);
    else if (k == "username")
      o.username = Str(v, n);
    else if (k == "password")
      o.password = Str(v, n);
    else if (k == "client_name")
      o.client_name = Str(v, n);
    else if (k == "replica_max_lag_bytes")
      o.replica_max_lag_bytes = U64OrLong(v, n, false);
    else if (k == "replica_max_lag_s")
      o.replica_max_lag_s = OptU32(v, n);
    else if (k == "read_your_writes_ms")
      o.read_your_writes_ms = OptU32(v, n);
    else if (k == "db")
      o.db = OptU32(v, n);
    else if (k == "shared_connections")
      o.shared_connections = OptU32(v, n);
    else if (!ApplyEngineOption(&o, k, v,
                                [this](py::handle x, const char *name) { return Str(x, name); }))
      throw py::type_error("Client() got an unexpected keyword argument '" + k + "'");
  }
};

// ---- statistics records -----------------------------------------------------

PyTypeObject *g_stats = nullptr;
PyTypeObject *g_node_stats = nullptr;

PyStructSequence_Field kStatsFields[] = {
    {"reads", "read commands a node answered"},
    {"reads_by_tier", "reads by the serving node's Tier: {Tier: count}"},
    {"writes", "write commands a master answered"},
    {"fallbacks", "reads served by a later candidate after one failed"},
    {"moved", "MOVED redirects followed"},
    {"ask", "ASK redirects followed"},
    {"retries", "TRYAGAIN / CLUSTERDOWN / LOADING retries"},
    {"conn_errors", "failed connects and broken connections"},
    {"timeouts", "connect and command deadlines that passed"},
    {"server_errors", "error replies returned to the caller"},
    {"refreshes", "topology refreshes that succeeded"},
    {"refresh_failures", "topology refreshes that failed"},
    {"connections", "connections opened"},
    {"hedges", "reads also sent to the next candidate (hedge_mode)"},
    {"hedges_won", "hedged reads the next candidate answered first"},
    {"hedges_denied", "reads past their hedge delay the hedge budget did not hedge"},
    {"poisoned", "connections closed because what a server sent stopped matching what was asked"},
    {nullptr, nullptr}};
PyStructSequence_Desc kStatsDesc = {"cloudroute.ClientStats",
                                    "ClientStats(...): counters of a Client since it was created.",
                                    kStatsFields, 17};

PyStructSequence_Field kNodeStatsFields[] = {
    {"host", "the node's announced host"},
    {"port", "the node's announced port"},
    {"node_handle", "stable node handle (Route.node_handle)"},
    {"reads", "read commands this node answered"},
    {"writes", "write commands this node answered"},
    {"errors", "connection errors and timeouts"},
    {"connections", "connections opened"},
    {"latency_us", "moving average of round trips in microseconds; 0 = none yet"},
    {"open_connections", "connections open now"},
    {"idle_connections", "idle connections in the pool now"},
    {nullptr, nullptr}};
PyStructSequence_Desc kNodeStatsDesc = {
    "cloudroute.NodeStats",
    "NodeStats(host, port, node_handle, ...): per-node counters of a Client.", kNodeStatsFields,
    10};

py::object Record(PyTypeObject *type, std::initializer_list<py::object> items) {
  PyObject *o = PyStructSequence_New(type);
  if (o == nullptr) throw py::error_already_set();
  Py_ssize_t i = 0;
  for (const py::object &item : items)
    PyStructSequence_SetItem(o, i++, py::object(item).release().ptr());
  return py::reinterpret_steal<py::object>(o);
}

py::object Stats(const Client &self) {
  std::shared_ptr<ClientHandle> h = self.Acquire();
  cr_client_stats s = CR_CLIENT_STATS_INIT;
  Check(cr_client_get_stats(&s, h->c));  // counters only: no network, keeps the GIL
  return ClientStatsRecord(s);
}

py::list NodeStats(const Client &self) {
  std::shared_ptr<ClientHandle> h = self.Acquire();
  return NodeStatsList([&h](cr_client_node_stats *out, size_t cap, size_t *needed) {
    return cr_client_get_node_stats(out, cap, needed, h->c);
  });
}

}  // namespace client_cpp

py::list NodeStatsList(const NodeStatsFn &fill) {
  const cr_client_node_stats init = CR_CLIENT_NODE_STATS_INIT;
  std::vector<cr_client_node_stats> buf(16, init);
  size_t count = 0;
  for (;;) {
    const cr_status st = fill(buf.data(), buf.size(), &count);
    if (st == CR_EBUFS && count > buf.size()) {
      buf.assign(count, init);
      continue;
    }
    Check(st);
    break;
  }
  py::list out;
  for (size_t i = 0; i < count; ++i) {
    const cr_client_node_stats &n = buf[i];
    out.append(client_cpp::Record(
        client_cpp::g_node_stats,
        {py::str(n.host != nullptr ? n.host : "?"), py::int_(n.port), py::int_(n.node_handle),
         py::int_(n.reads), py::int_(n.writes), py::int_(n.errors), py::int_(n.connections),
         py::int_(n.latency_us), py::int_(n.open_connections), py::int_(n.idle_connections)}));
  }
  return out;
}

namespace client_cpp {

// ---- commands ----------------------------------------------------------------

py::object Command(const Client &self, py::handle access, py::handle key_index, py::handle args) {
  const CommandCall call(access, key_index, args);
  cr_reply *out = nullptr;
  const cr_status st = NoGil(self, [&](cr_client *c) {
    return cr_client_command(&out, c, call.access, call.key_index, call.argv.size(),
                             call.argv.ptrs(), call.argv.lens());
  });
  return ReplyResult(st, out);
}

py::object Get(const Client &self, py::handle key) {
  KeyArg k;
  if (!k.Set(key.ptr(), "key")) throw py::error_already_set();
  cr_reply *out = nullptr;
  const cr_status st =
      NoGil(self, [&](cr_client *c) { return cr_client_cmd_get(&out, c, k.data(), k.size()); });
  return ReplyResult(st, out);
}

void Set(const Client &self, py::handle key, py::handle value, py::handle ttl_ms) {
  KeyArg k;
  if (!k.Set(key.ptr(), "key")) throw py::error_already_set();
  Args v;  // one value: bytes, str, int, float or bytes-like
  v.Set(py::make_tuple(value), "value");
  const uint64_t ttl = U64OrLong(ttl_ms, "ttl_ms", false);
  Check(NoGil(self, [&](cr_client *c) {
    return cr_client_cmd_set(c, k.data(), k.size(), v.ptrs()[0], v.lens()[0], ttl);
  }));
}

py::object MGet(const Client &self, py::handle keys) {
  Args k;
  k.Set(keys, "keys");
  if (k.size() == 0) return py::list();
  cr_reply *out = nullptr;
  const cr_status st = NoGil(self, [&](cr_client *c) {
    return cr_client_cmd_mget(&out, c, k.ptrs(), k.lens(), k.size());
  });
  return ReplyResult(st, out);
}

void MSet(const Client &self, py::handle keys, py::handle values) {
  Args k, v;
  k.Set(keys, "keys");
  v.Set(values, "values");
  if (k.size() != v.size()) {
    ThrowInvalid(std::to_string(k.size()) + " keys but " + std::to_string(v.size()) + " values");
  }
  if (k.size() == 0) return;
  Check(NoGil(self, [&](cr_client *c) {
    return cr_client_cmd_mset(c, k.ptrs(), k.lens(), v.ptrs(), v.lens(), k.size());
  }));
}

int64_t Del(const Client &self, py::handle keys) {
  Args k;
  k.Set(keys, "keys");
  if (k.size() == 0) return 0;
  int64_t deleted = 0;
  Check(NoGil(self, [&](cr_client *c) {
    return cr_client_cmd_del(&deleted, c, k.ptrs(), k.lens(), k.size());
  }));
  return deleted;
}

}  // namespace client_cpp

py::object ClientStatsRecord(const cr_client_stats &s) {
  py::dict by_tier;
  for (int t = 0; t < CR_TIER_COUNT; ++t) by_tier[TierMember(t)] = py::int_(s.reads_by_tier[t]);
  return client_cpp::Record(
      client_cpp::g_stats,
      {py::int_(s.reads), by_tier, py::int_(s.writes), py::int_(s.fallbacks), py::int_(s.moved),
       py::int_(s.ask), py::int_(s.retries), py::int_(s.conn_errors), py::int_(s.timeouts),
       py::int_(s.server_errors), py::int_(s.refreshes), py::int_(s.refresh_failures),
       py::int_(s.connections), py::int_(s.hedges), py::int_(s.hedges_won),
       py::int_(s.hedges_denied), py::int_(s.poisoned)});
}

namespace client_cpp {

void Init(py::module_ &m) {
  g_response_error =
      py::object(py::module_::import("cloudroute.errors").attr("ResponseError")).release().ptr();
  g_stats = PyStructSequence_NewType(&kStatsDesc);
  g_node_stats = PyStructSequence_NewType(&kNodeStatsDesc);
  if (g_stats == nullptr || g_node_stats == nullptr) throw py::error_already_set();
  m.add_object("ClientStats", py::handle(reinterpret_cast<PyObject *>(g_stats)));
  m.add_object("NodeStats", py::handle(reinterpret_cast<PyObject *>(g_node_stats)));

  NativeClass<Client>(m, "Client",
                      "A live Redis Cluster client routing through libcloudroute (use\n"
                      "cloudroute.Client). Safe to share between threads; every network call\n"
                      "releases the GIL.")
      .def(py::init([](py::handle seeds, py::handle config, py::kwargs options) {
             const std::string s = CString(seeds, "seeds");
             // Events go to logging.getLogger("cloudroute"), through the
             // given Config (which clients made from it later share) or a
             // default one.
             std::unique_ptr<Config> own;
             if (config.is_none()) own = std::make_unique<Config>();
             cr_config *cfg = own ? own->cfg : const_cast<cr_config *>(ConfigOrNull(config));
             RouteLogsToLogging(cfg);
             Options o;
             for (auto item : options) {
               if (!item.second.is_none()) o.Apply(py::cast<std::string>(item.first), item.second);
             }
             auto client = std::make_unique<Client>();
             client->h = std::make_shared<ClientHandle>();
             cr_status st;
             {
               py::gil_scoped_release nogil;  // discovery talks to the seeds
               st = cr_client_new(&client->h->c, cfg, &o.o, s.c_str());
             }
             Check(st);
             return client;
           }),
           py::arg("seeds"), py::arg("config") = py::none(),
           "Connects to the cluster through seeds ('host:port[,host:port...]') and reads\n"
           "its topology; config (a Config) is copied. Keyword options are the fields of\n"
           "cr_client_options (connect_timeout_ms, command_timeout_ms, pool_size, ...,\n"
           "tls, tls_verify, tls_ca_file, ...).")
      .def("command", &Command, py::arg("access"), py::arg("key_index"), py::arg("args"),
           "Any command on one key: access 0 = read, 1 = write; args[key_index] places it.")
      .def("get", &Get, py::arg("key"), "GET: bytes, or None when the key does not exist.")
      .def("set", &Set, py::arg("key"), py::arg("value"), py::arg("ttl_ms") = 0,
           "SET, with PX ttl_ms when ttl_ms > 0.")
      .def("mget", &MGet, py::arg("keys"),
           "MGET of keys in any slots: split by slot, every node asked at once; a list in\n"
           "key order.")
      .def("mset", &MSet, py::arg("keys"), py::arg("values"),
           "MSET of keys[i] = values[i] in any slots (not atomic across slots).")
      .def("delete", &Del, py::arg("keys"), "DEL of keys in any slots: how many existed.")
      .def(
          "refresh",
          [](const Client &self) {
            Check(NoGil(self, [](cr_client *c) { return cr_client_refresh(c); }));
          },
          "Re-read the topology now (the background thread also does on its schedule).")
      .def("stats", &Stats, "Counters since the client was created (ClientStats).")
      .def(
          "metrics_text",
          [](const Client &self) {
            std::string text;
            Check(NoGil(self, [&text](cr_client *c) {
              return TextOf(&text, [c](char *buf, size_t cap, size_t *needed) {
                return cr_client_get_metrics_text(buf, cap, needed, c);
              });
            }));
            return text;
          },
          "The client's statistics as Prometheus text exposition (version 0.0.4): reads\n"
          "by tier, fallbacks, redirects, timeouts, refreshes, per-node latency histograms.")
      .def("node_stats", &NodeStats,
           "Per-node counters of every node talked to (list of NodeStats).")
      .def_property_readonly(
          "router",
          [](const Client &self) {
            std::shared_ptr<ClientHandle> h = self.Acquire();
            cr_router *r = cr_client_get_router(h->c);
            return BorrowedRouter(r, std::static_pointer_cast<void>(h));
          },
          "The client's Router (borrowed: it keeps the client's handle alive while it lives).")
      .def_property_readonly("closed", [](const Client &self) { return !self.h; })
      .def(
          "close",
          [](Client &self) {
            std::shared_ptr<ClientHandle> h = std::move(self.h);
            self.h.reset();
            py::gil_scoped_release nogil;  // joins the refresh thread
            h.reset();
          },
          "Stops the refresh thread and closes every connection once no call is running\n"
          "(and no borrowed Router is alive). Idempotent.");
}

}  // namespace client_cpp

void InitClient(py::module_ &m) { client_cpp::Init(m); }

}  // namespace crpy
