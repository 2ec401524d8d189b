// The live client's everyday commands beyond one key (cr_client_command_opts,
// cr_client_command_nodes, cr_scan_*, cr_script_* / cr_client_eval /
// cr_client_fcall, cr_client_pin / cr_pinned_*): methods added to
// cloudroute._native.Client, and the Scan, Script and Pinned classes.
// Conversion only; the logic is in the C library.
//
// Threading: as client.cpp. A Scan or Pinned holds a reference to the
// client's handle, so the cr_client outlives it whatever the order in which
// Python drops them; each is used by one thread at a time (a lock-free
// check refuses a second thread rather than racing).
#include <atomic>
#include <string>
#include <vector>

#include "client.hpp"

namespace crpy {

namespace commands_cpp {

py::object g_master, g_replica;  // cloudroute.Role members

uint32_t TimeoutMs(py::handle v) { return v.is_none() ? 0u : U32(v, "timeout_ms"); }

// Something (a Scan, a Pinned) used by one thread at a time that owns a C
// handle and a reference to the client's (a cr_client's or a
// cr_sharded_client's), made in this process.
template <class T, void (*Free)(T *)>
struct Owned {
  std::shared_ptr<void> client;
  const uint64_t generation = ForkGeneration();  // see common.hpp, "fork"
  T *h = nullptr;
  std::atomic<bool> busy{false};

  Owned() = default;
  Owned(const Owned &) = delete;
  Owned &operator=(const Owned &) = delete;
  ~Owned() {
    if (!Forked()) Free(h);  // else the parent's: leaked on purpose (common.hpp, "fork")
  }
  bool Forked() const { return client != nullptr && generation != ForkGeneration(); }

