// C API: the router and its snapshots.
#include <type_traits>

#include "api.hpp"
#include "cloudroute/core/keyslot_inline.hpp"
#include "cloudroute/core/topology.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary

namespace {

// The message for a routing code; built only on failure.
cr_status RouteFail(cloudroute::Code c, uint16_t slot, const char *fn) {
  switch (c) {
    case cloudroute::Code::kNoTopology:
      return Fail(CR_ENOTOPOLOGY,
                  std::string(fn) + ": no topology installed (call cr_router_update first)");
    case cloudroute::Code::kSlotUncovered:
      return Fail(CR_ESLOT_UNCOVERED, std::string(fn) + ": slot " + std::to_string(slot) +
                                          " is served by no shard (cluster down for this slot)");
    case cloudroute::Code::kUnavailable:
      return Fail(CR_EUNAVAILABLE, std::string(fn) + ": slot " + std::to_string(slot) +
                                       ": every candidate is marked down or has no known endpoint");
    default:
      return Fail(static_cast<cr_status>(c), std::string(fn) + ": routing failed");
  }
}

// What a routing entry point was asked: a key, or a slot.
struct Target {
  const void *key;
  size_t len;
  uint32_t slot;  // for by_slot
  bool by_slot;
  bool ok() const { return by_slot ? SlotOk(slot) : (key != nullptr || len == 0); }
  uint16_t Slot() const {
    return by_slot ? static_cast<uint16_t>(slot) : cloudroute::KeySlot(key, len);
  }
  // Slot(), with the key's slot computed inline: for the single-route calls.
  uint16_t SlotInline() const {
    return by_slot ? static_cast<uint16_t>(slot) : cloudroute::KeySlotInline(key, len);
  }
};

inline Target KeyTarget(const void *key, size_t len) { return Target{key, len, 0, false}; }
inline Target SlotTarget(uint32_t slot) { return Target{nullptr, 0, slot, true}; }

cr_status TargetCheck(const Target &t, const char *fn) {
  return t.by_slot ? Slot(t.slot, fn) : Bytes(t.key, t.len, fn, "key");
}

// The current snapshot of a router, or the snapshot itself, pinned for f.
template <typename F>
auto OnSnapshot(const cr_router *r, F &&f) {
  return r->router.WithSnapshot(std::forward<F>(f));
}
template <typename F>
auto OnSnapshot(const cr_snapshot *s, F &&f) {
  return f(s->s.get());
}

// The target of a single-route entry point as two registers: (key, len),
// or (nullptr, slot) when kBySlot.
template <bool kBySlot>
inline Target TargetOf(const void *key, size_t len_or_slot) {
  return kBySlot ? SlotTarget(static_cast<uint32_t>(len_or_slot)) : KeyTarget(key, len_or_slot);
}

// RouteEntry's way out — bad arguments, or a routing code other than kOk —
// out of line and cold, so the fast path keeps a small frame and none of the
// message-building code. Every argument travels in a register: a Target
// struct would be stored to the stack on every call, failing or not.
template <bool kBySlot, typename Handle>
[[gnu::noinline, gnu::cold]] cr_status RouteEntryFail(const cr_route *out, const Handle *h,
                                                      const void *key, size_t len_or_slot,
                                                      cloudroute::Code c, const char *fn) noexcept {
  return Guard([&]() -> cr_status {
    const Target t = TargetOf<kBySlot>(key, len_or_slot);
    if (cr_status s = CheckOutput(out, fn, "out"); s != CR_OK) return s;
    if (cr_status s = NotNull(h, fn, std::is_same_v<Handle, cr_router> ? "router" : "snapshot");
        s != CR_OK)
      return s;
    if (cr_status s = TargetCheck(t, fn); s != CR_OK) return s;
    return RouteFail(c, t.Slot(), fn);
  });
}

// Every single-route entry point (router or snapshot, key or slot, read or
// write). The fast path — valid arguments, a successful decision — neither
// allocates nor throws, so it runs outside Guard.
template <bool kWrite, bool kBySlot, typename Handle>
cr_status RouteEntry(cr_route *out, const Handle *h, const void *key, size_t len_or_slot,
                     const char *fn) noexcept {
  cloudroute::Code c = cloudroute::Code::kInvalid;
  const Target t = TargetOf<kBySlot>(key, len_or_slot);
  if (__builtin_expect(h != nullptr && OutputOk(out) && t.ok(), 1)) {
    const uint16_t slot = t.SlotInline();
    // Captured by value: a closure holding references to locals would make
    // them live in memory instead of registers.
    c = OnSnapshot(h, [out, slot](const cloudroute::Snapshot *s) {
      if (s == nullptr) return cloudroute::Code::kNoTopology;
      cloudroute::Route route;
      const cloudroute::Code rc = kWrite ? s->RouteWrite(slot, &route) : s->RouteRead(slot, &route);
      // Copied inside the read: the node's registry entry is pinned by the
      // snapshot being read, not by the caller (see NodeRegistry).
      if (__builtin_expect(rc == cloudroute::Code::kOk, 1)) FillRoute(out, route);
      return rc;
    });
    if (__builtin_expect(c == cloudroute::Code::kOk, 1)) return CR_OK;
  }
  return RouteEntryFail<kBySlot>(out, h, key, len_or_slot, c, fn);
}

// The read candidates of a slot's shard, as (out, cap, needed).
cr_status Candidates(cr_candidate *out, size_t cap, size_t *needed, const cr_router *r,
                     const Target &t, const char *fn) {
  if (cr_status s = OutBuffer(out, cap, needed, fn); s != CR_OK) return s;
  if (cr_status s = NotNull(r, fn, "router"); s != CR_OK) return s;
  if (cr_status s = TargetCheck(t, fn); s != CR_OK) return s;
  const OutArray<cr_candidate> arr(out, cap);
  if (cr_status s = arr.Check(fn, "out[0]"); s != CR_OK) return s;
  const uint16_t slot = t.Slot();
  return r->router.WithSnapshot([&](const cloudroute::Snapshot *snap) -> cr_status {
    if (snap == nullptr) return RouteFail(cloudroute::Code::kNoTopology, slot, fn);
    const cloudroute::CandidateSet *set = snap->SetForSlot(slot);
    if (set == nullptr) return RouteFail(cloudroute::Code::kSlotUncovered, slot, fn);
    *needed = set->list.size();
    const int64_t now = snap->registry->clock()();
    for (size_t i = 0; i < set->list.size() && i < cap; ++i) {
      const cloudroute::Candidate &c = set->list[i];
      const bool down = c.node->health.State(now) == cloudroute::HealthState::kDown;
      arr.Write(i, CandidateValue(c, down, c.rtt_us));
    }
    if (cap < set->list.size()) return TooSmall(set->list.size(), cap, fn, "candidates");
    return CR_OK;
  });
}

// (host, port) naming a node in feedback calls.
cr_status Address(const char *host, uint16_t port, const char *fn) {
  if (cr_status s = NotNull(host, fn, "host"); s != CR_OK) return s;
  if (*host == '\0' || port == 0)
    return Fail(CR_EINVAL, std::string(fn) + ": the address needs a host and a port");
  return Prefixed(cloudroute::CheckHost(host, "host"), fn);
}

}  // namespace

