// The client's per-node pools and bookkeeping (see node_pools.hpp).
#include "cloudroute/net/node_pools.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

std::pair<std::string, uint16_t> DialAddress(const ClientContext &ctx, const NodeEntry &node) {
  const auto &remap = ctx.topo->config().connect_via;
  if (auto it = remap.find(node.address); it != remap.end()) return it->second;
  return {node.host, node.port};
}

NodePools::NodePools(ClientContext *ctx, OnConnect on_connect)
    : ctx_(ctx), on_connect_(std::move(on_connect)) {}

NodePool &NodePools::For(NodeEntry *node) {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<NodePool> &p = pools_[node->handle];
  if (p == nullptr) {
    // Dial the announced address, or where the configuration re-points it
    // (NAT, a proxy, a cloud's private endpoint): routing keeps the identity.
    const std::pair<std::string, uint16_t> dial = DialAddress(*ctx_, *node);
    const std::string host = dial.first;
    const uint16_t port = dial.second;
    ConnectOptions conn = ctx_->opts.conn;
    // Cluster replicas serve reads after READONLY (once per connection;
    // harmless on a master); a ring's standalone servers need none.
    conn.readonly = ctx_->topo->redirects();
    const std::string id_host = node->host;  // the identity zones are reported under
    const uint16_t id_port = node->port;
    p = std::make_shared<NodePool>(
        [this, host, port, id_host, id_port,
         conn](uint32_t timeout_ms) -> Result<std::unique_ptr<Connection>> {
          // The whole handshake (READONLY, the zone probe, the readiness
          // check) shares one budget: the caller's, which is the node's
          // tier timeout. A stalled local node then costs a dial no more
          // than a command to it would (it was max(connect, unknown tier)).
          const uint32_t budget = timeout_ms > 0 ? timeout_ms : ctx_->TimeoutFor(Tier::kUnknown);
          const int64_t deadline = DeadlineAfter(budget);
          // A connection the hook accepted broken (an optional step failed
          // on it) is replaced once; the hook skips that step the next time.
          for (int attempt = 0;; ++attempt) {
            auto c = Connection::Open(host, port, conn, std::max<uint32_t>(MsLeft(deadline), 1));
            if (!c.ok()) return c;
            ctx_->stats.Add(&Stats::connections);
            const uint32_t left = MsLeft(deadline);
            Status s = left == 0 ? Error(kTimeout, "the handshake took its whole budget of " +
                                                       std::to_string(budget) + " ms")
                                 : on_connect_(id_host, id_port, c->get(), left);
            if (!s.ok()) return Error(s.code(), FormatAddress(host, port) + ": " + s.message());
            if (!(*c)->broken()) return c;
            if (attempt == 1) {
              return Error(kConnError, FormatAddress(host, port) +
                                           ": the connection broke in its handshake twice");
            }
          }
        },
        ctx_->opts.pool,
        [this, address = node->address](const Status &why) { NotePoisoned(address, why); });
    p->counters().load = &node->load;  // before anyone else sees the pool
  }
  return *p;
}

std::shared_ptr<NodeLink> NodePools::LinkFor(NodeEntry *node, bool for_async) {
  const uint32_t shared = ctx_->opts.pool.shared != 0 ? ctx_->opts.pool.shared : for_async ? 1 : 0;
  if (shared == 0) return nullptr;
  NodePool &pool = For(node);
  std::lock_guard<std::mutex> lock(mu_);
  if (loop_ == nullptr) {
    if (loop_failed_) return nullptr;
    auto loop = EventLoop::Start();
    if (!loop.ok()) {
      // Nothing is lost: every command takes the pool's connections instead.
      loop_failed_ = true;
      ctx_->log.Emit(LogLevel::kError, "shared connections unavailable",
                     {{"error", loop.status().message()}});
      return nullptr;
    }
    loop_ = std::move(*loop);
  }
  std::shared_ptr<NodeLink> &link = links_[node->handle];
  if (link == nullptr) {
    link = std::make_shared<NodeLink>(
        loop_.get(), &link_dials_, pool.dialer(), shared, ctx_->TimeoutFor(Tier::kUnknown),
        [this, address = node->address](const Status &why) {
          // Not on the engine thread: a log handler may call the client, and
          // a call waits for the engine thread (rare: a thread per event).
          link_dials_.Spawn([this, address, why] { NotePoisoned(address, why); });
        });
  }
  return link;
}

bool NodePools::OnEngineThread() const {
  std::lock_guard<std::mutex> lock(mu_);
  return loop_ != nullptr && loop_->InLoop();
}

void NodePools::CloseLinks(std::vector<std::shared_ptr<NodeLink>> links, const Status &why) {
  if (links.empty()) return;
  if (loop_->InLoop()) {  // a change applied from the engine thread: no wait for itself
    for (const auto &l : links) l->Close(why);
    return;
  }
  auto closed = std::make_shared<LinkWaiter>();
  loop_->Post([links = std::move(links), why, closed] {
    for (const auto &l : links) l->Close(why);
    closed->Signal();
  });
  closed->Wait();
}