  // Runs f(T *) without the GIL.
  template <class F>
  cr_status Run(const char *what, F f) {
    if (h == nullptr) ThrowInvalid(std::string(what) + " is closed");
    if (Forked()) ThrowForked(what);
    if (busy.exchange(true)) ThrowInvalid(std::string(what) + " is in use by another thread");
    GiveWayToSignals();
    cr_status st;
    {
      py::gil_scoped_release nogil;
      st = f(h);
    }
    busy.store(false);
    RaiseSignalError(st);  // common.hpp, "signals"
    return st;
  }
  void Close(const char *what) {
    if (busy.load()) ThrowInvalid(std::string(what) + " is in use by another thread");
    T *old = h;
    h = nullptr;
    if (Forked()) {  // the parent's connection: nothing is sent, nothing freed
      client.reset();
      return;
    }
    py::gil_scoped_release nogil;  // a pinned connection may send DISCARD
    Free(old);
    client.reset();
  }
};

using Scan = Owned<cr_scan, cr_scan_free>;
using Pinned = Owned<cr_pinned, cr_pinned_free>;

struct Script {
  std::shared_ptr<cr_script> s;
};

// ---- Client methods -----------------------------------------------------

py::object CommandOpts(const Client &self, py::handle access, py::handle key_index, py::handle args,
                       py::handle timeout_ms) {
  const CommandCall k(access, key_index, args);
  const cr_call_options o = CallOptions(timeout_ms);
  cr_reply *out = nullptr;
  const cr_status st = NoGil(self, [&](cr_client *c) {
    return cr_client_command_opts(&out, c, &o, k.access, k.key_index, k.argv.size(), k.argv.ptrs(),
                                  k.argv.lens());
  });
  return ReplyResult(st, out);
}

py::list CommandNodes(const Client &self, py::handle target, py::handle node, py::handle args,
                      py::handle timeout_ms) {
  const int64_t t = BoundedInt(target, "target", 0, CR_TARGET_ALL_NODES);
  std::string n;
  if (!node.is_none()) n = CString(node, "node");
  Args argv;
  argv.Set(args, "args");
  const cr_call_options o = CallOptions(timeout_ms);
  cr_node_replies *raw = nullptr;
  const cr_status st = NoGil(self, [&](cr_client *c) {
    return cr_client_command_nodes(&raw, c, &o, static_cast<cr_target>(t),
                                   node.is_none() ? nullptr : n.c_str(), argv.size(), argv.ptrs(),
                                   argv.lens());
  });
  return NodeRepliesList(st, raw);
}

py::object NewScan(const Client &self, py::handle match, py::handle count, py::handle type,
                   py::handle timeout_ms) {
  std::shared_ptr<ClientHandle> h = self.Acquire();
  return NewScanOf(h, match, count, type, timeout_ms,
                   [c = h->c](cr_scan **out, const cr_scan_options *o) {
                     return cr_scan_new(out, c, o);  // no network: keeps the GIL
                   });
}

// The keys, arguments and options of a script or function call.
struct ScriptCall {
  ScriptCall(py::handle keys, py::handle args, py::handle timeout_ms)
      : opts(CallOptions(timeout_ms)) {
    k.Set(keys, "keys");
    a.Set(args, "args");
  }
  Args k, a;
  const cr_call_options opts;
};

py::object EvalScript(const Client &self, const Script &script, bool read_only, py::handle keys,
                      py::handle args, py::handle timeout_ms) {
  const ScriptCall sc(keys, args, timeout_ms);
  cr_reply *out = nullptr;
  const cr_status st = NoGil(self, [&](cr_client *c) {
    return cr_client_eval(&out, c, &sc.opts, script.s.get(), read_only ? 1 : 0, sc.k.size(),
                          sc.k.ptrs(), sc.k.lens(), sc.a.size(), sc.a.ptrs(), sc.a.lens());
  });
  return ReplyResult(st, out);
}

py::object FCall(const Client &self, py::handle function, bool read_only, py::handle keys,
                 py::handle args, py::handle timeout_ms) {
  const std::string fn = CString(function, "function");
  const ScriptCall sc(keys, args, timeout_ms);
  cr_reply *out = nullptr;
  const cr_status st = NoGil(self, [&](cr_client *c) {
    return cr_client_fcall(&out, c, &sc.opts, fn.c_str(), read_only ? 1 : 0, sc.k.size(),
                           sc.k.ptrs(), sc.k.lens(), sc.a.size(), sc.a.ptrs(), sc.a.lens());
  });
  return ReplyResult(st, out);
}

std::unique_ptr<Pinned> Pin(const Client &self, py::handle key) {
  KeyArg k;
  if (!k.Set(key.ptr(), "key")) throw py::error_already_set();
  auto p = std::make_unique<Pinned>();
  std::shared_ptr<ClientHandle> h = self.Acquire();
  p->client = h;
  cr_status st;
  {
    py::gil_scoped_release nogil;  // dials the master when its pool is empty
    st = cr_client_pin(&p->h, h->c, k.data(), k.size());
  }
  Check(st);
  return p;
}

py::object PinnedCommand(Pinned &self, py::handle key_indexes, py::handle args,
                         py::handle timeout_ms) {
  Args argv;
  argv.Set(args, "args");
  std::vector<size_t> idx;
  for (py::handle i : py::iter(key_indexes))
    idx.push_back(static_cast<size_t>(BoundedInt(i, "key_indexes[i]", 0, INT32_MAX)));
  const cr_call_options o = CallOptions(timeout_ms);
  cr_reply *out = nullptr;
  const cr_status st = self.Run("the pinned connection", [&](cr_pinned *p) {
    return cr_pinned_command(&out, p, &o, idx.size(), idx.data(), argv.size(), argv.ptrs(),
                             argv.lens());
  });
  return ReplyResult(st, out);
}

}  // namespace commands_cpp

cr_call_options CallOptions(py::handle timeout_ms) {
  cr_call_options o = CR_CALL_OPTIONS_INIT;
  o.timeout_ms = commands_cpp::TimeoutMs(timeout_ms);
  return o;
}

const cr_script *ScriptHandle(py::handle script) {
  return script.cast<commands_cpp::Script &>().s.get();
}

py::list NodeRepliesList(cr_status st, cr_node_replies *raw) {
  std::unique_ptr<cr_node_replies, void (*)(cr_node_replies *)> r(raw, cr_node_replies_free);
  Check(st);
  py::list out;
  for (size_t i = 0; i < cr_node_replies_get_count(r.get()); ++i) {
    const cr_status s = cr_node_replies_get_status(r.get(), i);
    const cr_reply *reply = cr_node_replies_get_reply(r.get(), i);
    py::object value = reply != nullptr ? FromReply(reply)
                                        : StatusException(s, cr_node_replies_get_error(r.get(), i));
    out.append(py::make_tuple(py::str(cr_node_replies_get_address(r.get(), i)),
                              cr_node_replies_get_role(r.get(), i) == CR_ROLE_MASTER
                                  ? commands_cpp::g_master
                                  : commands_cpp::g_replica,
                              value));
  }
  return out;
}

py::object NewScanOf(std::shared_ptr<void> owner, py::handle match, py::handle count,
                     py::handle type, py::handle timeout_ms, const MakeScanFn &make) {
  KeyArg m;
  if (!match.is_none() && !m.Set(match.ptr(), "match")) throw py::error_already_set();
  std::string ty;
  if (!type.is_none()) ty = CString(type, "type");
  cr_scan_options o = CR_SCAN_OPTIONS_INIT;
  if (!match.is_none()) {
    o.match = m.data();
    o.match_len = m.size();
  }
  o.count = count.is_none() ? 0u : U32(count, "count");
  o.type = type.is_none() ? nullptr : ty.c_str();
  o.timeout_ms = commands_cpp::TimeoutMs(timeout_ms);
  auto s = std::make_unique<commands_cpp::Scan>();
  s->client = std::move(owner);
  Check(make(&s->h, &o));
  return py::cast(std::move(s));
}

namespace commands_cpp {

void Init(py::module_ &m) {
  py::module_ types = py::module_::import("cloudroute._types");
  g_master = types.attr("Role").attr("MASTER");
  g_replica = types.attr("Role").attr("REPLICA");

  NativeClass<Scan>(m, "Scan", "A SCAN over every shard (from Client.scan).")
      .def(
          "next",
          [](Scan &self) -> py::object {
            cr_reply *out = nullptr;
            const cr_status st =
                self.Run("the scan", [&](cr_scan *s) { return cr_scan_next(&out, s); });
            if (st == CR_OK && out == nullptr) return py::none();
            return ReplyResult(st, out);
          },
          "The next batch of keys (a list of bytes, possibly empty), or None once every\n"
          "shard is done.")
      .def_property_readonly(
          "address",
          [](const Scan &self) -> py::object {
            const char *a = self.h == nullptr ? nullptr : cr_scan_get_address(self.h);
            if (a == nullptr) return py::none();
            return py::str(a);
          },
          "'host:port' of the node the last batch came from; None before the first.")
      .def(
          "close", [](Scan &self) { self.Close("the scan"); }, "Frees the scan. Idempotent.");

  NativeClass<Script>(m, "Script", "A Lua script's body and SHA1, for Client.eval_script.")
      .def(py::init([](py::handle body) {
             KeyArg b;
             if (!b.Set(body.ptr(), "body")) throw py::error_already_set();
             cr_script *raw = nullptr;
             Check(cr_script_new(&raw, b.data(), b.size()));
             return Script{std::shared_ptr<cr_script>(raw, cr_script_free)};
           }),
           py::arg("body"))
      .def_property_readonly(
          "sha", [](const Script &self) { return std::string(cr_script_get_sha(self.s.get())); },
          "The SHA1 of the body: 40 lowercase hex digits.");

  NativeClass<Pinned>(m, "Pinned", "A connection pinned to one slot's master (from Client.pin).")
      .def("command", &PinnedCommand, py::arg("key_indexes"), py::arg("args"),
           py::arg("timeout_ms") = py::none(),
           "One command on the pinned connection; args[i] for i in key_indexes are its keys.")
      .def_property_readonly(
          "slot",
          [](const Pinned &self) {
            if (self.h == nullptr) ThrowInvalid("the pinned connection is closed");
            return cr_pinned_get_slot(self.h);
          },
          "The pinned slot.")
      .def(
          "close", [](Pinned &self) { self.Close("the pinned connection"); },
          "Releases the connection (DISCARD / UNWATCH first when needed). Idempotent.");

  auto client = py::reinterpret_borrow<py::class_<Client>>(m.attr("Client"));
  client
      .def("command_opts", &CommandOpts, py::arg("access"), py::arg("key_index"), py::arg("args"),
           py::arg("timeout_ms") = py::none(),
           "command() with a call-level timeout in ms (None: the tier's).")
      .def("command_nodes", &CommandNodes, py::arg("target"), py::arg("node"), py::arg("args"),
           py::arg("timeout_ms") = py::none(),
           "A command sent to nodes: target 0 = the node 'host:port', 1 = every master,\n"
           "2 = every node. A list of (address, Role, reply or exception).")
      .def("scan", &NewScan, py::arg("match") = py::none(), py::arg("count") = py::none(),
           py::arg("type") = py::none(), py::arg("timeout_ms") = py::none(),
           "A SCAN over every shard, each on the node a read would use.")
      .def("eval_script", &EvalScript, py::arg("script"), py::arg("read_only"), py::arg("keys"),
           py::arg("args"), py::arg("timeout_ms") = py::none(),
           "EVALSHA (EVALSHA_RO when read_only) routed by its keys; NOSCRIPT loads it once.")
      .def("fcall", &FCall, py::arg("function"), py::arg("read_only"), py::arg("keys"),
           py::arg("args"), py::arg("timeout_ms") = py::none(),
           "FCALL (FCALL_RO when read_only) routed by its keys.")
      .def("pin", &Pin, py::arg("key"),
           "A connection pinned to the master of key's slot, for a transaction.");
}

}  // namespace commands_cpp

void InitClientCommands(py::module_ &m) { commands_cpp::Init(m); }

}  // namespace crpy
