// C API: Sentinel shard groups (and the address book of a sharded ring).
#include <vector>

#include "api.hpp"
#include "cloudroute/core/topology.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary

namespace {

cr_status NeedGroups(const cr_shard_groups *g, const char *fn) { return NotNull(g, fn, "groups"); }

// The message for a routing code; built only on failure.
cr_status RouteFail(cloudroute::Code c, const char *fn) {
  switch (c) {
    case cloudroute::Code::kNoTopology:
      return Fail(CR_ENOTOPOLOGY,
                  std::string(fn) + ": no ring set (call cr_shard_groups_set_ring first)");
    case cloudroute::Code::kUnavailable:
      return Fail(CR_EUNAVAILABLE, std::string(fn) +
                                       ": the key's group has no master known"
                                       " (writes) or no instance that is up (reads)");
    default:
      return Fail(static_cast<cr_status>(c), std::string(fn) + ": routing failed");
  }
}

cr_status Route(cr_route *out, const cr_shard_groups *g, const void *key, size_t len, bool write,
                const char *fn) {
  if (cr_status s = CheckOutput(out, fn, "out"); s != CR_OK) return s;
  if (cr_status s = NeedGroups(g, fn); s != CR_OK) return s;
  if (cr_status s = Bytes(key, len, fn, "key"); s != CR_OK) return s;
  // Copied inside the read, as a router's routes are: a live client's table
  // reclaims instances two changes after they left, and a failover's
  // master and replica changes can both land between a read and a copy.
  const cloudroute::ShardGroups::RouteFill fill = [](const cloudroute::Route &r, void *ctx) {
    FillRoute(static_cast<cr_route *>(ctx), r);
  };
  cloudroute::Route r;
  const cloudroute::Code c = write ? g->groups.RouteWrite(key, len, &r, fill, out)
                                   : g->groups.RouteRead(key, len, &r, fill, out);
  if (c != cloudroute::Code::kOk) return RouteFail(c, fn);
  return CR_OK;
}

}  // namespace

extern "C" {

cr_status cr_shard_groups_new(cr_shard_groups **out, const cr_config *cfg) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(out, "cr_shard_groups_new", "out"); s != CR_OK) return s;
    *out = new cr_shard_groups(cfg != nullptr ? cfg->cfg : cloudroute::RouterConfig(), false);
    return CR_OK;
  });
}

void cr_shard_groups_free(cr_shard_groups *groups) { delete groups; }

cr_status cr_shard_groups_add(uint32_t *out_group, cr_shard_groups *groups, const char *name) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(out_group, "cr_shard_groups_add", "out_group"); s != CR_OK) return s;
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_add"); s != CR_OK) return s;
    if (cr_status s = NotNull(name, "cr_shard_groups_add", "name"); s != CR_OK) return s;
    auto r = groups->groups.AddGroup(name);
    if (!r.ok()) return Prefixed(r.status(), "cr_shard_groups_add");
    *out_group = *r;
    return CR_OK;
  });
}

cr_status cr_shard_groups_find(uint32_t *out_group, const cr_shard_groups *groups,
                               const char *name) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(out_group, "cr_shard_groups_find", "out_group"); s != CR_OK) return s;
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_find"); s != CR_OK) return s;
    if (cr_status s = NotNull(name, "cr_shard_groups_find", "name"); s != CR_OK) return s;
    auto r = groups->groups.FindGroup(name);
    if (!r.ok()) return Prefixed(r.status(), "cr_shard_groups_find");
    *out_group = *r;
    return CR_OK;
  });
}

size_t cr_shard_groups_get_count(const cr_shard_groups *groups) {
  return groups == nullptr ? 0 : groups->groups.group_count();
}

cr_status cr_shard_groups_set_ring(cr_shard_groups *groups, const cr_ring *ring) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_set_ring"); s != CR_OK) return s;
    if (cr_status s = NotNull(ring, "cr_shard_groups_set_ring", "ring"); s != CR_OK) return s;
    if (ring->built == nullptr) {
      return Fail(CR_EINVAL,
                  "cr_shard_groups_set_ring: the ring is not built (call cr_ring_build first)");
    }
    return Prefixed(groups->groups.SetRing(ring->built), "cr_shard_groups_set_ring");
  });
}