extern "C" {

cr_status cr_router_new(cr_router **out, const cr_config *cfg) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(out, "cr_router_new", "out"); s != CR_OK) return s;
    *out = new cr_router(cfg != nullptr ? cfg->cfg : cloudroute::RouterConfig());
    return CR_OK;
  });
}

void cr_router_free(cr_router *r) { delete r; }

cr_status cr_router_update(cr_router *r, cr_topology *t) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(r, "cr_router_update", "router"); s != CR_OK) return s;
    if (cr_status s = NotNull(t, "cr_router_update", "topology"); s != CR_OK) return s;
    return Check(r->router.Update(t->t));
  });
}

cr_status cr_router_route_read(cr_route *out, const cr_router *r, const void *key, size_t len) {
  return RouteEntry<false, false>(out, r, key, len, "cr_router_route_read");
}

cr_status cr_router_route_write(cr_route *out, const cr_router *r, const void *key, size_t len) {
  return RouteEntry<true, false>(out, r, key, len, "cr_router_route_write");
}

cr_status cr_router_route_read_slot(cr_route *out, const cr_router *r, uint16_t slot) {
  return RouteEntry<false, true>(out, r, nullptr, slot, "cr_router_route_read_slot");
}

cr_status cr_router_route_write_slot(cr_route *out, const cr_router *r, uint16_t slot) {
  return RouteEntry<true, true>(out, r, nullptr, slot, "cr_router_route_write_slot");
}

