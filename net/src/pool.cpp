// NodePool (see pool.hpp).
#include "cloudroute/net/pool.hpp"

#include <chrono>

#include "cloudroute/core/health.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

NodePool::NodePool(Dialer dial, PoolOptions opts, OnPoisoned on_poisoned)
    : dial_(std::move(dial)), opts_(opts), on_poisoned_(std::move(on_poisoned)) {
  if (opts_.max_size == 0) const_cast<PoolOptions &>(opts_).max_size = 1;
}

void NodePool::EvictIdleLocked(int64_t now_ns) {
  const int64_t max_idle = MsToNs(opts_.idle_ms);
  size_t n = 0;
  while (n < idle_.size() && now_ns - idle_[n]->last_used_ns > max_idle) ++n;
  if (n == 0) return;
  idle_.erase(idle_.begin(), idle_.begin() + static_cast<ptrdiff_t>(n));
  open_ -= n;
  cv_.notify_all();
}

Result<std::unique_ptr<Connection>> NodePool::Acquire(uint32_t wait_ms) {
  bool must_dial = false;
  Result<std::unique_ptr<Connection>> c = Reserve(wait_ms, &must_dial);
  if (!c.ok() || !must_dial) return c;
  return Dial(wait_ms);
}

Result<std::unique_ptr<Connection>> NodePool::Reserve(uint32_t wait_ms, bool *must_dial) {
  std::vector<Status> poisoned;
  Result<std::unique_ptr<Connection>> c = Error(Code::kInternal, "not reserved");
  {
    std::unique_lock<std::mutex> lock(mu_);
    c = ReserveLocked(&lock, wait_ms, must_dial, &poisoned);
  }
  if (on_poisoned_) {
    for (const Status &s : poisoned) on_poisoned_(s);
  }
  return c;
}

Result<std::unique_ptr<Connection>> NodePool::ReserveLocked(std::unique_lock<std::mutex> *lock,
                                                            uint32_t wait_ms, bool *must_dial,
                                                            std::vector<Status> *poisoned) {
  *must_dial = false;
  // SteadyNowNs() counts steady_clock's epoch: the deadline is one of its points.
  const std::chrono::steady_clock::time_point deadline{
      std::chrono::nanoseconds(DeadlineAfter(wait_ms))};
  for (;;) {
    EvictIdleLocked(SteadyNowNs());
    while (!idle_.empty()) {
      std::unique_ptr<Connection> c = std::move(idle_.back());
      idle_.pop_back();
      Status s = c->CheckIdle();
      if (s.ok()) return c;
      --open_;  // closed as c goes: a poisoned one is told, a closed one is just gone
      if (c->poisoned()) poisoned->push_back(std::move(s));
    }
    if (open_ < opts_.max_size) break;
    if (cv_.wait_until(*lock, deadline) == std::cv_status::timeout && idle_.empty() &&
        open_ >= opts_.max_size) {
      return Error(kTimeout, "all " + std::to_string(opts_.max_size) +
                                 " pooled connections stayed busy for " + std::to_string(wait_ms) +
                                 " ms");
    }
  }
  ++open_;
  *must_dial = true;
  return std::unique_ptr<Connection>();
}

Result<std::unique_ptr<Connection>> NodePool::Dial(uint32_t timeout_ms) {
  Result<std::unique_ptr<Connection>> c = dial_(timeout_ms);
  if (!c.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    --open_;
    cv_.notify_one();
    return c;
  }
  counters_.connections.fetch_add(1, std::memory_order_relaxed);
  return c;
}

void NodePool::Release(std::unique_ptr<Connection> conn) {
  if (conn == nullptr) return;
  const Status poisoned = conn->poisoned() ? conn->poison_status() : Status::Ok();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (conn->broken()) {
      conn.reset();
      --open_;
    } else {
      conn->last_used_ns = SteadyNowNs();
      idle_.push_back(std::move(conn));
    }
    cv_.notify_one();
  }
  if (!poisoned.ok() && on_poisoned_) on_poisoned_(poisoned);
}

void NodePool::Discard(std::unique_ptr<Connection> conn) {
  if (conn == nullptr) return;
  conn.reset();  // closes the socket: the reply in flight is never read
  std::lock_guard<std::mutex> lock(mu_);
  --open_;
  cv_.notify_one();
}

void NodePool::DropIdle() {
  std::lock_guard<std::mutex> lock(mu_);
  open_ -= idle_.size();
  idle_.clear();
  cv_.notify_all();
}

size_t NodePool::idle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return idle_.size();
}

size_t NodePool::open() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_;
}

}  // namespace net
}  // namespace cloudroute