std::vector<std::pair<uint32_t, std::shared_ptr<NodePool>>> NodePools::List() const {
  std::vector<std::pair<uint32_t, std::shared_ptr<NodePool>>> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto &p : pools_) out.emplace_back(p.first, p.second);
  return out;
}

size_t NodePools::Sweep() {
  const NodeRegistry &reg = ctx_->topo->registry();
  std::vector<std::shared_ptr<NodePool>> gone;  // closed outside the lock
  std::vector<std::shared_ptr<NodeLink>> gone_links;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = pools_.begin(); it != pools_.end();) {
      if (reg.Get(it->first) != nullptr) {
        ++it;
        continue;
      }
      gone.push_back(std::move(it->second));
      it = pools_.erase(it);
    }
    for (auto it = links_.begin(); it != links_.end();) {
      if (reg.Get(it->first) != nullptr) {
        ++it;
        continue;
      }
      gone_links.push_back(std::move(it->second));
      it = links_.erase(it);
    }
  }
  // Nobody uses them (whoever did pinned the node); their sockets close.
  CloseLinks(std::move(gone_links), Error(kConnError, "the node left the topology"));
  return gone.size();
}

std::vector<NodeStatsValues> NodePools::node_stats() const {
  std::vector<NodeStatsValues> out;
  NodeRegistry &reg = ctx_->topo->registry();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto &p : pools_) {
    NodeEntry *e = reg.Pin(p.first);
    if (e == nullptr) continue;  // reclaimed: its pool goes at the next Sweep
    NodeStatsValues v;
    v.pin = std::make_shared<NodePins>();
    v.pin->Add(e);
    NodeRegistry::Unpin(e);
    v.node = e;
    NodeCounters &c = p.second->counters();
    v.reads = c.reads.load(std::memory_order_relaxed);
    v.writes = c.writes.load(std::memory_order_relaxed);
    v.errors = c.errors.load(std::memory_order_relaxed);
    v.connections = c.connections.load(std::memory_order_relaxed);
    v.latency_us = c.latency_us.load(std::memory_order_relaxed);
    v.latency = c.latency.Snapshot();
    v.open = p.second->open();
    // Its shared connections are open connections too.
    if (auto l = links_.find(p.first); l != links_.end() && l->second != nullptr) {
      v.open += l->second->open();
    }
    v.idle = p.second->idle();
    out.push_back(v);
  }
  std::sort(out.begin(), out.end(), [](const NodeStatsValues &a, const NodeStatsValues &b) {
    return a.node->handle < b.node->handle;
  });
  return out;
}

void NodePools::NotePoisoned(const std::string &address, const Status &why) {
  ctx_->stats.Add(&Stats::poisoned);
  if (ctx_->log.Enabled(LogLevel::kWarn)) {
    ctx_->log.EmitLimited(LogLevel::kWarn, "poisoned " + address,
                          "connection closed: replies no longer matched requests",
                          {{"node", address}, {"error", why.message()}});
  }
}

void NodePools::NoteFailure(NodeEntry *node, NodePool *pool, const Status &s) {
  NodeRegistry &reg = ctx_->topo->registry();
  const bool timed_out = s.code() == kTimeout;
  const bool was_open = node->health.open();
  // A timeout sets the node aside at once: every pick until its cool-down
  // ends would cost another whole timeout (the node is stalled, or its
  // network is). A connection error is cheap to meet again (refused at
  // once), so it opens the breaker after failure_threshold in a row.
  if (timed_out)
    node->health.SetAside(reg.clock()(), reg.health_config());
  else
    node->health.Failure(reg.clock()(), reg.health_config());
  const uint32_t failures = node->health.consecutive_failures();
  // Logged once as the breaker opens; failed probes of a down node at debug.
  const bool opened = !was_open && node->health.open();
  const LogLevel level = opened ? LogLevel::kWarn : LogLevel::kDebug;
  if (node->health.open() && ctx_->log.Enabled(level)) {
    ctx_->log.Emit(
        level, opened ? "node marked down" : "node still down",
        {{"node", node->address}, {"failures", std::to_string(failures)}, {"error", s.message()}});
  }
  if (pool != nullptr) {
    // Sockets to a node that failed to connect or answer are suspect; a
    // timeout leaves the idle ones (the timed-out one is dropped as broken):
    // a stalled node that resumes serves on them at once.
    if (!timed_out) pool->DropIdle();
    pool->counters().errors.fetch_add(1, std::memory_order_relaxed);
  }
  ctx_->stats.Add(timed_out ? &Stats::timeouts : &Stats::conn_errors);
  if (consecutive_failures_.fetch_add(1, std::memory_order_relaxed) + 1 >=
      ctx_->opts.failures_before_refresh) {
    consecutive_failures_.store(0, std::memory_order_relaxed);
    ctx_->TriggerRefresh();
  }
}

