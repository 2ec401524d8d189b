// Client: what the client asks nodes about themselves rather than about
// keys — their availability zone (once per new connection) and, for nodes
// without traffic, their round-trip time (a bounded PING). See client.hpp.
//
// Thread-safety: ProbeZone runs on whichever thread dials (under no client
// lock); LearnZones runs under refresh_mu_ (Create or the refresher thread);
// PingIdle on the refresher thread only.
#include <thread>

#include "cloudroute/core/info_text.hpp"
#include "cloudroute/net/client.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

namespace {

constexpr int64_t kNsPerMs = 1000000;
constexpr size_t kParallelDials = 16;   // LearnZones: dials in flight at once
constexpr size_t kPingsPerTick = 8;     // PingIdle: nodes pinged per tick at most

// HELLO's reply is a map (RESP3) or a flat key/value array (RESP2).
std::string ZoneFromHello(const Reply &r) {
  if (r.type != RespType::kMap && r.type != RespType::kArray) return "";
  for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
    const Reply *k = r.elements[i].get(), *v = r.elements[i + 1].get();
    if (k != nullptr && v != nullptr && k->str == "availability_zone" && v->is_string()) return v->str;
  }
  return "";
}

}  // namespace

bool Client::ZonesMatter() const {
  const LocalityConfig &loc = router_->config().locality;
  return !loc.by_zone.empty() || !loc.client.zone.empty();
}

void Client::ProbeZone(const std::string &host, uint16_t port, Connection *conn,
                       uint32_t timeout_ms) {
  if (!ZonesMatter()) return;
  const std::string address = FormatAddress(host, port);
  if (std::shared_ptr<const Snapshot> snap = router_->Current()) {
    for (const TopoNode &n : snap->topology->nodes) {
      if (n.port == port && n.host == host && !n.zone.empty()) return;  // the topology's is free
    }
  }
  static const Args kHello{"HELLO"};
  static const Args kInfo{"INFO", "server"};
  std::vector<ReplyPtr> replies;
  // One round trip for both: HELLO (no protocol switch) first, INFO only as
  // the fallback source. Error replies (HELLO before Redis 6) are answers.
  if (!conn->Pipeline({&kHello, &kInfo}, timeout_ms, &replies).ok() || replies.size() != 2) return;
  std::string zone = ZoneFromHello(*replies[0]);
  if (zone.empty() && replies[1]->is_string()) {
    // INFO server: "availability_zone:use1-az1" among the other lines.
    if (const std::string *z = InfoText::Parse(replies[1]->str).Find("availability_zone")) zone = *z;
  }
  if (NodeEntry *e = router_->registry().Find(address)) {
    std::lock_guard<std::mutex> lock(zone_mu_);
    zone_dialed_[e->handle] = true;
  }
  if (!zone.empty()) (void)router_->SetNodeZone(host, port, zone);  // a no-op when unchanged
}

void Client::LearnZones() {
  if (!ZonesMatter()) return;
  std::shared_ptr<const Snapshot> snap = router_->Current();
  if (snap == nullptr) return;
  std::vector<NodeEntry *> todo;
  {
    std::lock_guard<std::mutex> lock(zone_mu_);
    for (const TopoNode &n : snap->topology->nodes) {
      if (!n.endpoint_known() || !n.zone.empty() || n.health != ReportedHealth::kOnline) continue;
      NodeEntry *e = router_->registry().Find(n.address());
      if (e == nullptr || zone_dialed_.count(e->handle) != 0) continue;
      todo.push_back(e);
    }
  }
  // Dialing is the probe (see PoolFor); the connection stays pooled.
  const uint32_t timeout = TimeoutFor(Tier::kUnknown);
  for (size_t i = 0; i < todo.size(); i += kParallelDials) {
    std::vector<std::thread> dials;
    for (size_t j = i; j < todo.size() && j < i + kParallelDials; ++j) {
      dials.emplace_back([this, e = todo[j], timeout] {
        NodePool &pool = PoolFor(e);
        auto c = pool.Acquire(timeout);
        if (c.ok()) pool.Release(std::move(*c));
      });
    }
    for (std::thread &t : dials) t.join();
  }
}

void Client::PingIdle() {
  if (opts_.idle_ping_ms == 0) return;
  std::vector<std::pair<uint32_t, NodePool *>> pools;
  {
    std::lock_guard<std::mutex> lock(pools_mu_);
    for (auto &p : pools_) pools.emplace_back(p.first, p.second.get());
  }
  static const Args kPing{"PING"};
  const int64_t stale_ns = static_cast<int64_t>(opts_.idle_ping_ms) * kNsPerMs;
  size_t pinged = 0;
  for (auto &p : pools) {
    NodeCounters &nc = p.second->counters();
    if (pinged >= kPingsPerTick) break;
    // Only nodes the client uses (an idle pooled connection) and that had no
    // sample lately; never dial for a PING.
    if (p.second->idle() == 0 ||
        SteadyNowNs() - nc.last_sample_ns.load(std::memory_order_relaxed) < stale_ns) {
      continue;
    }
    auto conn = p.second->Acquire(0);
    if (!conn.ok()) continue;
    if ((*conn)->broken()) {
      p.second->Release(std::move(*conn));
      continue;
    }
    ++pinged;
    const int64_t t0 = SteadyNowNs();
    auto reply = (*conn)->Command(kPing, TimeoutFor(Tier::kUnknown));
    const int64_t t1 = SteadyNowNs();
    p.second->Release(std::move(*conn));
    if (reply.ok() && !(*reply)->is_error()) {
      nc.AddLatency(static_cast<uint32_t>((t1 - t0) / 1000));
      nc.last_sample_ns.store(t1, std::memory_order_relaxed);
    } else if (!reply.ok()) {
      if (NodeEntry *e = router_->registry().Get(p.first)) NoteFailure(e, p.second, reply.status());
    }
  }
}

}  // namespace net
}  // namespace cloudroute