cr_status cr_shard_groups_set_master(cr_shard_groups *groups, uint32_t group, const char *host,
                                     uint16_t port) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_set_master"); s != CR_OK) return s;
    if (host != nullptr && (*host == '\0' || port == 0)) {
      return Fail(CR_EINVAL,
                  "cr_shard_groups_set_master: the master needs a host and a non-zero port "
                  "(pass host NULL to forget it)");
    }
    if (host != nullptr) {
      const cloudroute::Status valid = cloudroute::CheckHost(host, "host");
      if (!valid.ok()) return Prefixed(valid, "cr_shard_groups_set_master");
    }
    return Prefixed(groups->groups.SetMaster(group, host != nullptr ? host : "", port),
                    "cr_shard_groups_set_master");
  });
}

cr_status cr_shard_groups_set_replicas(cr_shard_groups *groups, uint32_t group,
                                       const cr_address *replicas, size_t n) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_shard_groups_set_replicas";
    if (cr_status s = NeedGroups(groups, fn); s != CR_OK) return s;
    if (n != 0 && replicas == nullptr)
      return Fail(CR_EINVAL, std::string(fn) + ": replicas is NULL with n > 0");
    std::vector<cloudroute::GroupAddress> list;
    list.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      if (replicas[i].host == nullptr || replicas[i].host[0] == '\0' || replicas[i].port == 0) {
        return Fail(CR_EINVAL, std::string(fn) + ": replicas[" + std::to_string(i) +
                                   "] needs a host and a port");
      }
      const cloudroute::Status valid =
          cloudroute::CheckHost(replicas[i].host, "replicas[" + std::to_string(i) + "].host");
      if (!valid.ok()) return Prefixed(valid, fn);
      list.push_back(cloudroute::GroupAddress{replicas[i].host, replicas[i].port});
    }
    return Prefixed(groups->groups.SetReplicas(group, list), fn);
  });
}

cr_status cr_shard_groups_locate(uint32_t *out_group, const cr_shard_groups *groups,
                                 const void *key, size_t len) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(out_group, "cr_shard_groups_locate", "out_group"); s != CR_OK)
      return s;
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_locate"); s != CR_OK) return s;
    if (cr_status s = Bytes(key, len, "cr_shard_groups_locate", "key"); s != CR_OK) return s;
    const cloudroute::Code c = groups->groups.Locate(key, len, out_group);
    return c == cloudroute::Code::kOk ? CR_OK : RouteFail(c, "cr_shard_groups_locate");
  });
}

cr_status cr_shard_groups_route_write(cr_route *out, const cr_shard_groups *groups, const void *key,
                                      size_t len) {
  return Guard([&]() -> cr_status {
    return Route(out, groups, key, len, true, "cr_shard_groups_route_write");
  });
}

cr_status cr_shard_groups_route_read(cr_route *out, const cr_shard_groups *groups, const void *key,
                                     size_t len) {
  return Guard([&]() -> cr_status {
    return Route(out, groups, key, len, false, "cr_shard_groups_route_read");
  });
}

cr_status cr_shard_groups_candidates(cr_candidate *out, size_t cap, size_t *needed,
                                     const cr_shard_groups *groups, const void *key, size_t len) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_shard_groups_candidates";
    if (cr_status s = OutBuffer(out, cap, needed, fn); s != CR_OK) return s;
    const OutArray<cr_candidate> arr(out, cap);
    if (cr_status s = arr.Check(fn, "out[0]"); s != CR_OK) return s;
    if (cr_status s = NeedGroups(groups, fn); s != CR_OK) return s;
    if (cr_status s = Bytes(key, len, fn, "key"); s != CR_OK) return s;
    uint32_t group = 0;
    size_t total = 0;
    const cloudroute::Code c = groups->groups.VisitReadOrder(
        key, len, &group, [&](const cloudroute::Candidate &cand, bool down) {
          if (total < cap) {
            arr.Write(total, CandidateValue(cand, down, 0));
          }
          ++total;
        });
    if (c != cloudroute::Code::kOk) return RouteFail(c, fn);
    *needed = total;
    if (total > cap) return TooSmall(total, cap, fn, "instances");
    return CR_OK;
  });
}

cr_status cr_shard_groups_report_failure(cr_shard_groups *groups, uint32_t node_handle) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_report_failure"); s != CR_OK) return s;
    return Prefixed(groups->groups.ReportFailure(node_handle), "cr_shard_groups_report_failure");
  });
}

cr_status cr_shard_groups_report_success(cr_shard_groups *groups, uint32_t node_handle) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NeedGroups(groups, "cr_shard_groups_report_success"); s != CR_OK) return s;
    return Prefixed(groups->groups.ReportSuccess(node_handle), "cr_shard_groups_report_success");
  });
}

}  // extern "C"