void NodePools::NoteSuccess(NodeEntry *node) {
  const uint32_t failures = node->health.consecutive_failures();
  const bool was_open = node->health.open();
  if (failures != 0 || was_open) node->health.Success();
  if (was_open && ctx_->log.Enabled(LogLevel::kInfo)) {
    auto log = [this, address = node->address, failures] {
      ctx_->log.Emit(LogLevel::kInfo, "node marked up",
                     {{"node", address}, {"failures", std::to_string(failures)}});
    };
    // Never a log handler on the engine thread (an asynchronous call's
    // answer is judged there): a handler may call the client.
    if (OnEngineThread()) {
      link_dials_.Spawn(log);
    } else {
      log();
    }
  }
  if (consecutive_failures_.load(std::memory_order_relaxed) != 0) {
    consecutive_failures_.store(0, std::memory_order_relaxed);
  }
}

NodePools::~NodePools() {
  if (loop_ != nullptr) {
    std::vector<std::shared_ptr<NodeLink>> links;
    for (auto &l : links_) links.push_back(l.second);
    CloseLinks(std::move(links), Error(kConnError, "the client is closing"));
    link_dials_.JoinAll();  // their results find the links closed
    loop_->Stop();
  }
  std::unique_lock<std::mutex> lock(dials_mu_);
  // wait_for, not wait: condition_variable::wait is a libstdc++ symbol of
  // GCC 12 (GLIBCXX_3.4.30), which would raise the wheel's manylinux tag and
  // the C++ runtime users need; wait_for is inline over pthread_cond_clockwait.
  while (dials_ != 0) dials_cv_.wait_for(lock, std::chrono::milliseconds(100));
}

std::shared_ptr<NodePools::PendingDial> NodePools::DialAside(NodeEntry *node, NodePool *pool,
                                                             uint32_t timeout_ms) {
  auto pending = std::make_shared<PendingDial>();
  {
    std::lock_guard<std::mutex> lock(dials_mu_);
    ++dials_;
  }
  std::thread([this, node, pool, timeout_ms, pending] {
    Result<std::unique_ptr<Connection>> c = pool->Dial(timeout_ms);
    {
      std::unique_lock<std::mutex> lock(pending->mu);
      if (!pending->abandoned) {
        if (c.ok()) {
          pending->conn = std::move(*c);
        } else {
          pending->status = c.status();
        }
        pending->done = true;
        pending->cv.notify_all();
      } else {
        lock.unlock();
        if (c.ok()) {
          pool->Release(std::move(*c));
        } else {
          NoteFailure(node, pool, c.status());
        }
      }
    }
    std::lock_guard<std::mutex> lock(dials_mu_);
    if (--dials_ == 0) dials_cv_.notify_all();
  }).detach();
  return pending;
}

Result<std::unique_ptr<Connection>> NodePools::AwaitDial(PendingDial *dial, int64_t until_ns,
                                                         bool abandon) {
  std::unique_lock<std::mutex> lock(dial->mu);
  // Slices of wait_for (see ~NodePools), so an open-ended wait needs no huge duration.
  for (int64_t now = SteadyNowNs(); !dial->done && now < until_ns; now = SteadyNowNs()) {
    dial->cv.wait_for(lock,
                      std::chrono::nanoseconds(std::min<int64_t>(until_ns - now, 100 * kNsPerMs)));
  }
  if (!dial->done) {
    dial->abandoned = abandon;
    return std::unique_ptr<Connection>();
  }
  if (dial->conn == nullptr) return dial->status;
  return std::move(dial->conn);
}

void NodePools::NoteHedgeLost(NodeEntry *node, NodePool *pool) {
  std::atomic<uint32_t> &losses = pool->counters().hedge_losses;
  const uint32_t n = losses.fetch_add(1, std::memory_order_relaxed) + 1;
  if (n < kHedgeLossesBeforeSetAside) return;
  losses.store(0, std::memory_order_relaxed);
  NodeRegistry &reg = ctx_->topo->registry();
  const bool was_open = node->health.open();
  node->health.SetAside(reg.clock()(), reg.health_config());
  if (!was_open && ctx_->log.Enabled(LogLevel::kWarn)) {
    ctx_->log.Emit(LogLevel::kWarn, "node marked down",
                   {{"node", node->address},
                    {"error", "lost " + std::to_string(n) + " hedged reads in a row"}});
  }
}

void NodePools::NoteServed(Access access, Tier tier, NodePool *pool) {
  NodeCounters &nc = pool->counters();
  if (access == Access::kRead) {
    ctx_->stats.AddRead(static_cast<int>(tier));
    nc.reads.fetch_add(1, std::memory_order_relaxed);
  } else {
    ctx_->stats.Add(&Stats::writes);
    nc.writes.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace net
}  // namespace cloudroute