cr_status cr_router_route_read_batch(cr_route *out, cr_status *statuses, const cr_router *r,
                                     const void *const *keys, const size_t *lens, size_t n) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_router_route_read_batch";
    if (n == 0) return CR_OK;
    if (cr_status s = NotNull(r, fn, "router"); s != CR_OK) return s;
    if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
    if (cr_status s = NotNull(keys, fn, "keys"); s != CR_OK) return s;
    if (cr_status s = NotNull(lens, fn, "lens"); s != CR_OK) return s;
    const OutArray<cr_route> arr(out, n);
    if (cr_status s = arr.Check(fn, "out[0]"); s != CR_OK) return s;
    return r->router.WithSnapshot([&](const cloudroute::Snapshot *snap) -> cr_status {
      cr_status first = CR_OK;
      for (size_t i = 0; i < n; ++i) {
        cr_status st;
        if (keys[i] == nullptr && lens[i] != 0) {
          st = Fail(CR_EINVAL, std::string(fn) + ": keys[" + std::to_string(i) +
                                   "] is NULL with a non-zero length");
        } else if (snap == nullptr) {
          st = RouteFail(cloudroute::Code::kNoTopology, 0, fn);
        } else {
          cloudroute::Route route;
          const uint16_t slot = cloudroute::KeySlot(keys[i], lens[i]);
          const cloudroute::Code c = snap->RouteRead(slot, &route);
          st = c == cloudroute::Code::kOk ? (FillRoute(arr.Element(i), route), CR_OK)
                                          : RouteFail(c, slot, fn);
        }
        if (statuses != nullptr) {
          statuses[i] = st;
          if (first == CR_OK) first = st;
        } else if (st != CR_OK) {
          return Fail(st, std::string(cr_last_error()) + " (keys[" + std::to_string(i) + "])");
        }
      }
      return first;
    });
  });
}

cr_status cr_router_candidates(cr_candidate *out, size_t cap, size_t *needed, const cr_router *r,
                               const void *key, size_t len) {
  return Guard(
      [&] { return Candidates(out, cap, needed, r, KeyTarget(key, len), "cr_router_candidates"); });
}

cr_status cr_router_candidates_slot(cr_candidate *out, size_t cap, size_t *needed,
                                    const cr_router *r, uint16_t slot) {
  return Guard([&] {
    return Candidates(out, cap, needed, r, SlotTarget(slot), "cr_router_candidates_slot");
  });
}

cr_status cr_router_explain(char *buf, size_t cap, size_t *needed, const cr_router *r,
                            const void *key, size_t len) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_router_explain";
    if (cr_status s = OutBuffer(buf, cap, needed, fn); s != CR_OK) return s;
    if (cr_status s = NotNull(r, fn, "router"); s != CR_OK) return s;
    if (cr_status s = Bytes(key, len, fn, "key"); s != CR_OK) return s;
    const uint16_t slot = cloudroute::KeySlot(key, len);
    std::string text = r->router.WithSnapshot([&](const cloudroute::Snapshot *snap) {
      return snap == nullptr ? std::string() : snap->Explain(slot);
    });
    if (text.empty()) return RouteFail(cloudroute::Code::kNoTopology, slot, fn);
    *needed = text.size() + 1;
    if (cap < text.size() + 1) {
      if (cap > 0) buf[0] = '\0';
      return TooSmall(text.size() + 1, cap, fn, "bytes");
    }
    std::memcpy(buf, text.c_str(), text.size() + 1);
    return CR_OK;
  });
}

cr_status cr_router_report_moved(cr_router *r, uint16_t slot, const char *host, uint16_t port) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_router_report_moved";
    if (cr_status s = NotNull(r, fn, "router"); s != CR_OK) return s;
    if (cr_status s = Address(host, port, fn); s != CR_OK) return s;
    if (cr_status s = Slot(slot, fn); s != CR_OK) return s;
    return Check(r->router.ReportMoved(slot, host, port));
  });
}

cr_status cr_router_report_ask(cr_route *out, cr_router *r, uint16_t slot, const char *host,
                               uint16_t port) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_router_report_ask";
    if (cr_status s = CheckOutput(out, fn, "out"); s != CR_OK) return s;
    if (cr_status s = NotNull(r, fn, "router"); s != CR_OK) return s;
    if (cr_status s = Address(host, port, fn); s != CR_OK) return s;
    if (cr_status s = Slot(slot, fn); s != CR_OK) return s;
    auto e = r->router.ReportAsk(slot, host, port);
    if (!e.ok()) return Fail(e.status());
    cloudroute::Route route;
    route.slot = slot;
    route.shard = CR_SHARD_NONE;
    route.node = *e;
    route.role = cloudroute::Role::kMaster;
    route.tier = cloudroute::Tier::kUnknown;
    FillRoute(out, route);
    return CR_OK;
  });
}

