// C API: the configuration builder (locality, weights, router options).
#include "api.hpp"
#include "cloudroute/core/locality.hpp"
#include "cloudroute/core/read_policy.hpp"
#include "cloudroute/core/topology.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary

namespace {

constexpr cr_router_options kRouterDefaults = CR_ROUTER_OPTIONS_INIT;

cr_status NeedConfig(cr_config *cfg, const char *fn) { return NotNull(cfg, fn, "config"); }

// A node named in configuration: "host:port" or a node id. Text with a ':'
// (or a '[') is an address and must parse as one, so a typo such as a port
// out of range is refused instead of kept as an id that matches nothing.
// *key receives the name as the router looks it up (an address in the form
// FormatAddress gives, e.g. "[::1]:7000").
cr_status NodeName(const char *node, const char *fn, std::string *key) {
  if (cr_status s = NotNull(node, fn, "node"); s != CR_OK) return s;
  if (*node == '\0') return Fail(CR_EINVAL, std::string(fn) + ": node is empty");
  const std::string_view text(node);
  if (text.find_first_of(":[") != std::string_view::npos) {
    std::string host;
    uint16_t port = 0;
    const cloudroute::Status st = cloudroute::ParseHostPort(text, &host, &port);
    if (!st.ok()) {
      return Fail(CR_EPARSE, std::string(fn) + ": node " + cloudroute::Quote(text) +
                                 " is not a valid host:port: " + st.message());
    }
    *key = cloudroute::FormatAddress(host, port);
    return CR_OK;
  }
  if (!cloudroute::IsValidNodeId(text)) {
    return Fail(CR_EPARSE, std::string(fn) + ": node " + cloudroute::Quote(text) +
                               " is neither host:port nor a node id (1-256 printable "
                               "characters without spaces)");
  }
  *key = std::string(text);
  return CR_OK;
}

cr_status Loc(const char *text, cloudroute::Location *out, const char *fn) {
  if (cr_status s = NotNull(text, fn, "location"); s != CR_OK) return s;
  auto r = cloudroute::ParseLocation(text);
  if (!r.ok()) return Fail(r.status());
  *out = *r;
  return CR_OK;
}

}  // namespace

extern "C" {

cr_status cr_config_new(cr_config **out) {
  return Guard([&]() -> cr_status {
    if (out == nullptr) return Fail(CR_EINVAL, "cr_config_new: out is NULL");
    *out = new cr_config;
    return CR_OK;
  });
}

void cr_config_free(cr_config *cfg) { delete cfg; }

cr_status cr_config_set_client_location(cr_config *cfg, const char *location) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedConfig(cfg, "cr_config_set_client_location"); s != CR_OK) return s;
    return Loc(location, &cfg->cfg.locality.client, "cr_config_set_client_location");
  });
}

cr_status cr_config_add_local_cidr(cr_config *cfg, const char *cidr) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedConfig(cfg, "cr_config_add_local_cidr"); s != CR_OK) return s;
    if (cr_status s = NotNull(cidr, "cr_config_add_local_cidr", "cidr"); s != CR_OK) return s;
    auto c = cloudroute::Cidr::Parse(cidr);
    if (!c.ok()) return Fail(c.status());
    cfg->cfg.locality.rules.push_back(cloudroute::LocationRule{*c, {}, true});
    return CR_OK;
  });
}

cr_status cr_config_add_location_rule(cr_config *cfg, const char *cidr, const char *location) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedConfig(cfg, "cr_config_add_location_rule"); s != CR_OK) return s;
    if (cr_status s = NotNull(cidr, "cr_config_add_location_rule", "cidr"); s != CR_OK) return s;
    auto c = cloudroute::Cidr::Parse(cidr);
    if (!c.ok()) return Fail(c.status());
    cloudroute::Location loc;
    if (cr_status s = Loc(location, &loc, "cr_config_add_location_rule"); s != CR_OK) return s;
    cfg->cfg.locality.rules.push_back(cloudroute::LocationRule{*c, loc, false});
    return CR_OK;
  });
}

cr_status cr_config_add_node_location(cr_config *cfg, const char *node, const char *location) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedConfig(cfg, "cr_config_add_node_location"); s != CR_OK) return s;
    std::string key;
    if (cr_status s = NodeName(node, "cr_config_add_node_location", &key); s != CR_OK) return s;
    cloudroute::Location loc;
    if (cr_status s = Loc(location, &loc, "cr_config_add_node_location"); s != CR_OK) return s;
    cfg->cfg.locality.by_node[key] = loc;
    return CR_OK;
  });
}

cr_status cr_config_add_zone(cr_config *cfg, const char *zone, const char *location) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedConfig(cfg, "cr_config_add_zone"); s != CR_OK) return s;
    if (cr_status s = NotNull(zone, "cr_config_add_zone", "zone"); s != CR_OK) return s;
    if (*zone == '\0') return Fail(CR_EINVAL, "cr_config_add_zone: zone is empty");
    if (cr_status s = Prefixed(cloudroute::CheckPrintable(zone, "zone"), "cr_config_add_zone");
        s != CR_OK)
      return s;
    cloudroute::Location loc;
    if (cr_status s = Loc(location, &loc, "cr_config_add_zone"); s != CR_OK) return s;
    cfg->cfg.locality.by_zone[zone] = loc;
    return CR_OK;
  });
}

