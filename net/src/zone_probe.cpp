// Zones reported by the nodes themselves (see zone_probe.hpp).
#include "cloudroute/net/zone_probe.hpp"

#include <algorithm>
#include <iterator>
#include <thread>
#include <vector>

#include "cloudroute/core/info_text.hpp"
#include "cloudroute/net/deadline.hpp"

namespace cloudroute {
namespace net {

namespace {

constexpr size_t kParallelDials = 16;  // LearnZones: dials in flight at once

// HELLO's reply is a map (RESP3) or a flat key/value array (RESP2).
std::string ZoneFromHello(const Reply &r) {
  if (r.type != RespType::kMap && r.type != RespType::kArray) return "";
  for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
    const Reply *k = r.elements[i].get(), *v = r.elements[i + 1].get();
    if (k != nullptr && v != nullptr && k->str == "availability_zone" && v->is_string())
      return v->str;
  }
  return "";
}

}  // namespace

bool ZoneProbe::ZonesMatter() const {
  const LocalityConfig &loc = ctx_->router->config().locality;
  return !loc.by_zone.empty() || !loc.client.zone.empty() || !loc.client_zone.empty();
}

void ZoneProbe::Probe(const std::string &host, uint16_t port, Connection *conn,
                      uint32_t timeout_ms) {
  if (!ZonesMatter()) return;
  Router *const router = ctx_->router;
  const std::string address = FormatAddress(host, port);
  if (std::shared_ptr<const Snapshot> snap = router->Current()) {
    for (const TopoNode &n : snap->topology->nodes) {
      if (n.port == port && n.host() == host && !n.zone().empty())
        return;  // the topology's is free
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = failed_.find(address);
    if (it != failed_.end() && SteadyNowNs() - it->second < kZoneProbeRetryMs * 1000000) return;
  }
  static const Args kHello{"HELLO"};
  static const Args kInfo{"INFO", "server"};
  std::vector<ReplyPtr> replies;
  // One round trip for both: HELLO (no protocol switch) first, INFO only as
  // the fallback source. Error replies (HELLO before Redis 6) are answers.
  Status s = conn->Pipeline({&kHello, &kInfo}, std::min(timeout_ms, kZoneProbeTimeoutMs), &replies);
  NodeEntry *const e = router->registry().Find(address);
  bool first_failure = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (e != nullptr) dialed_[e->handle] = true;
    if (!s.ok()) {
      auto [it, added] = failed_.try_emplace(address, SteadyNowNs());
      it->second = SteadyNowNs();
      first_failure = added;
    }
  }
  if (!s.ok()) {
    if (first_failure && ctx_->log.Enabled(LogLevel::kWarn)) {
      ctx_->log.Emit(LogLevel::kWarn, "zone probe failed; the node's zone stays unknown",
                     {{"node", address}, {"error", s.message()}});
    }
    return;
  }
  std::string zone = ZoneFromHello(*replies[0]);
  if (zone.empty() && replies[1]->is_string()) {
    // INFO server: "availability_zone:use1-az1" among the other lines. The
    // parsed text must outlive the pointer Find() returns into it.
    const InfoText info = InfoText::Parse(replies[1]->str);
    if (const std::string *z = info.Find("availability_zone")) zone = *z;
  }
  if (!zone.empty()) (void)router->SetNodeZone(host, port, zone);  // a no-op when unchanged
}

void ZoneProbe::LearnZones(NodePools *pools) {
  if (!ZonesMatter()) return;
  std::shared_ptr<const Snapshot> snap = ctx_->router->Current();
  if (snap == nullptr) return;
  std::vector<NodeEntry *> todo;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Forget the nodes the router reclaimed (their handles name no entry).
    for (auto it = dialed_.begin(); it != dialed_.end();) {
      it = ctx_->router->registry().Get(it->first) == nullptr ? dialed_.erase(it) : std::next(it);
    }
    for (const TopoNode &n : snap->topology->nodes) {
      if (!n.endpoint_known() || !n.zone().empty() || n.health != ReportedHealth::kOnline) continue;
      NodeEntry *e = ctx_->router->registry().Find(n.address());
      if (e == nullptr || dialed_.count(e->handle) != 0) continue;
      todo.push_back(e);
    }
  }
  // Dialing is the probe (see NodePools::For); the connection stays pooled.
  const uint32_t timeout = ctx_->TimeoutFor(Tier::kUnknown);
  for (size_t i = 0; i < todo.size(); i += kParallelDials) {
    std::vector<std::thread> dials;
    for (size_t j = i; j < todo.size() && j < i + kParallelDials; ++j) {
      dials.emplace_back([pools, e = todo[j], timeout] {
        NodePool &pool = pools->For(e);
        auto c = pool.Acquire(timeout);
        if (c.ok()) pool.Release(std::move(*c));
      });
    }
    for (std::thread &t : dials) t.join();
  }
}

}  // namespace net
}  // namespace cloudroute
