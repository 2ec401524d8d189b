// C API: the router and its snapshots.
#include <type_traits>

#include "api.hpp"

using cloudroute::capi::Check;
using cloudroute::capi::Fail;
using cloudroute::capi::FillRoute;
using cloudroute::capi::Guard;
using cloudroute::capi::NeedString;
using cloudroute::capi::SizeOk;

namespace {


// The message for a routing code; built only on failure.
cr_status RouteFail(cloudroute::Code c, uint16_t slot, const char *what) {
  switch (c) {
    case cloudroute::Code::kNoTopology:
      return Fail(CR_ENOTOPOLOGY, std::string(what) + ": no topology installed (call cr_router_update first)");
    case cloudroute::Code::kSlotUncovered:
      return Fail(CR_ESLOT_UNCOVERED, std::string(what) + ": slot " + std::to_string(slot) +
                                          " is served by no shard (cluster down for this slot)");
    case cloudroute::Code::kUnavailable:
      return Fail(CR_EUNAVAILABLE, std::string(what) + ": slot " + std::to_string(slot) +
                                       ": every candidate is marked down or has no known endpoint");
    default:
      return Fail(static_cast<cr_status>(c), std::string(what) + ": routing failed");
  }
}

cr_status CheckRouteArgs(const cr_route *out, const void *key, size_t len, const char *what) {
  if (!SizeOk(out)) {
    return Fail(CR_EINVAL, std::string(what) + ": out is NULL or its struct_size is too small (use CR_ROUTE_INIT)");
  }
  if (key == nullptr && len != 0) return Fail(CR_EINVAL, std::string(what) + ": key is NULL with a non-zero length");
  return CR_OK;
}

// RouteEntry's way out — bad arguments, or a routing code other than kOk —
// out of line and cold, so the fast path keeps a small frame and none of the
// message-building code.
template <typename Handle>
[[gnu::noinline, gnu::cold]] cr_status RouteEntryFail(const cr_route *out, const Handle *h, const void *key,
                                                      size_t len, cloudroute::Code c, const char *fn,
                                                      const char *what) noexcept {
  return Guard([&]() -> cr_status {
    if (cr_status s = CheckRouteArgs(out, key, len, fn); s != CR_OK) return s;
    if (h == nullptr) {
      return Fail(CR_EINVAL, std::string(fn) + ": " + (std::is_same_v<Handle, cr_router> ? "router" : "snapshot") + " is NULL");
    }
    return RouteFail(c, cloudroute::KeySlot(key, len), what);
  });
}

// The shape of every single-key routing entry point. The fast path — valid
// arguments, a successful decision — neither allocates nor throws, so it runs
// outside Guard; only the error paths build messages (inside Guard).
// REQUIRES: route(&r) does not throw.
template <typename Handle, typename RouteFn>
cr_status RouteEntry(cr_route *out, const Handle *h, const void *key, size_t len, const char *fn,
                     const char *what, RouteFn &&route) noexcept {
  cloudroute::Code c = cloudroute::Code::kInvalid;
  if (__builtin_expect(h != nullptr && SizeOk(out) && (key != nullptr || len == 0), 1)) {
    cloudroute::Route r;
    c = route(&r);
    if (__builtin_expect(c == cloudroute::Code::kOk, 1)) {
      FillRoute(out, r);
      return CR_OK;
    }
  }
  return RouteEntryFail(out, h, key, len, c, fn, what);
}

}  // namespace

