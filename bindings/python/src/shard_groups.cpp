// Sentinel shard groups: N groups (a master plus replicas each, as Sentinel
// reports them), a ring placing keys on groups, reads spread by locality and
// weight. cr_shard_groups is safe for concurrent use, so is this object.
#include "common.hpp"

namespace crpy {

namespace shard_groups_cpp {

// A group by index or by name.
uint32_t Group(const ShardGroups &self, py::handle group) {
  if (PyUnicode_Check(group.ptr())) {
    const std::string name = CString(group, "group");
    uint32_t index = 0;
    Check(cr_shard_groups_find(&index, self.g, name.c_str()));
    return index;
  }
  if (!PyIndex_Check(group.ptr()) || PyBool_Check(group.ptr())) {
    throw py::type_error("group must be an int index or a str name, not " +
                         std::string(Py_TYPE(group.ptr())->tp_name));
  }
  return U32(group, "group");
}

using RouteFn = cr_status (*)(cr_route *, const cr_shard_groups *, const void *, size_t);

py::object RouteKey(ShardGroups &self, RouteFn fn, py::handle key) {
  KeyArg k;
  if (!k.Set(key.ptr(), "key")) throw py::error_already_set();
  cr_route out = CR_ROUTE_INIT;
  Check(fn(&out, self.g, k.data(), k.size()));
  return MakeRoute(out);
}

}  // namespace shard_groups_cpp

namespace shard_groups_cpp {

void Init(py::module_ &m) {
  NativeClass<ShardGroups>(
      m, "ShardGroups",
      "Client-side sharding over Sentinel-managed groups: a ring places each key on a\n"
      "group (ring shard i is group i); writes go to the group's master, reads to a\n"
      "locality-ranked, weighted pick among its instances. Safe to share between threads.")
      .def(py::init([](py::handle config) {
             auto groups = std::make_unique<ShardGroups>();
             Check(cr_shard_groups_new(&groups->g, ConfigOrNull(config)));
             return groups;
           }),
           py::arg("config") = py::none(),
           "A table with a copy of config's locality, weights, breaker settings and seed\n"
           "(the read policy does not apply).")
      .def(
          "add",
          [](ShardGroups &self, py::handle name) {
            const std::string n = CString(name, "name");
            uint32_t index = 0;
            Check(cr_shard_groups_add(&index, self.g, n.c_str()));
            return index;
          },
          py::arg("name"), "Add a group (the name Sentinel monitors it under); returns its index.")
      .def(
          "find",
          [](const ShardGroups &self, py::handle name) {
            const std::string n = CString(name, "name");
            uint32_t index = 0;
            Check(cr_shard_groups_find(&index, self.g, n.c_str()));
            return index;
          },
          py::arg("name"), "The index of a group by name. Raises NotFoundError.")
      .def("__len__", [](const ShardGroups &self) { return cr_shard_groups_get_count(self.g); })
      .def(
          "set_ring",
          [](ShardGroups &self, py::handle ring) {
            if (!py::isinstance<Ring>(ring)) {
              throw py::type_error("ring must be a cloudroute.Ring, not " +
                                   std::string(Py_TYPE(ring.ptr())->tp_name));
            }
            Check(cr_shard_groups_set_ring(self.g, ring.cast<Ring &>().ring));
          },
          py::arg("ring"),
          "Key -> group: ring shard i is group i; the ring's shard count must equal the\n"
          "group count.")
      .def(
          "set_master",
          [](ShardGroups &self, py::handle group, py::handle host, py::handle port) {
            const uint32_t g = Group(self, group);
            if (host.is_none()) {
              Check(cr_shard_groups_set_master(self.g, g, nullptr, 0));
              return;
            }
            const std::string h = CString(host, "host");
            Check(cr_shard_groups_set_master(self.g, g, h.c_str(), Port(port)));
          },
          py::arg("group"), py::arg("host"), py::arg("port") = 0,
          "The group's current master (SENTINEL get-master-addr-by-name, +switch-master);\n"
          "host None forgets it (writes then raise UnavailableError). group is an index\n"
          "or a name.")
      .def(
          "set_replicas",
          [](ShardGroups &self, py::handle group, py::handle replicas) {
            const uint32_t g = Group(self, group);
            std::vector<std::string> hosts;
            std::vector<uint16_t> ports;
            for (py::handle r : py::iter(replicas)) {
              if (!(PyTuple_Check(r.ptr()) || PyList_Check(r.ptr())) || py::len(r) != 2) {
                throw py::type_error("replicas must be (host, port) pairs");
              }
              py::sequence pair = py::reinterpret_borrow<py::sequence>(r);
              hosts.push_back(CString(pair[0], "host"));
              ports.push_back(Port(pair[1]));
            }
            std::vector<cr_address> list;
            for (size_t i = 0; i < hosts.size(); ++i)
              list.push_back(cr_address{hosts[i].c_str(), ports[i]});
            Check(cr_shard_groups_set_replicas(self.g, g, list.data(), list.size()));
          },
          py::arg("group"), py::arg("replicas"),
          "Replace the group's replicas with (host, port) pairs (SENTINEL replicas, less\n"
          "those flagged down).")
      .def(
          "locate",
          [](const ShardGroups &self, py::handle key) {
            KeyArg k;
            if (!k.Set(key.ptr(), "key")) throw py::error_already_set();
            uint32_t group = 0;
            Check(cr_shard_groups_locate(&group, self.g, k.data(), k.size()));
            return group;
          },
          py::arg("key"), "The group of a key. Raises NoTopologyError until a ring is set.")
      .def(
          "route_write",
          [](ShardGroups &self, py::handle key) {
            return RouteKey(self, cr_shard_groups_route_write, key);
          },
          py::arg("key"), "The key's group's master (Route.shard is the group).")
      .def(
          "route_read",
          [](ShardGroups &self, py::handle key) {
            return RouteKey(self, cr_shard_groups_route_read, key);
          },
          py::arg("key"),
          "An instance of the key's group: nearest tier first, weighted pick inside it,\n"
          "skipping instances whose breaker is open.")
      .def(
          "read_order",
          [](ShardGroups &self, py::handle key) {
            KeyArg k;
            if (!k.Set(key.ptr(), "key")) throw py::error_already_set();
            return Candidates([&](cr_candidate *buf, size_t cap, size_t *count) {
              return cr_shard_groups_candidates(buf, cap, count, self.g, k.data(), k.size());
            });
          },
          py::arg("key"),
          "The whole read order of the key's group (try each until one answers): the\n"
          "weighted pick, the rest of its rank, then the next ranks; instances whose\n"
          "breaker is open come last with down=True.")
      .def(
          "report_failure",
          [](ShardGroups &self, py::handle node) {
            Check(cr_shard_groups_report_failure(self.g, U32(node, "node")));
          },
          py::arg("node_handle"), "A failed request to an instance handle (Route.node_handle).")
      .def(
          "report_success",
          [](ShardGroups &self, py::handle node) {
            Check(cr_shard_groups_report_success(self.g, U32(node, "node")));
          },
          py::arg("node_handle"), "A successful request to an instance handle.");
}

}  // namespace shard_groups_cpp

void InitShardGroups(py::module_ &m) { shard_groups_cpp::Init(m); }

py::object BorrowedShardGroups(cr_shard_groups *g, std::shared_ptr<void> owner) {
  auto groups = std::make_unique<ShardGroups>();
  groups->g = g;
  groups->owner = std::move(owner);
  return py::cast(std::move(groups));
}

}  // namespace crpy
