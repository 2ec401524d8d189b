// RTT publishing and idle PINGs (see rtt_probe.hpp).
#include "cloudroute/net/rtt_probe.hpp"

#include <utility>
#include <vector>

#include "cloudroute/net/deadline.hpp"

namespace cloudroute {
namespace net {

namespace {
constexpr size_t kPingsPerTick = 8;  // PingIdle: nodes pinged per tick at most
}  // namespace

void PublishRtt(ClientContext *ctx, NodePools *pools) {
  for (auto &p : pools->List()) {
    NodeCounters &c = p.second->counters();
    const uint32_t now = c.latency_us.load(std::memory_order_relaxed);
    const uint32_t pub = c.published_rtt_us.load(std::memory_order_relaxed);
    // Only changes of more than 10% rebuild the NEAREST order.
    if (now == 0 || (pub != 0 && (now > pub ? now - pub : pub - now) * 10 <= pub)) continue;
    if (ctx->router->SetRtt(p.first, now).ok())
      c.published_rtt_us.store(now, std::memory_order_relaxed);
  }
}

void PingIdle(ClientContext *ctx, NodePools *pools) {
  if (ctx->opts.idle_ping_ms == 0) return;
  static const Args kPing{"PING"};
  const int64_t stale_ns = MsToNs(ctx->opts.idle_ping_ms);
  size_t pinged = 0;
  for (auto &p : pools->List()) {
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
    auto reply = (*conn)->Command(kPing, ctx->TimeoutFor(Tier::kUnknown));
    const int64_t t1 = SteadyNowNs();
    p.second->Release(std::move(*conn));
    if (reply.ok() && !(*reply)->is_error()) {
      nc.AddSample(t0, t1);
    } else if (!reply.ok()) {
      // Pinned for the call: a reclaimed node's breaker is left alone.
      if (NodeEntry *e = ctx->router->registry().Pin(p.first)) {
        pools->NoteFailure(e, p.second.get(), reply.status());
        NodeRegistry::Unpin(e);
      }
    }
  }
}

}  // namespace net
}  // namespace cloudroute
