// SentinelClient: Sentinel shard groups as a topology source of the engine
// (see sentinel.hpp).
#include <utility>

#include "cloudroute/net/sentinel.hpp"

namespace cloudroute {
namespace net {

namespace {

constexpr uint32_t kReaskMinGapMs = 100;  // writes re-ask a group at most this often

}  // namespace

SentinelClient::SentinelClient(ShardGroups *groups, SentinelOptions opts)
    : source_(groups,
              [this](uint32_t group) {
                // The write was not executed: learn where the master is now,
                // then try again (the engine bounds the attempts).
                (void)watcher_->Reask(group, kReaskMinGapMs);
                return true;
              }),
      ctx_(nullptr, &source_, std::move(opts.engine)),
      // The instances are standalone servers: no zone probe or readiness
      // check to run on a new connection.
      pools_(&ctx_,
             [](const std::string &, uint16_t, Connection *, uint32_t) { return Status::Ok(); }),
      executor_(&ctx_, &pools_) {}

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
  ConnectOptions &node_conn = opts.engine.conn;
  if (node_conn.reply_budget == nullptr) {
    node_conn.reply_budget = std::make_shared<ReplyBudget>(ClientBudgetFor(node_conn.limits));
  }
  if (opts.sentinel_conn.reply_budget == nullptr) {
    opts.sentinel_conn.reply_budget = node_conn.reply_budget;
  }
  SentinelOptions watcher_opts = opts;
  std::unique_ptr<SentinelClient> c(new SentinelClient(groups, std::move(opts)));
  if (Status s = c->source_.Check(); !s.ok()) return s;
  NodePools *pools = &c->pools_;
  c->watcher_ = std::make_unique<SentinelWatcher>(groups, std::move(sentinels), std::move(names),
                                                  std::move(watcher_opts), &c->counters_,
                                                  &c->ctx_.log, [pools] { pools->Sweep(); });
  c->watcher_->Start();
  Status s = c->watcher_->AskAll();
  if (!s.ok()) return s;  // destroying c stops the thread
  SentinelClient *raw = c.get();
  // Failures in a row (failures_before_refresh) re-ask every group on this
  // thread, at most every refresh_min_gap_ms.
  c->refresher_ = std::make_unique<Refresher>([raw] { (void)raw->watcher_->AskAll(); }, [] {},
                                              c->ctx_.opts.refresh_interval_ms,
                                              c->ctx_.opts.refresh_min_gap_ms);
  c->ctx_.refresher.store(c->refresher_.get(), std::memory_order_release);
  c->prober_ = std::make_unique<RecoveryProber>(&c->ctx_, &c->pools_);
  return c;
}

SentinelClient::~SentinelClient() {
  async_.Close();  // every call in flight completes (cancelled) while the engine is whole
  prober_.reset();
  ctx_.refresher.store(nullptr, std::memory_order_release);
  refresher_.reset();
  watcher_.reset();  // its thread logs through ctx_
}

}  // namespace net
}  // namespace cloudroute
