// C API: Sentinel shard groups (and the address book of a sharded ring).
#include <vector>

#include "api.hpp"
#include "ring_handles.hpp"

using cloudroute::capi::Fail;
using cloudroute::capi::FillRoute;
using cloudroute::capi::Guard;
using cloudroute::capi::NeedString;
using cloudroute::capi::SizeOk;

namespace {

cr_status NeedGroups(const cr_shard_groups *g, const char *fn) {
  if (g == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": groups is NULL");
  return CR_OK;
}

cr_status NeedKey(const void *key, size_t len, const char *fn) {
  if (key == nullptr && len != 0) return Fail(CR_EINVAL, std::string(fn) + ": key is NULL with a non-zero length");
  return CR_OK;
}

cr_status Prefixed(const cloudroute::Status &s, const char *fn) {
  if (s.ok()) return CR_OK;
  return Fail(static_cast<cr_status>(s.code()), std::string(fn) + ": " + s.message());
}

// The message for a routing code; built only on failure.
cr_status RouteFail(cloudroute::Code c, const char *fn) {
  switch (c) {
    case cloudroute::Code::kNoTopology:
      return Fail(CR_ENOTOPOLOGY, std::string(fn) + ": no ring set (call cr_shard_groups_set_ring first)");
    case cloudroute::Code::kUnavailable:
      return Fail(CR_EUNAVAILABLE, std::string(fn) + ": the key's group has no master known"
                                                     " (writes) or no instance that is up (reads)");
    default:
      return Fail(static_cast<cr_status>(c), std::string(fn) + ": routing failed");
  }
}


cr_status Route(cr_route *out, cr_shard_groups *g, const void *key, size_t len, bool write,
                const char *fn) {
  if (!SizeOk(out)) return Fail(CR_EINVAL, std::string(fn) + ": out is NULL or its struct_size is too small (use CR_ROUTE_INIT)");
  if (cr_status s = NeedGroups(g, fn); s != CR_OK) return s;
  if (cr_status s = NeedKey(key, len, fn); s != CR_OK) return s;
  cloudroute::Route r;
  const cloudroute::Code c = write ? g->groups.RouteWrite(key, len, &r) : g->groups.RouteRead(key, len, &r);
  if (c != cloudroute::Code::kOk) return RouteFail(c, fn);
  FillRoute(out, r);
  return CR_OK;
}

}  // namespace

extern "C" {

cr_status cr_shard_groups_new(cr_shard_groups **out, const cr_config *cfg) {
  return Guard([&]() -> cr_status {
    if (out == nullptr) return Fail(CR_EINVAL, "cr_shard_groups_new: out is NULL");
    *out = new cr_shard_groups(cfg != nullptr ? cfg->cfg : cloudroute::RouterConfig());
    return CR_OK;
  });
}

void cr_shard_groups_free(cr_shard_groups *groups) { delete groups; }

cr_status cr_shard_groups_add(uint32_t *out_group, cr_shard_groups *groups, const char *name) {
  return Guard([&]() -> cr_status {
    if (out_group == nullptr) return Fail(CR_EINVAL, "cr_shard_groups_add: out_group is NULL");
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_add"); s != CR_OK) return s;
    if (cr_status s = NeedString(name, "cr_shard_groups_add: name"); s != CR_OK) return s;
    auto r = groups->groups.AddGroup(name);
    if (!r.ok()) return Prefixed(r.status(), "cr_shard_groups_add");
    *out_group = *r;
    return CR_OK;
  });
}

cr_status cr_shard_groups_find(uint32_t *out_group, const cr_shard_groups *groups, const char *name) {
  return Guard([&]() -> cr_status {
    if (out_group == nullptr) return Fail(CR_EINVAL, "cr_shard_groups_find: out_group is NULL");
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_find"); s != CR_OK) return s;
    if (cr_status s = NeedString(name, "cr_shard_groups_find: name"); s != CR_OK) return s;
    auto r = groups->groups.FindGroup(name);
    if (!r.ok()) return Prefixed(r.status(), "cr_shard_groups_find");
    *out_group = *r;
    return CR_OK;
  });
}

size_t cr_shard_groups_count(const cr_shard_groups *groups) {
  return groups == nullptr ? 0 : groups->groups.group_count();
}

cr_status cr_shard_groups_set_ring(cr_shard_groups *groups, const cr_ring *ring) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_set_ring"); s != CR_OK) return s;
    if (ring == nullptr) return Fail(CR_EINVAL, "cr_shard_groups_set_ring: ring is NULL");
    if (ring->built == nullptr) {
      return Fail(CR_EINVAL, "cr_shard_groups_set_ring: the ring is not built (call cr_ring_build first)");
    }
    return Prefixed(groups->groups.SetRing(ring->built), "cr_shard_groups_set_ring");
  });
}