cr_status cr_router_set_slot_migrating(cr_router *r, uint16_t slot, int migrating) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_router_set_slot_migrating";
    if (cr_status s = NotNull(r, fn, "router"); s != CR_OK) return s;
    if (cr_status s = Slot(slot, fn); s != CR_OK) return s;
    if (cr_status s = Boolean(migrating, fn, "migrating"); s != CR_OK) return s;
    return Check(r->router.ReportMigrating(slot, migrating != 0));
  });
}

int cr_router_get_slot_migrating(const cr_router *r, uint16_t slot) {
  return r != nullptr && SlotOk(slot) && r->router.SlotMigrating(slot) ? 1 : 0;
}

cr_status cr_router_report_failure(cr_router *r, uint32_t node_handle) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(r, "cr_router_report_failure", "router"); s != CR_OK) return s;
    return Check(r->router.ReportFailure(node_handle));
  });
}

cr_status cr_router_report_success(cr_router *r, uint32_t node_handle) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(r, "cr_router_report_success", "router"); s != CR_OK) return s;
    return Check(r->router.ReportSuccess(node_handle));
  });
}

cr_status cr_router_set_rtt(cr_router *r, uint32_t node_handle, uint32_t rtt_us) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(r, "cr_router_set_rtt", "router"); s != CR_OK) return s;
    return Check(r->router.SetRtt(node_handle, rtt_us));
  });
}

cr_status cr_router_set_node_zone(cr_router *r, const char *host, uint16_t port, const char *zone) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_router_set_node_zone";
    if (cr_status s = NotNull(r, fn, "router"); s != CR_OK) return s;
    if (cr_status s = Address(host, port, fn); s != CR_OK) return s;
    if (cr_status s = NotNull(zone, fn, "zone"); s != CR_OK) return s;
    if (cr_status s = Prefixed(cloudroute::CheckPrintable(zone, "zone"), fn); s != CR_OK) return s;
    return Check(r->router.SetNodeZone(host, port, zone));
  });
}

cr_status cr_router_set_replica_lagging(cr_router *r, const char *host, uint16_t port,
                                        int lagging) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_router_set_replica_lagging";
    if (cr_status s = NotNull(r, fn, "router"); s != CR_OK) return s;
    if (cr_status s = Address(host, port, fn); s != CR_OK) return s;
    if (cr_status s = Boolean(lagging, fn, "lagging"); s != CR_OK) return s;
    return Check(r->router.SetReplicaLagging(host, port, lagging != 0));
  });
}

int cr_router_get_refresh_needed(const cr_router *r) {
  return r != nullptr && r->router.refresh_needed() ? 1 : 0;
}

cr_status cr_router_find_node(uint32_t *out_node_handle, const cr_router *r, const char *host,
                              uint16_t port) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_router_find_node";
    if (cr_status s = NotNull(out_node_handle, fn, "out_node_handle"); s != CR_OK) return s;
    if (cr_status s = NotNull(r, fn, "router"); s != CR_OK) return s;
    if (cr_status s = NotNull(host, fn, "host"); s != CR_OK) return s;
    const std::string address = cloudroute::FormatAddress(host, port);
    if (!r->router.registry().FindHandle(address, out_node_handle))
      return Fail(CR_ENOTFOUND,
                  std::string(fn) + ": node " + address + " is not known to this router");
    return CR_OK;
  });
}

cr_status cr_router_get_snapshot(cr_snapshot **out, const cr_router *r) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_router_get_snapshot";
    if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
    *out = nullptr;
    if (cr_status s = NotNull(r, fn, "router"); s != CR_OK) return s;
    auto s = r->router.Current();
    if (s == nullptr) return RouteFail(cloudroute::Code::kNoTopology, 0, fn);
    *out = new cr_snapshot{std::move(s)};
    return CR_OK;
  });
}

void cr_snapshot_free(cr_snapshot *s) { delete s; }

uint64_t cr_snapshot_get_generation(const cr_snapshot *s) {
  return s == nullptr ? 0 : s->s->generation;
}

cr_status cr_snapshot_route_read(cr_route *out, const cr_snapshot *s, const void *key, size_t len) {
  return RouteEntry<false, false>(out, s, key, len, "cr_snapshot_route_read");
}

cr_status cr_snapshot_route_write(cr_route *out, const cr_snapshot *s, const void *key,
                                  size_t len) {
  return RouteEntry<true, false>(out, s, key, len, "cr_snapshot_route_write");
}

cr_topology *cr_snapshot_get_topology(const cr_snapshot *s) {
  cr_topology *t = nullptr;
  if (s == nullptr) return nullptr;
  Guard([&] {
    t = new cr_topology;
    t->t = s->s->topology;
    return CR_OK;
  });
  return t;
}

}  // extern "C"