cr_status cr_config_set_client_zone(cr_config *cfg, const char *zone) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedConfig(cfg, "cr_config_set_client_zone"); s != CR_OK) return s;
    if (cr_status s = NotNull(zone, "cr_config_set_client_zone", "zone"); s != CR_OK) return s;
    if (*zone == '\0') return Fail(CR_EINVAL, "cr_config_set_client_zone: zone is empty");
    if (cr_status s =
            Prefixed(cloudroute::CheckPrintable(zone, "zone"), "cr_config_set_client_zone");
        s != CR_OK)
      return s;
    cfg->cfg.locality.client_zone = zone;
    return CR_OK;
  });
}

cr_status cr_config_set_weight(cr_config *cfg, const char *node, uint32_t weight) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedConfig(cfg, "cr_config_set_weight"); s != CR_OK) return s;
    std::string key;
    if (cr_status s = NodeName(node, "cr_config_set_weight", &key); s != CR_OK) return s;
    if (weight > 1000000) {
      return Fail(CR_EINVAL, "cr_config_set_weight: weight " + std::to_string(weight) +
                                 " is above the maximum of 1000000");
    }
    cfg->cfg.weights[key] = weight;
    return CR_OK;
  });
}

cr_status cr_config_add_address_remap(cr_config *cfg, const char *announced, const char *dial) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedConfig(cfg, "cr_config_add_address_remap"); s != CR_OK) return s;
    if (cr_status s = NotNull(announced, "cr_config_add_address_remap", "announced"); s != CR_OK)
      return s;
    if (cr_status s = NotNull(dial, "cr_config_add_address_remap", "dial"); s != CR_OK) return s;
    std::string from_host, to_host;
    uint16_t from_port = 0, to_port = 0;
    cloudroute::Status st = cloudroute::ParseHostPort(announced, &from_host, &from_port);
    if (st.ok()) st = cloudroute::ParseHostPort(dial, &to_host, &to_port);
    if (!st.ok()) return Fail(CR_EPARSE, "cr_config_add_address_remap: " + st.message());
    cfg->cfg.connect_via[cloudroute::FormatAddress(from_host, from_port)] = {to_host, to_port};
    return CR_OK;
  });
}

cr_status cr_router_options_init(cr_router_options *opts, size_t size) {
  return Guard([&] { return InitOptions(opts, size, kRouterDefaults, "cr_router_options_init"); });
}

cr_status cr_config_set_router_options(cr_config *cfg, const cr_router_options *opts) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_config_set_router_options";
    if (cr_status s = NeedConfig(cfg, fn); s != CR_OK) return s;
    if (cr_status s = NotNull(opts, fn, "opts"); s != CR_OK) return s;
    cr_router_options o;
    if (cr_status s = ReadInput(&o, opts, kRouterDefaults, fn, "opts"); s != CR_OK) return s;
    if (cr_status s = EnumInRange(o.policy, cloudroute::kPolicyCount - 1, fn, "policy"); s != CR_OK)
      return s;
    if (o.failure_threshold == 0)
      return Fail(CR_EINVAL, std::string(fn) + ": failure_threshold must be at least 1");
    cfg->cfg.policy = static_cast<cloudroute::Policy>(RawEnum(o.policy));
    cfg->cfg.nearest_margin_us = o.nearest_margin_us;
    cfg->cfg.health.failure_threshold = o.failure_threshold;
    cfg->cfg.health.cooldown_ms = o.down_cooldown_ms;
    cfg->cfg.seed = o.seed;
    return CR_OK;
  });
}

cr_status cr_policy_from_name(cr_policy *out, const char *name) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(out, "cr_policy_from_name", "out"); s != CR_OK) return s;
    if (cr_status s = NotNull(name, "cr_policy_from_name", "name"); s != CR_OK) return s;
    cloudroute::Policy p;
    if (!cloudroute::PolicyFromName(name, &p)) {
      return Fail(CR_EINVAL,
                  std::string("unknown policy '") + name +
                      "' (want master, prefer-replica, local, local-replicas-first, nearest, "
                      "local-spread or replica-only)");
    }
    *out = static_cast<cr_policy>(p);
    return CR_OK;
  });
}

const char *cr_policy_name(cr_policy policy) {
  const int p = RawEnum(policy);
  if (p < 0 || p >= cloudroute::kPolicyCount) return "?";
  return cloudroute::PolicyName(static_cast<cloudroute::Policy>(p));
}

const char *cr_tier_name(cr_tier tier) {
  const int t = RawEnum(tier);
  if (t < 0 || t > CR_TIER_UNKNOWN) return "?";
  return cloudroute::TierName(static_cast<cloudroute::Tier>(t));
}

const char *cr_role_name(cr_role role) {
  switch (RawEnum(role)) {
    case CR_ROLE_MASTER:
      return "master";
    case CR_ROLE_REPLICA:
      return "replica";
    default:
      return "?";
  }
}

}  // extern "C"
