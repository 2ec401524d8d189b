// Topology: parsing CLUSTER SLOTS / CLUSTER SHARDS replies and static text,
// and reading the immutable, reference-counted cr_topology.
#include <algorithm>

#include "common.hpp"

namespace crpy {

namespace {

py::object Wrap(cr_topology *t) {
  return py::cast(new Topology(t), py::return_value_policy::take_ownership);
}

void SetCap32(py::handle v, const char *what, uint32_t *field) {
  if (!v.is_none()) *field = static_cast<uint32_t>(BoundedInt(v, what, 1, UINT32_MAX));
}
void SetCap64(py::handle v, const char *what, uint64_t *field) {
  if (!v.is_none()) *field = static_cast<uint64_t>(BoundedInt(v, what, 1, INT64_MAX));
}

py::object ParseReply(py::handle reply, cr_topology_format kind, py::handle default_host,
                      py::handle max_elements, py::handle max_depth, py::handle max_bulk_len,
                      py::handle max_total_bytes) {
  if (PyUnicode_Check(reply.ptr())) {
    throw py::type_error("reply must be the raw bytes of the reply (bytes-like), not str");
  }
  KeyArg bytes;
  if (!bytes.Set(reply.ptr(), "reply")) throw py::error_already_set();
  cr_parse_options opts;
  cr_parse_options_init(&opts, sizeof opts);  // the library's defaults for every cap left as None
  SetCap32(max_elements, "max_elements", &opts.max_elements);
  SetCap32(max_depth, "max_depth", &opts.max_depth);
  SetCap64(max_bulk_len, "max_bulk_len", &opts.max_bulk_len);
  SetCap64(max_total_bytes, "max_total_bytes", &opts.max_total_bytes);
  std::string host;
  if (!default_host.is_none()) {
    host = CString(default_host, "default_host");
    opts.default_host = host.c_str();
  }
  cr_topology *t = nullptr;
  cr_status st;
  {
    py::gil_scoped_release nogil;
    st = cr_topology_parse(&t, bytes.data(), bytes.size(), kind, &opts);
  }
  Check(st);
  return Wrap(t);
}

const char *const kParseDoc =
    "Parse the raw bytes of a {} reply (RESP2 or RESP3, as read off the\n"
    "socket) into a Topology.\n\n"
    "default_host fills endpoints the server reports as empty (the address that\n"
    "was asked). The max_* caps bound the parser (None: the library's defaults).\n"
    "Raises ParseError (malformed, with the byte offset), IncompleteError (the\n"
    "bytes end before the reply does), LimitError (a cap was exceeded).";

std::string ParseDoc(const char *what) {
  std::string doc = kParseDoc;
  doc.replace(doc.find("{}"), 2, what);
  return doc;
}

py::object ParseStatic(py::handle text) {
  KeyArg k;  // str (as UTF-8) or bytes-like
  if (!k.Set(text.ptr(), "text")) throw py::error_already_set();
  cr_topology *t = nullptr;
  cr_status st;
  {
    py::gil_scoped_release nogil;
    st = cr_topology_parse_static(&t, k.data(), k.size());
  }
  Check(st);
  return Wrap(t);
}

// redis-py's slot table (slot -> [primary, replicas...], the node objects
// shared by every slot of a range) as runs of consecutive slots whose lists
// hold the same objects in the same order: [(first, last, nodes), ...]. A
// slot missing, None or empty is a gap. _cluster_reads formats each run's
// addresses once; this saves it a Python step for each of the 16384 slots.
// No Python code runs here (the dict and its lists stay as they are).
py::list SlotRuns(py::handle cache) {
  if (!PyDict_Check(cache.ptr())) throw py::type_error("slots_cache must be a dict");
  std::vector<PyObject *> at(CR_SLOT_COUNT, nullptr);
  PyObject *key = nullptr, *value = nullptr;
  Py_ssize_t pos = 0;
  while (PyDict_Next(cache.ptr(), &pos, &key, &value)) {
    if (!PyLong_Check(key)) continue;
    int overflow = 0;
    const long slot = PyLong_AsLongAndOverflow(key, &overflow);
    if (overflow != 0 || slot < 0 || slot >= static_cast<long>(CR_SLOT_COUNT)) continue;
    if (value != Py_None && !PyList_Check(value) && !PyTuple_Check(value)) {
      throw py::type_error("slots_cache[" + std::to_string(slot) +
                           "] must be a list of nodes, not " + Py_TYPE(value)->tp_name);
    }
    if (value != Py_None && PySequence_Fast_GET_SIZE(value) > 0)
      at[static_cast<size_t>(slot)] = value;
  }
  const auto same = [](PyObject *a, PyObject *b) {
    if (a == b) return true;
    if (a == nullptr || b == nullptr) return false;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(a);
    if (n != PySequence_Fast_GET_SIZE(b)) return false;
    PyObject **x = PySequence_Fast_ITEMS(a), **y = PySequence_Fast_ITEMS(b);
    return std::equal(x, x + n, y);
  };
  py::list runs;
  size_t first = 0;
  for (size_t slot = 1; slot <= at.size(); ++slot) {
    if (slot < at.size() && same(at[slot], at[first])) continue;
    if (at[first] != nullptr) {
      runs.append(py::make_tuple(first, slot - 1, py::reinterpret_borrow<py::object>(at[first])));
    }
    first = slot;
  }
  return runs;
}

size_t Index(py::handle i, const char *what) {
  return static_cast<size_t>(BoundedInt(i, what, 0, UINT32_MAX));
}

py::object NodeAt(const Topology &self, size_t i) {
  cr_node_info info = CR_NODE_INFO_INIT;
  Check(cr_topology_get_node(&info, self.t, i));
  return MakeNode(info);
}

py::list Ranges(const Topology &self, size_t shard) {
  std::vector<uint16_t> starts(8), ends(8);
  size_t count = 0;
  cr_status st = cr_topology_get_shard_ranges(starts.data(), ends.data(), starts.size(), &count,
                                              self.t, shard);
  if (st == CR_EBUFS) {
    starts.resize(count);
    ends.resize(count);
    st = cr_topology_get_shard_ranges(starts.data(), ends.data(), starts.size(), &count, self.t,
                                      shard);
  }
  Check(st);
  py::list out;
  for (size_t i = 0; i < count; ++i) out.append(py::make_tuple(starts[i], ends[i]));
  return out;
}

std::string ShardId(const Topology &self, size_t shard) {
  const char *id = nullptr;
  Check(cr_topology_get_shard_id(&id, self.t, shard));
  return id;
}

}  // namespace

void InitTopology(py::module_ &m) {
  NativeClass<Topology>(m, "Topology",
                        "An immutable snapshot of shards and nodes, from parse_cluster_slots(),\n"
                        "parse_cluster_shards() or parse_static(). Safe to share between threads.")
      .def_property_readonly(
          "shard_count", [](const Topology &self) { return cr_topology_get_shard_count(self.t); },
          "Number of shards.")
      .def_property_readonly(
          "node_count", [](const Topology &self) { return cr_topology_get_node_count(self.t); },
          "Number of nodes.")
      .def(
          "node",
          [](const Topology &self, py::handle i) { return NodeAt(self, Index(i, "index")); },
          py::arg("index"), "Node number index (0 <= index < node_count).")
      .def_property_readonly(
          "nodes",
          [](const Topology &self) {
            py::list out;
            const size_t n = cr_topology_get_node_count(self.t);
            for (size_t i = 0; i < n; ++i) out.append(NodeAt(self, i));
            return out;
          },
          "Every node, in the topology's order.")
      .def(
          "shard_id",
          [](const Topology &self, py::handle s) { return ShardId(self, Index(s, "shard")); },
          py::arg("shard"),
          "The shard's identity: its master's node id (or 'host:port' when the reply\n"
          "gave no ids).")
      .def(
          "shard_ranges",
          [](const Topology &self, py::handle s) { return Ranges(self, Index(s, "shard")); },
          py::arg("shard"),
          "The shard's inclusive slot ranges [(start, end), ...], sorted by start.")
      .def(
          "slot_shard",
          [](const Topology &self, py::handle slot) {
            uint32_t shard = 0;
            Check(cr_topology_get_slot_shard(&shard, self.t, U32(slot, "slot")));
            return shard;
          },
          py::arg("slot"),
          "The index of the shard serving slot. Raises SlotUncoveredError when none.")
      .def_property_readonly(
          "shards",
          [](const Topology &self) {
            const size_t shards = cr_topology_get_shard_count(self.t);
            std::vector<py::list> members(shards);
            const size_t nodes = cr_topology_get_node_count(self.t);
            for (size_t i = 0; i < nodes; ++i) {
              cr_node_info info = CR_NODE_INFO_INIT;
              Check(cr_topology_get_node(&info, self.t, i));
              if (info.shard < shards) members[info.shard].append(MakeNode(info));
            }
            py::list out;
            for (size_t s = 0; s < shards; ++s) {
              const char *id = nullptr;
              Check(cr_topology_get_shard_id(&id, self.t, s));
              out.append(MakeShard(s, id, Ranges(self, s), members[s]));
            }
            return out;
          },
          "Every shard: Shard(number, id, ranges, nodes).")
      .def("__repr__", [](const Topology &self) {
        return "<cloudroute.Topology shards=" +
               std::to_string(cr_topology_get_shard_count(self.t)) +
               " nodes=" + std::to_string(cr_topology_get_node_count(self.t)) + ">";
      });

  const auto kw = [](const char *name) { return py::arg(name) = py::none(); };
  m.def(
      "parse_cluster_slots",
      [](py::handle reply, py::handle default_host, py::handle me, py::handle md, py::handle mb,
         py::handle mt) {
        return ParseReply(reply, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, default_host, me, md, mb, mt);
      },
      py::arg("reply"), py::kw_only(), kw("default_host"), kw("max_elements"), kw("max_depth"),
      kw("max_bulk_len"), kw("max_total_bytes"), ParseDoc("CLUSTER SLOTS").c_str());
  m.def(
      "parse_cluster_shards",
      [](py::handle reply, py::handle default_host, py::handle me, py::handle md, py::handle mb,
         py::handle mt) {
        return ParseReply(reply, CR_TOPOLOGY_FORMAT_CLUSTER_SHARDS, default_host, me, md, mb, mt);
      },
      py::arg("reply"), py::kw_only(), kw("default_host"), kw("max_elements"), kw("max_depth"),
      kw("max_bulk_len"), kw("max_total_bytes"), ParseDoc("CLUSTER SHARDS").c_str());
  m.def("slot_runs", &SlotRuns, py::arg("slots_cache"),
        "redis-py's slot table (slot -> list of node objects) as runs of\n"
        "consecutive slots whose lists hold the same objects in the same order:\n"
        "[(first, last, nodes), ...]; a slot missing, None or empty is a gap.\n"
        "Raises TypeError when slots_cache is not a dict or a slot's value is\n"
        "not a list (or tuple) of nodes.");
  m.def("parse_static", &ParseStatic, py::arg("text"),
        "A topology from static text, for deployments without cluster mode. One\n"
        "shard per line, '#' starts a comment:\n\n"
        "    shard slots=0-8191,10000 master=10.0.0.1:6379 replicas=10.1.0.1:6379 [id=NAME]\n\n"
        "slots= may be omitted on a single-shard text (it then owns every slot).\n"
        "text is str or bytes. Raises ParseError naming the line.");
}

}  // namespace crpy
