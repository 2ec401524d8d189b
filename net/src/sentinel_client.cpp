// SentinelClient: commands through Sentinel-managed shard groups (see
// sentinel.hpp).
#include <algorithm>
#include <chrono>
#include <thread>

#include "cloudroute/core/health.hpp"
#include "cloudroute/net/backoff.hpp"
#include "cloudroute/net/command_rules.hpp"
#include "cloudroute/net/errors.hpp"
#include "cloudroute/net/sentinel.hpp"

namespace cloudroute {
namespace net {

namespace {

constexpr size_t kMaxTried = 16;          // instances of a group tried per read
constexpr uint32_t kReaskMinGapMs = 100;  // writes re-ask a group at most this often

// Replies after which another instance may well answer: a replica loading
// its data set, or one that refuses stale reads while its master is away.
bool TryNextInstance(const Reply &r) {
  if (!r.is_error()) return false;
  const std::string p = ErrorPrefix(r);
  return p == "LOADING" || p == "MASTERDOWN" || p == "TRYAGAIN";
}

}  // namespace

Result<std::unique_ptr<SentinelClient>> SentinelClient::Create(ShardGroups *groups,
                                                               std::vector<Seed> sentinels,
                                                               std::vector<std::string> names,
                                                               SentinelOptions opts) {
  if (groups == nullptr) return Error(Code::kInvalid, "groups is NULL");
  if (sentinels.empty()) return Error(Code::kInvalid, "no sentinel addresses given");
  if (names.size() != groups->group_count()) {
    return Error(Code::kInvalid, std::to_string(names.size()) + " names for " +
                                     std::to_string(groups->group_count()) + " groups");
  }
  // One budget for every reply this client reads (reader.hpp), unless given.
  if (opts.node_conn.reply_budget == nullptr) {
    opts.node_conn.reply_budget =
        std::make_shared<ReplyBudget>(ClientBudgetFor(opts.node_conn.limits));
  }
  if (opts.sentinel_conn.reply_budget == nullptr) {
    opts.sentinel_conn.reply_budget = opts.node_conn.reply_budget;
  }
  std::unique_ptr<SentinelClient> c(new SentinelClient(groups, std::move(opts)));
  c->watcher_ = std::make_unique<SentinelWatcher>(groups, std::move(sentinels), std::move(names),
                                                  c->opts_, &c->counters_);
  c->watcher_->Start();
  Status s = c->watcher_->AskAll();
  if (!s.ok()) return s;  // destroying c stops the thread
  return c;
}

SentinelClient::~SentinelClient() { watcher_.reset(); }

uint32_t SentinelClient::TimeoutFor(Tier tier) const {
  const int t = static_cast<int>(tier);
  return opts_.timeout_ms[t >= 0 && t < kTierCount ? t : kTierCount - 1];
}

NodePool &SentinelClient::PoolFor(const NodeEntry *node) {
  std::lock_guard<std::mutex> lock(pools_mu_);
  std::unique_ptr<NodePool> &p = pools_[node->handle];
  if (p == nullptr) {
    const std::string host = node->host;
    const uint16_t port = node->port;
    const ConnectOptions conn = opts_.node_conn;
    // The handshake waits as long as the caller would for a command to the
    // instance (its tier's timeout); the unknown tier's when not told.
    const uint32_t fallback = TimeoutFor(Tier::kUnknown);
    p = std::make_unique<NodePool>(
        [host, port, conn, fallback](uint32_t timeout_ms) {
          return Connection::Open(host, port, conn, timeout_ms > 0 ? timeout_ms : fallback);
        },
        opts_.pool);
  }
  return *p;
}

void SentinelClient::NoteFailure(const NodeEntry *node, NodePool *pool, const Status &s) {
  (void)groups_->ReportFailure(node->handle);
  if (pool != nullptr) pool->DropIdle();  // sockets to a failing instance are suspect
  (s.code() == kTimeout ? counters_.timeouts : counters_.conn_errors)
      .fetch_add(1, std::memory_order_relaxed);
}

Result<ReplyPtr> SentinelClient::Execute(bool write, std::string_view key, const Args &args) {
  if (args.empty()) return Error(Code::kInvalid, "empty command");
  if (Status s = RefuseStateChange(args, ConnectionUse::kShared); !s.ok()) return s;
  return write ? Write(key, args) : Read(key, args);
}

Result<ReplyPtr> SentinelClient::Read(std::string_view key, const Args &args) {
  PolledCandidate order[kMaxTried];
  size_t count = 0;
  uint32_t group = 0;
  const Code code = groups_->ReadOrder(key.data(), key.size(), &group, order, kMaxTried, &count);
  if (code != Code::kOk) {
    return Error(code, code == Code::kNoTopology ? "no ring set" : "routing the read failed");
  }
  count = std::min(count, kMaxTried);
  if (count == 0) return Error(Code::kUnavailable, "the key's group has no instance known");
  std::string why;
  Status last;
  for (size_t i = 0; i < count; ++i) {
    const Candidate &c = order[i].c;
    NodePool &pool = PoolFor(c.node);
    const uint32_t timeout = TimeoutFor(c.tier);
    auto conn = pool.Acquire(timeout);
    if (!conn.ok()) {
      NoteFailure(c.node, &pool, conn.status());
      last = conn.status();
      why += (why.empty() ? "" : "; ") + conn.status().message();
      continue;
    }
    auto reply = (*conn)->Command(args, timeout);
    if (reply.ok()) {
      if (Status bad = CheckReply(args, **reply, conn->get()); !bad.ok()) reply = std::move(bad);
    }
    pool.Release(std::move(*conn));
    if (!reply.ok()) {
      NoteFailure(c.node, &pool, reply.status());
      last = reply.status();
      why += (why.empty() ? "" : "; ") + reply.status().message();
      continue;
    }
    if (TryNextInstance(**reply)) {
      why += (why.empty() ? "" : "; ") + c.node->address + ": " + (*reply)->str;
      last = Error(kServerError, (*reply)->str);
      continue;
    }
    (void)groups_->ReportSuccess(c.node->handle);
    counters_.reads.fetch_add(1, std::memory_order_relaxed);
    if (i > 0) counters_.fallbacks.fetch_add(1, std::memory_order_relaxed);
    if ((*reply)->is_error()) {
      counters_.server_errors.fetch_add(1, std::memory_order_relaxed);
      return Error(kServerError, (*reply)->str);
    }
    return std::move(*reply);
  }
  return Error(last.code() == Code::kOk ? Code::kUnavailable : last.code(),
               "no instance of the key's group answered: " + why);
}

Result<ReplyPtr> SentinelClient::Write(std::string_view key, const Args &args) {
  Status last;
  uint64_t jitter = static_cast<uint64_t>(SteadyNowNs());
  for (uint32_t attempt = 0;; ++attempt) {
    if (attempt > 0) {
      if (attempt > opts_.max_retries) return last;
      counters_.retries.fetch_add(1, std::memory_order_relaxed);
      jitter = jitter * 6364136223846793005ull + 1442695040888963407ull;
      std::this_thread::sleep_for(std::chrono::milliseconds(
          BackoffMs(attempt - 1, opts_.retry_base_ms, opts_.retry_cap_ms, jitter >> 11)));
    }
    Route r;
    const Code code = groups_->RouteWrite(key.data(), key.size(), &r);
    if (code == Code::kNoTopology) return Error(code, "no ring set");
    if (code != Code::kOk) {
      last = Error(code, "the key's group has no master known");
      uint32_t g = 0;
      if (groups_->Locate(key.data(), key.size(), &g) == Code::kOk)
        (void)watcher_->Reask(g, kReaskMinGapMs);
      continue;
    }
    const uint32_t group = r.shard;
    NodePool &pool = PoolFor(r.node);
    const uint32_t timeout = TimeoutFor(r.tier);
    auto conn = pool.Acquire(timeout);
    if (!conn.ok()) {
      // Never dialed: the write did not reach anyone. Sentinel may know better.
      NoteFailure(r.node, &pool, conn.status());
      last = conn.status();
      (void)watcher_->Reask(group, kReaskMinGapMs);
      continue;
    }
    auto reply = (*conn)->Command(args, timeout);
    if (reply.ok()) {
      if (Status bad = CheckReply(args, **reply, conn->get()); !bad.ok()) reply = std::move(bad);
    }
    pool.Release(std::move(*conn));
    if (!reply.ok()) {
      // It may have been executed: never re-sent. Learn where the master is.
      NoteFailure(r.node, &pool, reply.status());
      (void)watcher_->Reask(group, kReaskMinGapMs);
      return MaySentWrite(reply.status());
    }
    if ((*reply)->is_error() && ErrorPrefix(**reply) == "READONLY") {
      // A demoted master refused it (not executed): the group moved.
      last = Error(kServerError, r.node->address + ": " + (*reply)->str);
      (void)watcher_->Reask(group, kReaskMinGapMs);
      continue;
    }
    (void)groups_->ReportSuccess(r.node->handle);
    counters_.writes.fetch_add(1, std::memory_order_relaxed);
    if ((*reply)->is_error()) {
      counters_.server_errors.fetch_add(1, std::memory_order_relaxed);
      return Error(kServerError, (*reply)->str);
    }
    return std::move(*reply);
  }
}

}  // namespace net
}  // namespace cloudroute
