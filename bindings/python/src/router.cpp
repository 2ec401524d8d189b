// Router and Snapshot: thread-safe routing on the current snapshot
// (cr_router is safe for concurrent use; snapshots are immutable).
// Per-key calls keep the GIL (they take tens of nanoseconds, less than
// releasing it costs); update() and large batches release it.
#include "common.hpp"

namespace crpy {

namespace {

struct Snapshot {
  cr_snapshot *s = nullptr;
  explicit Snapshot(cr_snapshot *snap) : s(snap) {}
  Snapshot(const Snapshot &) = delete;
  Snapshot &operator=(const Snapshot &) = delete;
  ~Snapshot() { cr_snapshot_free(s); }
};

// A slot argument: InvalidArgumentError outside 0-16383.
uint16_t Slot(py::handle slot) {
  return static_cast<uint16_t>(BoundedInt(slot, "slot", 0, CR_SLOT_COUNT - 1));
}

using RouteFn = cr_status (*)(cr_route *, const cr_router *, const void *, size_t);
using SnapRouteFn = cr_status (*)(cr_route *, const cr_snapshot *, const void *, size_t);

py::object RouteKey(Router &self, RouteFn fn, py::handle key) {
  KeyArg k;
  if (!k.Set(key.ptr(), "key")) throw py::error_already_set();
  cr_route out = CR_ROUTE_INIT;
  Check(fn(&out, self.r, k.data(), k.size()));
  return MakeRoute(out);
}

py::object SnapRouteKey(const Snapshot &self, SnapRouteFn fn, py::handle key) {
  KeyArg k;
  if (!k.Set(key.ptr(), "key")) throw py::error_already_set();
  cr_route out = CR_ROUTE_INIT;
  Check(fn(&out, self.s, k.data(), k.size()));
  return MakeRoute(out);
}

void Update(Router &self, py::handle topology) {
  if (!py::isinstance<Topology>(topology)) {
    throw py::type_error("topology must be a cloudroute.Topology, not " +
                         std::string(Py_TYPE(topology.ptr())->tp_name));
  }
  cr_topology *t = topology.cast<Topology &>().t;  // kept alive by the caller's reference
  cr_status st;
  {
    py::gil_scoped_release nogil;
    st = cr_router_update(self.r, t);
  }
  Check(st);
}

std::string Explain(Router &self, py::handle key) {
  KeyArg k;
  if (!k.Set(key.ptr(), "key")) throw py::error_already_set();
  std::vector<char> buf(1024);
  for (;;) {
    size_t needed = 0;
    const cr_status st =
        cr_router_explain(buf.data(), buf.size(), &needed, self.r, k.data(), k.size());
    if (st == CR_EBUFS && needed > buf.size()) {
      buf.resize(needed);
      continue;
    }
    Check(st);
    return std::string(buf.data());
  }
}

py::list RouteReads(Router &self, py::handle keys) {
  KeyBatch batch;
  if (!batch.SetAll(keys.ptr(), "keys")) throw py::error_already_set();
  const size_t n = batch.size();
  const cr_route init = CR_ROUTE_INIT;
  std::vector<cr_route> out(n, init);
  cr_status st;
  if (n >= kNoGilBatch) {
    py::gil_scoped_release nogil;
    st = cr_router_route_read_batch(out.data(), nullptr, self.r, batch.ptrs(), batch.lens(), n);
  } else {
    st = cr_router_route_read_batch(out.data(), nullptr, self.r, batch.ptrs(), batch.lens(), n);
  }
  Check(st);
  py::list list(n);
  for (size_t i = 0; i < n; ++i) list[i] = MakeRoute(out[i]);
  return list;
}

}  // namespace

void InitRouter(py::module_ &m) {
  NativeClass<Snapshot>(m, "Snapshot",
                        "The router's state at one moment: routing on it needs no\n"
                        "synchronisation at all (take one per batch). Immutable; stays valid\n"
                        "after the router swaps topologies or is freed.")
      .def_property_readonly(
          "generation", [](const Snapshot &self) { return cr_snapshot_get_generation(self.s); },
          "Increases with every topology the router installs.")
      .def(
          "route_read",
          [](const Snapshot &self, py::handle key) {
            return SnapRouteKey(self, cr_snapshot_route_read, key);
          },
          py::arg("key"), "Route a read on this snapshot (see Router.route_read).")
      .def(
          "route_write",
          [](const Snapshot &self, py::handle key) {
            return SnapRouteKey(self, cr_snapshot_route_write, key);
          },
          py::arg("key"), "Route a write on this snapshot: the shard's master.")
      .def_property_readonly(
          "topology",
          [](const Snapshot &self) {
            cr_topology *t = cr_snapshot_get_topology(self.s);
            if (t == nullptr) Check(CR_ENOMEM);
            return py::cast(new Topology(t), py::return_value_policy::take_ownership);
          },
          "The Topology the snapshot was built from.");

  NativeClass<Router>(m, "Router",
                      "Thread-safe routing of keys to nodes: the master for a write, an ordered,\n"
                      "locality-aware candidate list for a read. Share one Router between threads.")
      .def(py::init([](py::handle config, py::handle topology) {
             auto router = std::make_unique<Router>();
             Check(cr_router_new(&router->r, ConfigOrNull(config)));
             if (!topology.is_none()) Update(*router, topology);
             return router;
           }),
           py::arg("config") = py::none(), py::arg("topology") = py::none(),
           "A router with a copy of config (None: defaults; later changes to config do\n"
           "not affect it) and, when given, topology installed.")
      .def("update", &Update, py::arg("topology"),
           "Install a topology: candidate sets are rebuilt for every shard and swapped in\n"
           "atomically (readers never see a half-built state). Call on every refresh.\n"
           "Releases the GIL.")
      .def(
          "route_read",
          [](Router &self, py::handle key) { return RouteKey(self, cr_router_route_read, key); },
          py::arg("key"),
          "Route a read: a node among the key's shard's candidates (weighted among equal\n"
          "rank, skipping nodes marked down). Raises NoTopologyError, SlotUncoveredError,\n"
          "UnavailableError.")
      .def(
          "route_write",
          [](Router &self, py::handle key) { return RouteKey(self, cr_router_route_write, key); },
          py::arg("key"),
          "Route a write: always the shard's master, whatever its health. Raises\n"
          "UnavailableError when the master's endpoint is unknown.")
      .def(
          "route_read_slot",
          [](Router &self, py::handle slot) {
            cr_route out = CR_ROUTE_INIT;
            Check(cr_router_route_read_slot(&out, self.r, U32(slot, "slot")));
            return MakeRoute(out);
          },
          py::arg("slot"),
          "route_read by slot (0-16383) instead of key, for clients that already\n"
          "computed the slot (redis-py). Raises InvalidArgumentError outside the range.")
      .def(
          "route_write_slot",
          [](Router &self, py::handle slot) {
            cr_route out = CR_ROUTE_INIT;
            Check(cr_router_route_write_slot(&out, self.r, U32(slot, "slot")));
            return MakeRoute(out);
          },
          py::arg("slot"), "route_write by slot (0-16383): the slot's master.")
      .def("route_reads", &RouteReads, py::arg("keys"),
           "Route reads for many keys in one call: a list of Route, one per key.\n"
           "Raises the error of the first key that cannot be routed.")
      .def(
          "candidates",
          [](Router &self, py::handle key) {
            KeyArg k;
            if (!k.Set(key.ptr(), "key")) throw py::error_already_set();
            return Candidates([&](cr_candidate *buf, size_t cap, size_t *count) {
              return cr_router_candidates(buf, cap, count, self.r, k.data(), k.size());
            });
          },
          py::arg("key"), "The ordered read candidates of the key's shard (list of Candidate).")
      .def(
          "slot_candidates",
          [](Router &self, py::handle slot) {
            const uint32_t s = U32(slot, "slot");
            return Candidates([&](cr_candidate *buf, size_t cap, size_t *count) {
              return cr_router_candidates_slot(buf, cap, count, self.r, s);
            });
          },
          py::arg("slot"), "The ordered read candidates of a slot (0-16383).")
      .def("explain", &Explain, py::arg("key"),
           "Why each candidate of the key sits where it does, as text (what\n"
           "`cloudroute route --explain` prints).")
      .def(
          "report_moved",
          [](Router &self, py::handle slot, py::handle host, py::handle port) {
            const std::string h = CString(host, "host");
            Check(cr_router_report_moved(self.r, U32(slot, "slot"), h.c_str(), Port(port)));
          },
          py::arg("slot"), py::arg("host"), py::arg("port"),
          "A MOVED reply: slot now lives at host:port. Patches the slot at once and\n"
          "flags a refresh (see refresh_needed).")
      .def(
          "report_ask",
          [](Router &self, py::handle slot, py::handle host, py::handle port) {
            const std::string h = CString(host, "host");
            cr_route out = CR_ROUTE_INIT;
            Check(cr_router_report_ask(&out, self.r, U32(slot, "slot"), h.c_str(), Port(port)));
            return MakeRoute(out);
          },
          py::arg("slot"), py::arg("host"), py::arg("port"),
          "An ASK reply: a one-shot redirect. Routing is unchanged; returns the Route to\n"
          "send ASKING + the command to, once.")
      .def(
          "report_failure",
          [](Router &self, py::handle node) {
            Check(cr_router_report_failure(self.r, U32(node, "node")));
          },
          py::arg("node_handle"),
          "A failed request to a node handle (Route.node_handle / Candidate.node_handle). After\n"
          "failure_threshold consecutive failures the node is skipped for\n"
          "down_cooldown_ms, then probed once.")
      .def(
          "report_success",
          [](Router &self, py::handle node) {
            Check(cr_router_report_success(self.r, U32(node, "node")));
          },
          py::arg("node_handle"), "A successful request to a node handle: closes its breaker.")
      .def(
          "set_rtt",
          [](Router &self, py::handle node, py::handle rtt_us) {
            Check(cr_router_set_rtt(self.r, U32(node, "node"), U32(rtt_us, "rtt_us")));
          },
          py::arg("node_handle"), py::arg("rtt_us"),
          "A measured round-trip time for a node handle (used by Policy.NEAREST).")
      .def(
          "set_node_zone",
          [](Router &self, py::handle host, py::handle port, py::handle zone) {
            const std::string h = CString(host, "host"), z = CString(zone, "zone");
            Check(cr_router_set_node_zone(self.r, h.c_str(), Port(port), z.c_str()));
          },
          py::arg("host"), py::arg("port"), py::arg("zone"),
          "A zone a node reported about itself (HELLO / INFO), by host and port.")
      .def(
          "set_replica_lagging",
          [](Router &self, py::handle host, py::handle port, py::handle lagging) {
            const std::string h = CString(host, "host");
            Check(cr_router_set_replica_lagging(self.r, h.c_str(), Port(port),
                                                py::cast<bool>(lagging) ? 1 : 0));
          },
          py::arg("host"), py::arg("port"), py::arg("lagging") = true,
          "Marks a replica as lagging past the bound the caller enforces (it is then read\n"
          "only after every other candidate), or clears the mark (lagging=False). The live\n"
          "Client does this itself with replica_max_lag_bytes / replica_max_lag_s.")
      .def(
          "report_migrating",
          [](Router &self, py::handle slot, py::handle migrating) {
            Check(cr_router_set_slot_migrating(self.r, Slot(slot),
                                               py::cast<bool>(migrating) ? 1 : 0));
          },
          py::arg("slot"), py::arg("migrating") = true,
          "Slot migration feedback (CLUSTER SETSLOT MIGRATING seen, or an ASK): while\n"
          "the slot is marked, its reads go to its master (replicas would answer nil for\n"
          "keys already moved). migrating=False clears the mark; a mark expires 60 s\n"
          "after it was last set.")
      .def(
          "slot_migrating",
          [](const Router &self, py::handle slot) {
            return cr_router_get_slot_migrating(self.r, Slot(slot)) != 0;
          },
          py::arg("slot"), "True while reads of slot go to its master because it is migrating.")
      .def_property_readonly(
          "refresh_needed",
          [](const Router &self) { return cr_router_get_refresh_needed(self.r) != 0; },
          "True when a MOVED asked for a topology refresh since the last update().")
      .def(
          "node_handle",
          [](Router &self, py::handle host, py::handle port) {
            const std::string h = CString(host, "host");
            uint32_t handle = 0;
            Check(cr_router_find_node(&handle, self.r, h.c_str(), Port(port)));
            return handle;
          },
          py::arg("host"), py::arg("port"),
          "The handle of host:port. Raises NotFoundError if never seen or reclaimed since.")
      .def(
          "snapshot",
          [](Router &self) {
            cr_snapshot *s = nullptr;
            Check(cr_router_get_snapshot(&s, self.r));
            return std::make_unique<Snapshot>(s);
          },
          "The current Snapshot. Raises NoTopologyError before the first update().");
}

py::object BorrowedRouter(cr_router *r, std::shared_ptr<void> owner) {
  auto router = std::make_unique<Router>();
  router->r = r;
  router->owner = std::move(owner);
  return py::cast(std::move(router));
}

}  // namespace crpy