cr_status cr_shard_groups_set_master(cr_shard_groups *groups, uint32_t group, const char *host,
                                     uint16_t port) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_set_master"); s != CR_OK) return s;
    if (host != nullptr && (*host == '\0' || port == 0)) {
      return Fail(CR_EINVAL, "cr_shard_groups_set_master: the master needs a host and a non-zero port "
                             "(pass host NULL to forget it)");
    }
    return Prefixed(groups->groups.SetMaster(group, host != nullptr ? host : "", port),
                    "cr_shard_groups_set_master");
  });
}

cr_status cr_shard_groups_set_replicas(cr_shard_groups *groups, uint32_t group,
                                       const char *const *hosts, const uint16_t *ports, size_t n) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_set_replicas"); s != CR_OK) return s;
    if (n != 0 && (hosts == nullptr || ports == nullptr)) {
      return Fail(CR_EINVAL, "cr_shard_groups_set_replicas: hosts and ports must not be NULL when n > 0");
    }
    std::vector<cloudroute::GroupAddress> replicas;
    replicas.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      if (hosts[i] == nullptr) {
        return Fail(CR_EINVAL, "cr_shard_groups_set_replicas: hosts[" + std::to_string(i) + "] is NULL");
      }
      replicas.push_back(cloudroute::GroupAddress{hosts[i], ports[i]});
    }
    return Prefixed(groups->groups.SetReplicas(group, replicas), "cr_shard_groups_set_replicas");
  });
}

cr_status cr_shard_groups_locate(uint32_t *out_group, const cr_shard_groups *groups, const void *key,
                                 size_t len) {
  return Guard([&]() -> cr_status {
    if (out_group == nullptr) return Fail(CR_EINVAL, "cr_shard_groups_locate: out_group is NULL");
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_locate"); s != CR_OK) return s;
    if (cr_status s = NeedKey(key, len, "cr_shard_groups_locate"); s != CR_OK) return s;
    const cloudroute::Code c = groups->groups.Locate(key, len, out_group);
    return c == cloudroute::Code::kOk ? CR_OK : RouteFail(c, "cr_shard_groups_locate");
  });
}

cr_status cr_shard_groups_route_write(cr_route *out, cr_shard_groups *groups, const void *key, size_t len) {
  return Guard([&]() -> cr_status { return Route(out, groups, key, len, true, "cr_shard_groups_route_write"); });
}

cr_status cr_shard_groups_route_read(cr_route *out, cr_shard_groups *groups, const void *key, size_t len) {
  return Guard([&]() -> cr_status { return Route(out, groups, key, len, false, "cr_shard_groups_route_read"); });
}

cr_status cr_shard_groups_read_order(cr_candidate *out, size_t cap, size_t *count, cr_shard_groups *groups,
                                     const void *key, size_t len) {
  return Guard([&]() -> cr_status {
    constexpr const char *fn = "cr_shard_groups_read_order";
    if (count == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": count is NULL");
    if (out == nullptr && cap != 0) return Fail(CR_EINVAL, std::string(fn) + ": out is NULL with a non-zero cap");
    for (size_t i = 0; i < cap; ++i) {
      if (!SizeOk(&out[i])) {
        return Fail(CR_EINVAL, std::string(fn) + ": out[" + std::to_string(i) +
                                   "].struct_size is too small (set it to sizeof(cr_candidate))");
      }
    }
    if (cr_status s = NeedGroups(groups, fn); s != CR_OK) return s;
    if (cr_status s = NeedKey(key, len, fn); s != CR_OK) return s;
    uint32_t group = 0;
    size_t total = 0;
    const cloudroute::Code c = groups->groups.VisitReadOrder(
        key, len, &group, [&](const cloudroute::Candidate &cand, bool down) {
          if (total < cap) {
            cr_candidate &o = out[total];
            o.node = cand.node->handle;
            o.host = cand.node->host.c_str();
            o.port = cand.node->port;
            o.role = cand.role == cloudroute::Role::kMaster ? CR_ROLE_MASTER : CR_ROLE_REPLICA;
            o.tier = static_cast<cr_tier>(cand.tier);
            o.rank = cand.rank;
            o.weight = cand.weight;
            o.rtt_us = 0;
            o.down = down ? 1 : 0;
          }
          ++total;
        });
    if (c != cloudroute::Code::kOk) return RouteFail(c, fn);
    *count = total;
    if (total > cap) {
      return Fail(CR_EBUFS, std::string(fn) + ": " + std::to_string(total) + " instances, room for " +
                                std::to_string(cap));
    }
    return CR_OK;
  });
}

cr_status cr_shard_groups_report_failure(cr_shard_groups *groups, uint32_t node) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_report_failure"); s != CR_OK) return s;
    return Prefixed(groups->groups.ReportFailure(node), "cr_shard_groups_report_failure");
  });
}

cr_status cr_shard_groups_report_success(cr_shard_groups *groups, uint32_t node) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_report_success"); s != CR_OK) return s;
    return Prefixed(groups->groups.ReportSuccess(node), "cr_shard_groups_report_success");
  });
}

}  // extern "C"