extern "C" {

cr_status cr_router_new(cr_router **out, const cr_config *cfg) {
  return Guard([&]() -> cr_status {
    if (out == nullptr) return Fail(CR_EINVAL, "cr_router_new: out is NULL");
    *out = new cr_router(cfg != nullptr ? cfg->cfg : cloudroute::RouterConfig());
    return CR_OK;
  });
}

void cr_router_free(cr_router *r) { delete r; }

cr_status cr_router_update(cr_router *r, cr_topology *t) {
  return Guard([&]() -> cr_status {
    if (r == nullptr || t == nullptr) return Fail(CR_EINVAL, "cr_router_update: router or topology is NULL");
    return Check(r->router.Update(t->t));
  });
}

cr_status cr_router_route_read(cr_route *out, cr_router *r, const void *key, size_t len) {
  return RouteEntry(out, r, key, len, "cr_router_route_read", "route_read",
                    [&](cloudroute::Route *route) { return r->router.RouteRead(key, len, route); });
}

cr_status cr_router_route_write(cr_route *out, cr_router *r, const void *key, size_t len) {
  return RouteEntry(out, r, key, len, "cr_router_route_write", "route_write",
                    [&](cloudroute::Route *route) { return r->router.RouteWrite(key, len, route); });
}

cr_status cr_router_route_read_slot(cr_route *out, cr_router *r, uint32_t slot) {
  if (r != nullptr && SizeOk(out) && slot < CR_SLOT_COUNT) {
    cloudroute::Route route;
    const cloudroute::Code c = r->router.WithSnapshot([&](const cloudroute::Snapshot *s) {
      return s == nullptr ? cloudroute::Code::kNoTopology : s->RouteRead(static_cast<uint16_t>(slot), &route);
    });
    if (c == cloudroute::Code::kOk) {
      FillRoute(out, route);
      return CR_OK;
    }
    return Guard([&] { return RouteFail(c, static_cast<uint16_t>(slot), "route_read_slot"); });
  }
  return Guard([&]() -> cr_status {
    if (!SizeOk(out)) return Fail(CR_EINVAL, "cr_router_route_read_slot: out is NULL or its struct_size is too small (use CR_ROUTE_INIT)");
    if (r == nullptr) return Fail(CR_EINVAL, "cr_router_route_read_slot: router is NULL");
    return Fail(CR_EINVAL, "slot " + std::to_string(slot) + " is outside 0-16383");
  });
}

cr_status cr_router_route_write_slot(cr_route *out, cr_router *r, uint32_t slot) {
  if (r != nullptr && SizeOk(out) && slot < CR_SLOT_COUNT) {
    cloudroute::Route route;
    const cloudroute::Code c = r->router.WithSnapshot([&](const cloudroute::Snapshot *s) {
      return s == nullptr ? cloudroute::Code::kNoTopology : s->RouteWrite(static_cast<uint16_t>(slot), &route);
    });
    if (c == cloudroute::Code::kOk) {
      FillRoute(out, route);
      return CR_OK;
    }
    return Guard([&] { return RouteFail(c, static_cast<uint16_t>(slot), "route_write_slot"); });
  }
  return Guard([&]() -> cr_status {
    if (!SizeOk(out)) return Fail(CR_EINVAL, "cr_router_route_write_slot: out is NULL or its struct_size is too small (use CR_ROUTE_INIT)");
    if (r == nullptr) return Fail(CR_EINVAL, "cr_router_route_write_slot: router is NULL");
    return Fail(CR_EINVAL, "slot " + std::to_string(slot) + " is outside 0-16383");
  });
}

cr_status cr_router_route_reads(cr_route *out, cr_status *statuses, cr_router *r,
                                const void *const *keys, const size_t *lens, size_t n) {
  return Guard([&]() -> cr_status {
    if (n == 0) return CR_OK;
    if (r == nullptr || out == nullptr || keys == nullptr || lens == nullptr) {
      return Fail(CR_EINVAL, "cr_router_route_reads: NULL argument");
    }
    return r->router.WithSnapshot([&](const cloudroute::Snapshot *snap) -> cr_status {
      cr_status first = CR_OK;
      for (size_t i = 0; i < n; ++i) {
        cr_status st;
        if (!SizeOk(&out[i])) {
          st = Fail(CR_EINVAL, "cr_router_route_reads: out[" + std::to_string(i) + "].struct_size is too small");
        } else if (keys[i] == nullptr && lens[i] != 0) {
          st = Fail(CR_EINVAL, "cr_router_route_reads: key " + std::to_string(i) + " is NULL with a non-zero length");
        } else if (snap == nullptr) {
          st = RouteFail(cloudroute::Code::kNoTopology, 0, "route_read");
        } else {
          cloudroute::Route route;
          const uint16_t slot = cloudroute::KeySlot(keys[i], lens[i]);
          const cloudroute::Code c = snap->RouteRead(slot, &route);
          st = c == cloudroute::Code::kOk ? (FillRoute(&out[i], route), CR_OK) : RouteFail(c, slot, "route_read");
        }
        if (statuses != nullptr) {
          statuses[i] = st;
          if (first == CR_OK) first = st;
        } else if (st != CR_OK) {
          return st;
        }
      }
      return first;
    });
  });
}

}  // extern "C"

