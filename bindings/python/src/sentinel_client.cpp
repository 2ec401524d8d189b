// The Sentinel client: cloudroute._native.SentinelClient over
// cr_sentinel_client_* — shard groups kept current by Redis Sentinel, keys
// placed by a Ring, reads by locality. Conversion only: asking the
// sentinels, following +switch-master, read fallback, hedged reads and
// write retries all happen in the C library.
//
// Threading: as Client (client.cpp). The handle lives in a shared_ptr; each
// network call holds its own reference while the GIL is released, and
// close() drops the object's, so cr_sentinel_client_free runs once no call
// (and no borrowed ShardGroups) uses the handle.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "client.hpp"
#include "command_args.hpp"
#include "common.hpp"
#include "engine_options.hpp"

namespace crpy {

namespace sentinel_client_cpp {

constexpr char kSentinelClientName[] = "the Sentinel client";
using SentinelClient =
    OwnedClient<cr_sentinel_client, cr_sentinel_client_free, kSentinelClientName>;
using SentinelHandle = SentinelClient::Handle;

// The keyword options, stored where cr_sentinel_client_new reads them.
struct SentinelOptions {
  cr_sentinel_options o;
  std::deque<std::string> strings;

  SentinelOptions() { cr_sentinel_options_init(&o, sizeof o); }

  const char *Text(py::handle v, const char *name) {
    if (v.is_none()) return nullptr;
    strings.push_back(CString(v, name));
    return strings.back().c_str();
  }

