// Probes of set-aside nodes (see recovery_probe.hpp).
#include "cloudroute/net/recovery_probe.hpp"

#include <chrono>
#include <utility>
#include <vector>

#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

RecoveryProber::RecoveryProber(ClientContext *ctx, NodePools *pools, uint32_t every_ms)
    : ctx_(ctx), pools_(pools), every_ms_(every_ms > 0 ? every_ms : 1) {
  thread_ = std::thread([this] { Run(); });
}

RecoveryProber::~RecoveryProber() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void RecoveryProber::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, std::chrono::milliseconds(every_ms_));
    if (stop_) break;
    lock.unlock();
    Round();
    lock.lock();
  }
}

size_t RecoveryProber::Round() {
  const std::shared_ptr<const Snapshot> snap = ctx_->topo->Current();
  if (snap == nullptr) return 0;
  // The snapshot pins every node it names, so the entries stay this
  // topology's nodes for the whole round.
  std::vector<std::pair<NodeEntry *, Tier>> down;
  auto note = [&down](NodeEntry *e, Tier tier) {
    if (e == nullptr || !e->health.open()) return;
    for (const auto &d : down) {
      if (d.first == e) return;
    }
    down.emplace_back(e, tier);
  };
  for (const CandidateSet &set : snap->sets) {
    note(set.master, set.master_tier);
    for (const Candidate &c : set.list) note(c.node, c.tier);
  }
  NodeRegistry &reg = ctx_->topo->registry();
  for (const auto &d : down) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) break;
    }
    if (Probe(d.first, ctx_->TimeoutFor(d.second))) {
      pools_->NoteSuccess(d.first);
    } else if (d.first->health.open()) {
      d.first->health.SetAside(reg.clock()(), reg.health_config());
    }
  }
  return down.size();
}

bool RecoveryProber::Probe(NodeEntry *node, uint32_t timeout_ms) {
  static const Args kPing{"PING"};
  NodePool &pool = pools_->For(node);
  const int64_t deadline = DeadlineAfter(timeout_ms);
  // A pooled socket may be stale (the server restarted): after a connection
  // error the idle ones are dropped and the second attempt dials, within
  // the same budget. A timeout ends the probe.
  for (int attempt = 0; attempt < 2; ++attempt) {
    const uint32_t left = MsLeft(deadline);
    if (left == 0) return false;
    auto conn = pool.Acquire(left);
    if (!conn.ok()) return false;
    const int64_t t0 = SteadyNowNs();
    auto reply = (*conn)->Command(kPing, std::max<uint32_t>(MsLeft(deadline), 1));
    const int64_t t1 = SteadyNowNs();
    pool.Release(std::move(*conn));
    if (reply.ok()) {
      if ((*reply)->is_error()) return false;  // LOADING, MASTERDOWN, ...: not ready
      pool.counters().AddSample(t0, t1);
      return true;
    }
    if (reply.status().code() == kTimeout) return false;
    pool.DropIdle();
  }
  return false;
}

}  // namespace net
}  // namespace cloudroute