namespace {

cr_status SlotCandidates(cr_candidate *out, size_t cap, size_t *count, cr_router *r, uint16_t slot) {
  for (size_t i = 0; i < cap; ++i) {
    if (!SizeOk(&out[i])) {
      return Fail(CR_EINVAL, "candidates: out[" + std::to_string(i) +
                                 "].struct_size is too small (set it to sizeof(cr_candidate))");
    }
  }
  return r->router.WithSnapshot([&](const cloudroute::Snapshot *snap) -> cr_status {
    if (snap == nullptr) return RouteFail(cloudroute::Code::kNoTopology, slot, "candidates");
    const cloudroute::CandidateSet *set = snap->SetForSlot(slot);
    if (set == nullptr) return RouteFail(cloudroute::Code::kSlotUncovered, slot, "candidates");
    *count = set->list.size();
    const int64_t now = snap->registry->clock()();
    for (size_t i = 0; i < set->list.size() && i < cap; ++i) {
      const cloudroute::Candidate &c = set->list[i];
      cr_candidate v;
      v.struct_size = out[i].struct_size;
      v.node = c.node->handle;
      v.host = c.node->host.c_str();
      v.port = c.node->port;
      v.role = c.role == cloudroute::Role::kMaster ? CR_ROLE_MASTER : CR_ROLE_REPLICA;
      v.tier = static_cast<cr_tier>(c.tier);
      v.rank = c.rank;
      v.weight = c.weight;
      v.rtt_us = c.rtt_us;
      v.down = c.node->health.State(now) == cloudroute::HealthState::kDown ? 1 : 0;
      std::memcpy(&out[i], &v, sizeof v);
    }
    if (cap < set->list.size()) {
      return Fail(CR_EBUFS, "candidates: " + std::to_string(set->list.size()) +
                                " candidates, room for " + std::to_string(cap));
    }
    return CR_OK;
  });
}

}  // namespace