  void Apply(const std::string &k, py::handle v) {
    const char *n = k.c_str();
    uint32_t *u32 = k == "connect_timeout_ms"        ? &o.connect_timeout_ms
                    : k == "sentinel_timeout_ms"     ? &o.sentinel_timeout_ms
                    : k == "reask_interval_ms"       ? &o.reask_interval_ms
                    : k == "pool_size"               ? &o.pool_size
                    : k == "pool_idle_ms"            ? &o.pool_idle_ms
                    : k == "max_retries"             ? &o.max_retries
                    : k == "retry_backoff_ms"        ? &o.retry_backoff_ms
                    : k == "tcp_keepalive_s"         ? &o.tcp_keepalive_s
                    : k == "tcp_user_timeout_ms"     ? &o.tcp_user_timeout_ms
                    : k == "failures_before_refresh" ? &o.failures_before_refresh
                    : k == "refresh_min_gap_ms"      ? &o.refresh_min_gap_ms
                    : k == "db"                      ? &o.db
                                                     : nullptr;
    const char **text = k == "username"            ? &o.username
                        : k == "password"          ? &o.password
                        : k == "sentinel_username" ? &o.sentinel_username
                        : k == "sentinel_password" ? &o.sentinel_password
                        : k == "client_name"       ? &o.client_name
                                                   : nullptr;
    if (u32 != nullptr)
      *u32 = U32(v, n);
    else if (text != nullptr)
      *text = Text(v, n);
    else if (k == "command_timeout_ms")
      TierTimeouts(v, o.command_timeout_ms);
    else if (!ApplyEngineOption(&o, k, v,
                                [this](py::handle x, const char *name) { return Text(x, name); }))
      throw py::type_error("SentinelClient() got an unexpected keyword argument '" + k + "'");
  }
};

PyTypeObject *g_sentinel_stats = nullptr;

PyStructSequence_Field kSentinelStatsFields[] = {
    {"subscribed", "True while subscribed to a sentinel's events"},
    {"reads", "read commands an instance answered"},
    {"writes", "write commands a master answered"},
    {"fallbacks", "reads served by a later instance after one failed"},
    {"retries", "writes tried again (not executed the first time)"},
    {"conn_errors", "failed connects and broken connections"},
    {"timeouts", "connect and command deadlines that passed"},
    {"server_errors", "error replies returned to the caller"},
    {"master_changes", "times a group's master moved"},
    {"switch_events", "+switch-master messages received"},
    {"asks", "groups asked about"},
    {"ask_failures", "group questions no sentinel answered"},
    {"subscriptions", "successful (re)subscriptions"},
    {"connections", "connections opened to instances"},
    {"hedges", "reads also sent to the next candidate (hedge_mode)"},
    {"hedges_won", "hedged reads the next candidate answered first"},
    {"hedges_denied", "reads past their hedge delay the budget did not hedge"},
    {"poisoned", "connections closed: replies stopped matching requests"},
    {nullptr, nullptr}};
PyStructSequence_Desc kSentinelStatsDesc = {
    "cloudroute.SentinelStats",
    "SentinelStats(...): counters of a SentinelClient since it was created.", kSentinelStatsFields,
    18};

py::object Stats(const SentinelClient &self) {
  std::shared_ptr<SentinelHandle> h = self.Acquire();
  cr_sentinel_stats s = CR_SENTINEL_STATS_INIT;
  Check(cr_sentinel_client_get_stats(&s, h->c));  // counters only: keeps the GIL
  const uint64_t counters[] = {s.reads,         s.writes,   s.fallbacks,     s.retries,
                               s.conn_errors,   s.timeouts, s.server_errors, s.master_changes,
                               s.switch_events, s.asks,     s.ask_failures,  s.subscriptions,
                               s.connections,   s.hedges,   s.hedges_won,    s.hedges_denied,
                               s.poisoned};
  PyObject *o = PyStructSequence_New(g_sentinel_stats);
  if (o == nullptr) throw py::error_already_set();
  py::object record = py::reinterpret_steal<py::object>(o);
  PyStructSequence_SetItem(o, 0, py::bool_(s.subscribed != 0).release().ptr());
  Py_ssize_t i = 1;
  for (uint64_t v : counters) PyStructSequence_SetItem(o, i++, py::int_(v).release().ptr());
  return record;
}

std::unique_ptr<SentinelClient> New(py::handle sentinels, py::handle names, py::handle ring,
                                    py::handle config, py::kwargs options) {
  const std::string s = CString(sentinels, "sentinels");
  if (PyUnicode_Check(names.ptr()) || PyBytes_Check(names.ptr())) {
    throw py::type_error("names must be an iterable of Sentinel master names, not a single " +
                         std::string(Py_TYPE(names.ptr())->tp_name));
  }
  std::vector<std::string> group_names;
  for (py::handle n : py::iter(names)) group_names.push_back(CString(n, "names[]"));
  std::vector<const char *> name_ptrs;
  for (const std::string &n : group_names) name_ptrs.push_back(n.c_str());
  if (!py::isinstance<Ring>(ring)) {
    throw py::type_error("ring must be a cloudroute.Ring, not " +
                         std::string(Py_TYPE(ring.ptr())->tp_name));
  }
  const cr_ring *r = ring.cast<Ring &>().ring;  // kept alive by the caller's reference
  const cr_config *cfg = ConfigOrNull(config);
  SentinelOptions o;
  for (auto item : options) {
    if (!item.second.is_none()) o.Apply(py::cast<std::string>(item.first), item.second);
  }
  auto client = std::make_unique<SentinelClient>();
  client->h = std::make_shared<SentinelHandle>();
  cr_status st;
  {
    py::gil_scoped_release nogil;  // asks the sentinels about every group
    st = cr_sentinel_client_new(&client->h->c, cfg, &o.o, r, name_ptrs.data(), name_ptrs.size(),
                                s.c_str());
  }
  Check(st);
  return client;
}

py::object Command(const SentinelClient &self, py::handle access, py::handle key_index,
                   py::handle args) {
  const CommandCall call(access, key_index, args);
  cr_reply *out = nullptr;
  const cr_status st = self.Released([&](cr_sentinel_client *c) {
    return cr_sentinel_client_command(&out, c, call.access, call.key_index, call.argv.size(),
                                      call.argv.ptrs(), call.argv.lens());
  });
  return ReplyResult(st, out);
}

// A batch's arguments (kind "MGET", "MSET", "DEL" or "EXISTS"; values:
// MSET's), checked.
struct BatchArgs {
  Args k, v;
  bool mset = false, mget = false;
  std::string kind;
  BatchArgs(const std::string &kind_name, py::handle keys, py::handle values) : kind(kind_name) {
    k.Set(keys, "keys");
    mset = kind == "MSET";
    mget = kind == "MGET";
    if (mset) v.Set(values, "values");
    if (!mset && !mget && kind != "DEL" && kind != "EXISTS") ThrowInvalid("unknown batch " + kind);
    if (mset && v.size() != k.size()) {
      ThrowInvalid("MSET needs as many values as keys: " + std::to_string(k.size()) + " keys, " +
                   std::to_string(v.size()) + " values");
    }
  }
};

// What a batch gives Python: (results, count, error) — results a list in
// key order (MGET: bytes or None; the others: None) with a failed key's
// exception object in its place, count DEL's / EXISTS's, error the call's
// exception object (naming every failed group) or None. Takes the replies.
py::tuple BatchTuple(bool mget, const std::vector<cr_reply *> &replies,
                     const std::vector<cr_status> &statuses, int64_t count, cr_status st,
                     const std::string &error) {
  py::list results;
  if (mget) {
    results = ResultList(replies, statuses);
  } else {
    results = py::list(statuses.size());
    for (size_t i = 0; i < statuses.size(); ++i) {
      results[i] = statuses[i] == CR_OK ? py::none() : StatusException(statuses[i], error);
    }
  }
  return py::make_tuple(results, count, st == CR_OK ? py::none() : StatusException(st, error));
}

// A batch over cr_sentinel_client_<kind>: BatchTuple's tuple. Refused before
// anything was sent (no keys, bad arguments): raised.
py::tuple Batch(const SentinelClient &self, const std::string &kind, py::handle keys,
                py::handle values) {
  const BatchArgs a(kind, keys, values);
  const size_t n = a.k.size();
  std::vector<cr_reply *> replies(a.mget ? n : 0, nullptr);
  std::vector<cr_status> statuses(n, CR_OK);
  int64_t count = 0;
  std::string error;
  const cr_status st = self.Released([&](cr_sentinel_client *c) {
    cr_status r;
    if (a.mget) {
      r = cr_sentinel_client_mget(replies.data(), statuses.data(), c, a.k.ptrs(), a.k.lens(), n);
    } else if (a.mset) {
      r = cr_sentinel_client_mset(statuses.data(), c, a.k.ptrs(), a.k.lens(), a.v.ptrs(),
                                  a.v.lens(), n);
    } else {
      r = (kind == "DEL" ? cr_sentinel_client_del : cr_sentinel_client_exists)(
          &count, statuses.data(), c, a.k.ptrs(), a.k.lens(), n);
    }
    if (r != CR_OK) error = cr_last_error();
    return r;
  });
  const bool sent =
      std::any_of(statuses.begin(), statuses.end(), [](cr_status x) { return x != CR_OK; }) ||
      st == CR_OK;
  if (!sent) {
    SetStatusError(st, error);
    throw py::error_already_set();
  }
  return BatchTuple(a.mget, replies, statuses, count, st, error);
}

// A submitted batch's completion: callback(None, BatchTuple's tuple), with
// the GIL (in run_completions, or cancelled when the client is freed).
void CompleteBatch(void *ud, cr_status st, size_t n, cr_reply *const *raw, const cr_status *codes,
                   int64_t count) {
  const std::string error = st == CR_OK ? "" : cr_last_error();
  std::vector<cr_reply *> replies(raw != nullptr ? raw : nullptr,
                                  raw != nullptr ? raw + n : nullptr);
  const std::vector<cr_status> statuses(codes, codes + n);
  py::gil_scoped_acquire gil;
  std::unique_ptr<py::object> callback(static_cast<py::object *>(ud));
  if (Finalizing()) {
    (void)callback.release();  // the interpreter is going: leak, never touch it
    for (cr_reply *r : replies) cr_reply_free(r);
    return;
  }
  PyObject *r = nullptr;
  try {
    py::tuple out = BatchTuple(raw != nullptr, replies, statuses, count, st, error);
    r = PyObject_CallFunctionObjArgs(callback->ptr(), Py_None, out.ptr(), nullptr);
  } catch (py::error_already_set &e) {  // a reply that did not convert: the caller hears it
    r = PyObject_CallFunctionObjArgs(callback->ptr(), e.value().ptr(), Py_None, nullptr);
  }
  if (r == nullptr) PyErr_WriteUnraisable(callback->ptr());
  Py_XDECREF(r);
}

// A batch submitted (cr_sentinel_client_submit_<kind>): the completion
// queue on first, then callback(error, (results, count, error)) once.
void SubmitBatch(const SentinelClient &self, const std::string &kind, py::handle keys,
                 py::handle values, py::object callback) {
  const BatchArgs a(kind, keys, values);
  const size_t n = a.k.size();
  std::shared_ptr<SentinelHandle> h = self.Acquire();
  int queue = -1;
  Check(cr_sentinel_client_completion_fd(&queue, h->c));
  auto ud = std::make_unique<py::object>(std::move(callback));
  cr_status st;
  // Copied and handed to the engine thread: the GIL is kept.
  if (a.mget) {
    st = cr_sentinel_client_submit_mget(h->c, a.k.ptrs(), a.k.lens(), n, &CompleteBatch, ud.get());
  } else if (a.mset) {
    st = cr_sentinel_client_submit_mset(h->c, a.k.ptrs(), a.k.lens(), a.v.ptrs(), a.v.lens(), n,
                                        &CompleteBatch, ud.get());
  } else {
    st = (kind == "DEL" ? cr_sentinel_client_submit_del : cr_sentinel_client_submit_exists)(
        h->c, a.k.ptrs(), a.k.lens(), n, &CompleteBatch, ud.get());
  }
  Check(st);
  (void)ud.release();  // CompleteBatch owns it now
}

}  // namespace sentinel_client_cpp

namespace sentinel_client_cpp {

void Init(py::module_ &m) {
  g_sentinel_stats = PyStructSequence_NewType(&kSentinelStatsDesc);
  if (g_sentinel_stats == nullptr) throw py::error_already_set();
  m.add_object("SentinelStats", py::handle(reinterpret_cast<PyObject *>(g_sentinel_stats)));

  auto cls =
      NativeClass<SentinelClient>(
          m, "SentinelClient",
          "A client for Sentinel-managed shard groups (use cloudroute.SentinelClient): a Ring\n"
          "places each key on a group, writes go to its master, reads to its instances\n"
          "nearest first. Safe to share between threads; every network call releases the GIL.")
          .def(
              py::init(&New), py::arg("sentinels"), py::arg("names"), py::arg("ring"),
              py::arg("config") = py::none(),
              "Asks the sentinels ('host:port[,host:port...]') about the masters names[i]\n"
              "(group i = ring shard i; the ring's shard count must equal len(names)) and\n"
              "returns once every group's master and replicas are known. config (a Config:\n"
              "locality, weights, breaker) is copied. Keyword options are the fields of\n"
              "cr_sentinel_options (connect_timeout_ms, command_timeout_ms, sentinel_timeout_ms,\n"
              "reask_interval_ms, pool_size, ..., sentinel_username, sentinel_password, tls, ...,\n"
              "hedge_mode, ...).")
          .def("command", &Command, py::arg("access"), py::arg("key_index"), py::arg("args"),
               "Any command on one key: access 0 = read, 1 = write; args[key_index] places it.")
          .def("batch", &Batch, py::arg("kind"), py::arg("keys"), py::arg("values") = py::none(),
               "MGET, MSET, DEL or EXISTS over many keys: one command per group, every group at\n"
               "once. (results, count, error): a result per key (a failed key's exception object\n"
               "in its place), DEL's / EXISTS's count, the call's exception or None (not raised).")
          .def("submit_batch", &SubmitBatch, py::arg("kind"), py::arg("keys"), py::arg("values"),
               py::arg("callback"),
               "A batch as batch(), submitted: callback(None, (results, count, error)) runs once,\n"
               "in run_completions (or, cancelled, when the client is freed).")
          .def(
              "expire_ms",
              [](const SentinelClient &self, py::handle key, py::handle ttl_ms) {
                Args k;
                k.Set(py::make_tuple(key), "key");
                const auto ms = static_cast<uint64_t>(BoundedInt(ttl_ms, "ttl_ms", 1, INT64_MAX));
                int set = 0;
                Check(self.Released([&](cr_sentinel_client *c) {
                  return cr_sentinel_client_expire(&set, c, k.ptrs()[0], k.lens()[0], ms);
                }));
                return set != 0;
              },
              py::arg("key"), py::arg("ttl_ms"),
              "PEXPIRE key ttl_ms on the key's group's master: True when set, False when the key\n"
              "does not exist.")
          .def(
              "refresh",
              [](const SentinelClient &self) {
                Check(self.Released(
                    [](cr_sentinel_client *c) { return cr_sentinel_client_refresh(c); }));
              },
              "Ask the sentinels about every group now (the watching thread also does).")
          .def("stats", &Stats, "Counters since the client was created (SentinelStats).")
          .def(
              "node_stats",
              [](const SentinelClient &self) {
                std::shared_ptr<SentinelHandle> h = self.Acquire();
                return NodeStatsList([&h](cr_client_node_stats *out, size_t cap, size_t *needed) {
                  return cr_sentinel_client_get_node_stats(out, cap, needed, h->c);
                });
              },
              "Per-instance counters of every data node talked to (list of NodeStats).")
          .def(
              "metrics_text",
              [](const SentinelClient &self) {
                std::string text;
                Check(self.Released([&text](cr_sentinel_client *c) {
                  return TextOf(&text, [c](char *buf, size_t cap, size_t *needed) {
                    return cr_sentinel_client_get_metrics_text(buf, cap, needed, c);
                  });
                }));
                return text;
              },
              "The client's statistics as Prometheus text exposition, as Client.metrics_text.")
          .def_property_readonly(
              "groups",
              [](const SentinelClient &self) {
                std::shared_ptr<SentinelHandle> h = self.Acquire();
                cr_shard_groups *g = cr_sentinel_client_get_groups(h->c);
                return BorrowedShardGroups(g, std::static_pointer_cast<void>(h));
              },
              "The client's ShardGroups (borrowed: it keeps the client's handle alive), for\n"
              "locate / route_read / route_write / read_order and health feedback. Leave its\n"
              "masters and replicas to the client.")
          .def_property_readonly("closed", [](const SentinelClient &self) { return !self.h; })
          .def(
              "close",
              [](SentinelClient &self) {
                std::shared_ptr<SentinelHandle> h = std::move(self.h);
                self.h.reset();
                py::gil_scoped_release nogil;  // joins the watching thread
                h.reset();
              },
              "Stops the watching thread and closes every connection once no call is running\n"
              "(and no borrowed ShardGroups is alive). Idempotent.");
  // Asynchronous single-key calls (cloudroute.asyncio.SentinelClient).
  DefCompletionQueue(cls, &cr_sentinel_client_completion_fd, &cr_sentinel_client_submit,
                     &cr_sentinel_client_run_completions);
}

}  // namespace sentinel_client_cpp

void InitSentinelClient(py::module_ &m) { sentinel_client_cpp::Init(m); }

}  // namespace crpy
