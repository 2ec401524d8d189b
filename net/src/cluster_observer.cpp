// Refreshes and what follows them; periodic probes (see cluster_observer.hpp).
#include "cloudroute/net/cluster_observer.hpp"

#include <algorithm>
#include <unordered_set>

#include "cloudroute/net/errors.hpp"
#include "cloudroute/net/migration_scan.hpp"
#include "cloudroute/net/replica_lag.hpp"
#include "cloudroute/net/rtt_probe.hpp"

namespace cloudroute {
namespace net {

std::vector<Seed> ClusterObserver::AskOrder() {
  std::vector<Seed> ask, down;
  std::unordered_set<std::string> seen;
  if (std::shared_ptr<const Snapshot> snap = ctx_->router->Current()) {
    NodeRegistry &reg = ctx_->router->registry();
    for (const TopoNode &n : snap->topology->nodes) {
      if (!n.endpoint_known() || !seen.insert(n.address()).second) continue;
      NodeEntry *e = reg.Find(n.address());
      const bool up = e == nullptr || e->health.State(reg.clock()()) == HealthState::kUp;
      (up ? ask : down).push_back(Seed{std::string(n.host()), n.port});
    }
  }
  if (ask.size() > 1) {
    const size_t first = static_cast<size_t>(ask_start_++ % ask.size());
    std::rotate(ask.begin(), ask.begin() + static_cast<std::ptrdiff_t>(first), ask.end());
  }
  ask.insert(ask.end(), down.begin(), down.end());
  for (const Seed &s : seeds_) {
    if (seen.insert(FormatAddress(s.host, s.port)).second) ask.push_back(s);
  }
  return ask;
}

Status ClusterObserver::Refresh(uint32_t settle_ms) {
  static const char kBusy[] =
      "refresh asked from a log handler while a refresh of this client runs (a handler never "
      "waits for one: on its own thread it would wait for itself, on another for a handler); "
      "the refresh under way is the one asked for";
  const std::thread::id self = std::this_thread::get_id();
  if (refreshing_.load(std::memory_order_acquire) == self) return Error(Code::kInvalid, kBusy);
  std::unique_lock<std::mutex> lock(refresh_mu_, std::defer_lock);
  if (!ctx_->log.InSinkOnThisThread()) {
    lock.lock();
  } else if (!lock.try_lock()) {
    return Error(Code::kInvalid, kBusy);
  }
  refreshing_.store(self, std::memory_order_release);
  struct Owner {  // clears the owner on every return, before the lock opens
    std::atomic<std::thread::id> *id;
    ~Owner() { id->store(std::thread::id(), std::memory_order_release); }
  } owner{&refreshing_};
  EventLog &log = ctx_->log;
  const int64_t t0 = SteadyNowNs();
  log.Emit(LogLevel::kDebug, "refresh started", {});
  auto failed = [&](const Status &st) {
    ctx_->stats.Add(&Stats::refresh_failures);
    log.Emit(LogLevel::kWarn, "refresh failed",
             {{"error", st.message()}, {"ms", std::to_string((SteadyNowNs() - t0) / 1000000)}});
    return st;
  };
  uint32_t rounds = 0;
  auto d =
      Discover(AskOrder(), ctx_->opts.conn, ctx_->TimeoutFor(Tier::kUnknown), settle_ms, &rounds);
  if (!d.ok() && d.status().contradiction()) {
    // The nodes disagree for a moment (a failover): the last good snapshot
    // stays, the next refresh comes after the min gap instead of an
    // interval, and only the first of a run is a warning.
    ctx_->stats.Add(&Stats::refresh_failures);
    const bool soon = ++disagreed_ <= kMaxDisagreedRetries;
    if (soon) ctx_->TriggerRefresh();
    LogFields fields{{"error", d.status().message()},
                     {"ms", std::to_string((SteadyNowNs() - t0) / 1000000)},
                     {"in_a_row", std::to_string(disagreed_)}};
    if (soon) fields.emplace_back("retry_in_ms", std::to_string(ctx_->opts.refresh_min_gap_ms));
    log.Emit(disagreed_ == 1 ? LogLevel::kWarn : LogLevel::kDebug, "refresh failed", fields);
    return d.status();
  }
  if (!d.ok()) return failed(d.status());
  if (rounds > 1) {
    log.Emit(LogLevel::kInfo, "seeds disagreed, asked again",
             {{"rounds", std::to_string(rounds)},
              {"ms", std::to_string((SteadyNowNs() - t0) / 1000000)}});
  }
  if (disagreed_ > 0) {
    log.Emit(LogLevel::kInfo, "topology consistent again",
             {{"refused", std::to_string(disagreed_)}});
    disagreed_ = 0;
  }
  const std::shared_ptr<const Topology> topology = std::move(*d);
  const std::shared_ptr<const Snapshot> before = ctx_->router->Current();
  Status s = ctx_->router->Update(topology);
  if (!s.ok()) return failed(s);
  ctx_->stats.Add(&Stats::refreshes);
  pools_->Sweep();  // the pools of nodes the update reclaimed
  if (log.Enabled(LogLevel::kWarn) && before != nullptr) {
    LogFailovers(log, *before->topology, *topology);
  }
  log.Emit(LogLevel::kDebug, "refresh done",
           {{"shards", std::to_string(topology->shards.size())},
            {"nodes", std::to_string(topology->nodes.size())},
            {"ms", std::to_string((SteadyNowNs() - t0) / 1000000)}});
  ctx_->NoteRefreshed();
  if (episode_.Observe(*topology)) ctx_->TriggerRefresh();
  ScanMigrations(ctx_, pools_, *topology);
  CheckReplicaLag(ctx_, pools_, *topology);
  zones_.LearnZones(pools_);
  return Status::Ok();
}

void ClusterObserver::Tick() {
  PingIdle(ctx_, pools_);
  PublishRtt(ctx_, pools_);
}

Status ClusterObserver::OnConnect(const std::string &host, uint16_t port, Connection *conn,
                                  uint32_t timeout_ms) {
  zones_.Probe(host, port, conn, timeout_ms);
  // A failed probe broke the connection: the pool dials again (the probe is
  // skipped then), so the node serves data with its zone unknown.
  if (conn->broken()) return Status::Ok();
  return CheckReplicaReady(conn, timeout_ms);
}

}  // namespace net
}  // namespace cloudroute