extern "C" {

cr_status cr_router_candidates(cr_candidate *out, size_t cap, size_t *count, cr_router *r,
                               const void *key, size_t len) {
  return Guard([&]() -> cr_status {
    if (count == nullptr || r == nullptr) return Fail(CR_EINVAL, "cr_router_candidates: count or router is NULL");
    if (cap > 0 && out == nullptr) return Fail(CR_EINVAL, "cr_router_candidates: out is NULL with cap > 0");
    if (key == nullptr && len != 0) return Fail(CR_EINVAL, "cr_router_candidates: key is NULL with a non-zero length");
    return SlotCandidates(out, cap, count, r, cloudroute::KeySlot(key, len));
  });
}

cr_status cr_router_slot_candidates(cr_candidate *out, size_t cap, size_t *count, cr_router *r,
                                    uint32_t slot) {
  return Guard([&]() -> cr_status {
    if (count == nullptr || r == nullptr) return Fail(CR_EINVAL, "cr_router_slot_candidates: count or router is NULL");
    if (cap > 0 && out == nullptr) return Fail(CR_EINVAL, "cr_router_slot_candidates: out is NULL with cap > 0");
    if (slot >= CR_SLOT_COUNT) return Fail(CR_EINVAL, "slot " + std::to_string(slot) + " is outside 0-16383");
    return SlotCandidates(out, cap, count, r, static_cast<uint16_t>(slot));
  });
}

cr_status cr_router_explain(char *buf, size_t cap, size_t *needed, cr_router *r, const void *key,
                            size_t len) {
  return Guard([&]() -> cr_status {
    if (needed == nullptr || r == nullptr) return Fail(CR_EINVAL, "cr_router_explain: needed or router is NULL");
    if (cap > 0 && buf == nullptr) return Fail(CR_EINVAL, "cr_router_explain: buf is NULL with cap > 0");
    if (key == nullptr && len != 0) return Fail(CR_EINVAL, "cr_router_explain: key is NULL with a non-zero length");
    const uint16_t slot = cloudroute::KeySlot(key, len);
    std::string text = r->router.WithSnapshot([&](const cloudroute::Snapshot *snap) {
      return snap == nullptr ? std::string() : snap->Explain(slot);
    });
    if (text.empty()) return RouteFail(cloudroute::Code::kNoTopology, slot, "explain");
    *needed = text.size() + 1;
    if (cap < text.size() + 1) {
      if (cap > 0) buf[0] = '\0';
      return Fail(CR_EBUFS, "cr_router_explain: needs " + std::to_string(text.size() + 1) + " bytes");
    }
    std::memcpy(buf, text.c_str(), text.size() + 1);
    return CR_OK;
  });
}

cr_status cr_router_report_moved(cr_router *r, uint32_t slot, const char *host, uint16_t port) {
  return Guard([&]() -> cr_status {
    if (r == nullptr) return Fail(CR_EINVAL, "cr_router_report_moved: router is NULL");
    if (cr_status s = NeedString(host, "host"); s != CR_OK) return s;
    return Check(r->router.ReportMoved(slot, host, port));
  });
}

cr_status cr_router_report_ask(cr_route *out, cr_router *r, uint32_t slot, const char *host,
                               uint16_t port) {
  return Guard([&]() -> cr_status {
    if (!SizeOk(out) || r == nullptr) return Fail(CR_EINVAL, "cr_router_report_ask: out or router is NULL (or struct_size too small)");
    if (cr_status s = NeedString(host, "host"); s != CR_OK) return s;
    if (slot >= CR_SLOT_COUNT) return Fail(CR_EINVAL, "slot " + std::to_string(slot) + " is outside 0-16383");
    auto e = r->router.ReportAsk(slot, host, port);
    if (!e.ok()) return Fail(e.status());
    cloudroute::Route route;
    route.slot = static_cast<uint16_t>(slot);
    route.shard = 0xFFFFFFFFu;
    route.node = *e;
    route.role = cloudroute::Role::kMaster;
    route.tier = cloudroute::Tier::kUnknown;
    FillRoute(out, route);
    return CR_OK;
  });
}

cr_status cr_router_report_migrating(cr_router *r, uint32_t slot, int migrating) {
  return Guard([&]() -> cr_status {
    if (r == nullptr) return Fail(CR_EINVAL, "cr_router_report_migrating: router is NULL");
    return Check(r->router.ReportMigrating(slot, migrating != 0));
  });
}

int cr_router_slot_migrating(const cr_router *r, uint32_t slot) {
  return r != nullptr && slot < CR_SLOT_COUNT &&
                 r->router.SlotMigrating(static_cast<uint16_t>(slot))
             ? 1
             : 0;
}

cr_status cr_router_report_failure(cr_router *r, uint32_t node) {
  return Guard([&]() -> cr_status {
    if (r == nullptr) return Fail(CR_EINVAL, "cr_router_report_failure: router is NULL");
    return Check(r->router.ReportFailure(node));
  });
}

cr_status cr_router_report_success(cr_router *r, uint32_t node) {
  return Guard([&]() -> cr_status {
    if (r == nullptr) return Fail(CR_EINVAL, "cr_router_report_success: router is NULL");
    return Check(r->router.ReportSuccess(node));
  });
}

cr_status cr_router_set_rtt(cr_router *r, uint32_t node, uint32_t rtt_us) {
  return Guard([&]() -> cr_status {
    if (r == nullptr) return Fail(CR_EINVAL, "cr_router_set_rtt: router is NULL");
    return Check(r->router.SetRtt(node, rtt_us));
  });
}

cr_status cr_router_set_node_zone(cr_router *r, const char *host, uint16_t port, const char *zone) {
  return Guard([&]() -> cr_status {
    if (r == nullptr) return Fail(CR_EINVAL, "cr_router_set_node_zone: router is NULL");
    if (cr_status s = NeedString(host, "host"); s != CR_OK) return s;
    if (cr_status s = NeedString(zone, "zone"); s != CR_OK) return s;
    return Check(r->router.SetNodeZone(host, port, zone));
  });
}

cr_status cr_router_set_replica_lagging(cr_router *r, const char *host, uint16_t port, int lagging) {
  return Guard([&]() -> cr_status {
    if (r == nullptr) return Fail(CR_EINVAL, "cr_router_set_replica_lagging: router is NULL");
    if (cr_status s = NeedString(host, "host"); s != CR_OK) return s;
    return Check(r->router.SetReplicaLagging(host, port, lagging != 0));
  });
}

int cr_router_refresh_needed(const cr_router *r) {
  return r != nullptr && r->router.refresh_needed() ? 1 : 0;
}

cr_status cr_router_node_handle(uint32_t *out, cr_router *r, const char *host, uint16_t port) {
  return Guard([&]() -> cr_status {
    if (out == nullptr || r == nullptr) return Fail(CR_EINVAL, "cr_router_node_handle: NULL argument");
    if (cr_status s = NeedString(host, "host"); s != CR_OK) return s;
    cloudroute::NodeEntry *e = r->router.registry().Find(cloudroute::FormatAddress(host, port));
    if (e == nullptr) return Fail(CR_ENOTFOUND, "node " + cloudroute::FormatAddress(host, port) + " is not known to this router");
    *out = e->handle;
    return CR_OK;
  });
}

cr_status cr_router_snapshot(cr_snapshot **out, cr_router *r) {
  return Guard([&]() -> cr_status {
    if (out == nullptr || r == nullptr) return Fail(CR_EINVAL, "cr_router_snapshot: NULL argument");
    *out = nullptr;
    auto s = r->router.Current();
    if (s == nullptr) return RouteFail(cloudroute::Code::kNoTopology, 0, "snapshot");
    *out = new cr_snapshot{std::move(s)};
    return CR_OK;
  });
}

void cr_snapshot_free(cr_snapshot *s) { delete s; }

uint64_t cr_snapshot_generation(const cr_snapshot *s) { return s == nullptr ? 0 : s->s->generation; }

cr_status cr_snapshot_route_read(cr_route *out, const cr_snapshot *s, const void *key, size_t len) {
  return RouteEntry(out, s, key, len, "cr_snapshot_route_read", "route_read",
                    [&](cloudroute::Route *route) { return s->s->RouteRead(cloudroute::KeySlot(key, len), route); });
}

cr_status cr_snapshot_route_write(cr_route *out, const cr_snapshot *s, const void *key, size_t len) {
  return RouteEntry(out, s, key, len, "cr_snapshot_route_write", "route_write",
                    [&](cloudroute::Route *route) { return s->s->RouteWrite(cloudroute::KeySlot(key, len), route); });
}

cr_status cr_snapshot_topology(cr_topology **out, const cr_snapshot *s) {
  return Guard([&]() -> cr_status {
    if (out == nullptr || s == nullptr) return Fail(CR_EINVAL, "cr_snapshot_topology: NULL argument");
    auto *t = new cr_topology;
    t->t = s->s->topology;
    *out = t;
    return CR_OK;
  });
}

}  // extern "C"
