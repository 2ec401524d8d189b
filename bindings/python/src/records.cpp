// The result records: cloudroute.Route, Candidate, Node and Shard, as
// struct sequences (named, immutable tuples made in C: cheap on the routing
// path, picklable, with a readable repr). Role, tier and health fields carry
// the members of the str enums in cloudroute/_types.py.
#include <array>
#include <cstring>

#include "common.hpp"

namespace crpy {

namespace {

PyTypeObject *g_route = nullptr;
PyTypeObject *g_candidate = nullptr;
PyTypeObject *g_node = nullptr;
PyTypeObject *g_shard = nullptr;

// Enum members by C value (owned for the life of the process).
std::array<PyObject *, 2> g_roles{};
std::array<PyObject *, 5> g_tiers{};
std::array<PyObject *, 3> g_healths{};

PyStructSequence_Field kRouteFields[] = {
    {"host", "the node's host name or IP"},
    {"port", "the node's port"},
    {"role", "Role.MASTER or Role.REPLICA"},
    {"tier", "locality tier of the node as seen from the client (Tier)"},
    {"slot", "the key's cluster slot (0 for shard groups)"},
    {"shard", "shard index in the topology, or shard-group index"},
    {"node_handle",
     "node handle, for report_failure/report_success/set_rtt (NotFoundError once the router "
     "has reclaimed the node: gone from its current and previous topology)"},
    {nullptr, nullptr}};
PyStructSequence_Desc kRouteDesc = {
    "cloudroute.Route",
    "Route(host, port, role, tier, slot, shard, node_handle): where a "
    "key is served.",
    kRouteFields, 7};

PyStructSequence_Field kCandidateFields[] = {
    {"host", "the node's host name or IP"},
    {"port", "the node's port"},
    {"role", "Role.MASTER or Role.REPLICA"},
    {"tier", "locality tier (Tier)"},
    {"rank", "candidates of equal rank are chosen among by weight; lower first"},
    {"weight", "relative read weight"},
    {"rtt_us",
     "round-trip time in microseconds the order was built with, 0 when none (policy "
     "nearest rebuilds on each set_rtt, others at their next rebuild)"},
    {"down", "True when the health breaker currently skips the node"},
    {"node_handle", "node handle (as Route.node_handle)"},
    {nullptr, nullptr}};
PyStructSequence_Desc kCandidateDesc = {
    "cloudroute.Candidate",
    "Candidate(host, port, role, tier, rank, weight, rtt_us, down, node_handle): one entry of an "
    "ordered read set.",
    kCandidateFields, 9};

PyStructSequence_Field kNodeFields[] = {{"id", "node id ('' when the reply gave none)"},
                                        {"host", "endpoint: host name or IP; '?' when unknown"},
                                        {"ip", "IP when the reply gave one separately, else ''"},
                                        {"port", "port"},
                                        {"tls_port", "TLS port, 0 when none"},
                                        {"role", "Role.MASTER or Role.REPLICA"},
                                        {"health", "Health as the server reported it"},
                                        {"zone", "server-reported availability zone, '' when none"},
                                        {"shard", "index of the node's shard"},
                                        {nullptr, nullptr}};
PyStructSequence_Desc kNodeDesc = {
    "cloudroute.Node",
    "Node(id, host, ip, port, tls_port, role, health, zone, shard): a node of a topology.",
    kNodeFields, 9};

PyStructSequence_Field kShardFields[] = {
    {"number", "the shard's index in the topology (Node.shard, Route.shard)"},
    {"id", "the shard's identity: its master's node id (or host:port)"},
    {"ranges", "inclusive slot ranges [(start, end), ...], sorted"},
    {"nodes", "the shard's nodes"},
    {nullptr, nullptr}};
PyStructSequence_Desc kShardDesc = {"cloudroute.Shard",
                                    "Shard(number, id, ranges, nodes): a shard of a topology.",
                                    kShardFields, 4};

PyTypeObject *NewType(PyStructSequence_Desc *desc) {
  PyTypeObject *t = PyStructSequence_NewType(desc);
  if (t == nullptr) throw py::error_already_set();
  return t;
}

template <size_t N>
void LoadEnum(std::array<PyObject *, N> *out, py::handle cls,
              const std::array<const char *, N> &names) {
  for (size_t i = 0; i < N; ++i) (*out)[i] = cls(names[i]).release().ptr();
}

PyObject *Member(PyObject *const *table, size_t n, long value) {
  if (value >= 0 && static_cast<size_t>(value) < n) {
    Py_INCREF(table[value]);
    return table[value];
  }
  return PyLong_FromLong(value);  // a value newer than this binding
}

PyObject *Str(const char *s) {
  return PyUnicode_DecodeUTF8(s, static_cast<Py_ssize_t>(std::strlen(s)), "backslashreplace");
}

// Fills a struct sequence from new references; any NULL makes it fail.
py::object Fill(PyTypeObject *type, std::initializer_list<PyObject *> items) {
  PyObject *o = PyStructSequence_New(type);
  Py_ssize_t i = 0;
  bool ok = o != nullptr;
  for (PyObject *item : items) {
    if (item == nullptr) ok = false;
    if (ok) {
      PyStructSequence_SetItem(o, i, item);  // steals
    } else {
      Py_XDECREF(item);
    }
    ++i;
  }
  if (!ok) {
    Py_XDECREF(o);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(o);
}

}  // namespace

void InitRecords(py::module_ &m) {
  g_route = NewType(&kRouteDesc);
  g_candidate = NewType(&kCandidateDesc);
  g_node = NewType(&kNodeDesc);
  g_shard = NewType(&kShardDesc);
  // Their __module__ is "cloudroute" (from the dotted name): pickling finds
  // them there, where the package re-exports them.
  m.add_object("Route", py::handle(reinterpret_cast<PyObject *>(g_route)));
  m.add_object("Candidate", py::handle(reinterpret_cast<PyObject *>(g_candidate)));
  m.add_object("Node", py::handle(reinterpret_cast<PyObject *>(g_node)));
  m.add_object("Shard", py::handle(reinterpret_cast<PyObject *>(g_shard)));

  py::module_ types = py::module_::import("cloudroute._types");
  // The C enums are pinned; their names come from the C library where it
  // names them (tiers), and from the header's comments otherwise.
  LoadEnum<2>(&g_roles, types.attr("Role"), {"master", "replica"});
  LoadEnum<5>(&g_tiers, types.attr("Tier"),
              {cr_tier_name(CR_TIER_LOCAL), cr_tier_name(CR_TIER_SAME_REGION),
               cr_tier_name(CR_TIER_SAME_CLOUD), cr_tier_name(CR_TIER_OTHER_CLOUD),
               cr_tier_name(CR_TIER_UNKNOWN)});
  LoadEnum<3>(&g_healths, types.attr("Health"), {"online", "loading", "failed"});
}

py::object MakeRoute(const cr_route &r) {
  return Fill(g_route,
              {Str(r.host != nullptr ? r.host : "?"), PyLong_FromUnsignedLong(r.port),
               Member(g_roles.data(), g_roles.size(), r.role),
               Member(g_tiers.data(), g_tiers.size(), r.tier), PyLong_FromUnsignedLong(r.slot),
               PyLong_FromUnsignedLong(r.shard), PyLong_FromUnsignedLong(r.node_handle)});
}

py::object MakeCandidate(const cr_candidate &c) {
  return Fill(g_candidate,
              {Str(c.host != nullptr ? c.host : "?"), PyLong_FromUnsignedLong(c.port),
               Member(g_roles.data(), g_roles.size(), c.role),
               Member(g_tiers.data(), g_tiers.size(), c.tier), PyLong_FromUnsignedLong(c.rank),
               PyLong_FromUnsignedLong(c.weight), PyLong_FromUnsignedLong(c.rtt_us),
               PyBool_FromLong(c.down), PyLong_FromUnsignedLong(c.node_handle)});
}

py::object MakeNode(const cr_node_info &n) {
  return Fill(g_node,
              {Str(n.id != nullptr ? n.id : ""), Str(n.host != nullptr ? n.host : "?"),
               Str(n.ip != nullptr ? n.ip : ""), PyLong_FromUnsignedLong(n.port),
               PyLong_FromUnsignedLong(n.tls_port), Member(g_roles.data(), g_roles.size(), n.role),
               Member(g_healths.data(), g_healths.size(), n.health),
               Str(n.zone != nullptr ? n.zone : ""), PyLong_FromUnsignedLong(n.shard)});
}

py::object TierMember(int tier) {
  PyObject *o = Member(g_tiers.data(), g_tiers.size(), tier);
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

py::object MakeShard(size_t index, const char *id, py::object ranges, py::object nodes) {
  return Fill(g_shard, {PyLong_FromSize_t(index), Str(id != nullptr ? id : ""),
                        ranges.release().ptr(), nodes.release().ptr()});
}

}  // namespace crpy
