// Configuration: the opaque cr_config builder (locality, weights, router
// options). Every setter validates at once (a bad CIDR raises ParseError at
// the line that added it) and returns the Config, so calls chain.
// Thread-safety: a Config is used by one thread at a time (its calls never
// release the GIL); Router/ShardGroups copy it when they are created.
#include "common.hpp"

namespace crpy {

namespace {

using Setter2 = cr_status (*)(cr_config *, const char *, const char *);

py::object Set2(py::object self, Setter2 fn, py::handle a, const char *a_name, py::handle b,
                const char *b_name) {
  Config &c = self.cast<Config &>();
  const std::string x = CString(a, a_name), y = CString(b, b_name);
  Check(fn(c.cfg, x.c_str(), y.c_str()));
  return self;
}

}  // namespace

void InitConfig(py::module_ &m) {
  NativeClass<Config>(m, "Config", "Locality, weights and router options: the cr_config builder.")
      .def(py::init<>())
      .def(
          "set_client_location",
          [](py::object self, py::handle location) {
            const std::string loc = CString(location, "location");
            Check(cr_config_set_client_location(self.cast<Config &>().cfg, loc.c_str()));
            return self;
          },
          py::arg("location"),
          "The client's own location: 'cloud[/region[/zone]]', e.g. 'aws/us-east-1/use1-az1'.")
      .def(
          "set_client_zone",
          [](py::object self, py::handle zone) {
            const std::string z = CString(zone, "zone");
            Check(cr_config_set_client_zone(self.cast<Config &>().cfg, z.c_str()));
            return self;
          },
          py::arg("zone"),
          "The client's zone as the servers name it (availability-zone, e.g. 'use1-az2';\n"
          "GLIDE's client_az): nodes reporting it are Tier.LOCAL, nodes reporting another\n"
          "zone Tier.SAME_REGION. No zone table needed.")
      .def(
          "add_local_cidr",
          [](py::object self, py::handle cidr) {
            const std::string c = CString(cidr, "cidr");
            Check(cr_config_add_local_cidr(self.cast<Config &>().cfg, c.c_str()));
            return self;
          },
          py::arg("cidr"),
          "Nodes whose address is in cidr ('10.0.0.0/24', 'fd00::/8') are in the\n"
          "client's own zone (Tier.LOCAL).")
      .def(
          "add_location_rule",
          [](py::object self, py::handle cidr, py::handle location) {
            return Set2(self, cr_config_add_location_rule, cidr, "cidr", location, "location");
          },
          py::arg("cidr"), py::arg("location"),
          "Nodes whose address is in cidr are at 'cloud[/region[/zone]]'; the longest\n"
          "matching prefix wins.")
      .def(
          "add_node_location",
          [](py::object self, py::handle node, py::handle location) {
            return Set2(self, cr_config_add_node_location, node, "node", location, "location");
          },
          py::arg("node_handle"), py::arg("location"),
          "An exact location for one node, by 'host:port' or node id (highest precedence).")
      .def(
          "add_zone",
          [](py::object self, py::handle zone, py::handle location) {
            return Set2(self, cr_config_add_zone, zone, "zone", location, "location");
          },
          py::arg("zone"), py::arg("location"),
          "What a server-reported zone name means: add_zone('use1-az1', 'aws/us-east-1/use1-az1').")
      .def(
          "add_address_remap",
          [](py::object self, py::handle announced, py::handle dial) {
            return Set2(self, cr_config_add_address_remap, announced, "announced", dial, "dial");
          },
          py::arg("announced"), py::arg("dial"),
          "Dial a node somewhere else than the address the cluster announces for it:\n"
          "'host:port' as announced -> 'host:port' to connect to (NAT, a TCP proxy).\n"
          "Routing and statistics keep the announced address; only the live client's\n"
          "connections are re-pointed. ParseError on a malformed address.")
      .def(
          "set_weight",
          [](py::object self, py::handle node, py::handle weight) {
            const std::string n = CString(node, "node");
            Check(
                cr_config_set_weight(self.cast<Config &>().cfg, n.c_str(), U32(weight, "weight")));
            return self;
          },
          py::arg("node_handle"), py::arg("weight"),
          "Relative read weight of a node ('host:port' or node id) among candidates of\n"
          "equal rank; default 1, 0 keeps the node as a last resort only.")
      .def(
          "set_router_options",
          [](py::object self, py::handle policy, py::handle margin, py::handle threshold,
             py::handle cooldown, py::handle seed) {
            cr_router_options o;
            cr_router_options_init(&o, sizeof o);
            if (!policy.is_none()) {
              const std::string name = CString(policy, "policy");
              Check(cr_policy_from_name(&o.policy, name.c_str()));
            }
            if (!margin.is_none()) o.nearest_margin_us = U32(margin, "nearest_margin_us");
            if (!threshold.is_none()) o.failure_threshold = U32(threshold, "failure_threshold");
            if (!cooldown.is_none()) o.down_cooldown_ms = U32(cooldown, "down_cooldown_ms");
            if (!seed.is_none()) o.seed = U64OrLong(seed, "seed", false);
            Check(cr_config_set_router_options(self.cast<Config &>().cfg, &o));
            return self;
          },
          py::kw_only(), py::arg("policy") = py::none(), py::arg("nearest_margin_us") = py::none(),
          py::arg("failure_threshold") = py::none(), py::arg("down_cooldown_ms") = py::none(),
          py::arg("seed") = py::none(),
          "Replace the router options; each one left as None takes the library's\n"
          "default (policy 'local', nearest_margin_us 1000, failure_threshold 3,\n"
          "down_cooldown_ms 2000, seed 0 = from the clock). policy is a Policy or\n"
          "its name ('master', 'prefer-replica', 'local', 'local-replicas-first',\n"
          "'nearest', 'local-spread', 'replica-only'; case-insensitive, '_' == '-').")
      .def(
          "set_selection",
          [](py::object self, py::handle selection) {
            const std::string name = CString(selection, "selection");
            cr_selection s = CR_SELECTION_RANDOM;
            Check(cr_selection_from_name(&s, name.c_str()));
            Check(cr_config_set_selection(self.cast<Config &>().cfg, s));
            return self;
          },
          py::arg("selection"),
          "How a read picks among candidates of equal rank: a Selection or its name,\n"
          "'random' (weighted random, the default), 'round-robin' (steady weighted\n"
          "round-robin: over every cycle of reads each node gets exactly its weight)\n"
          "or 'least-loaded' (the less loaded of two weighted random draws: requests\n"
          "in flight x recent latency, fed by the live client).");
}

}  // namespace crpy
