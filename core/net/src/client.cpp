// Client: single-key execution, redirects, retries, pools, refresh (see
// client.hpp). Multi-key fan-out is in client_multi.cpp.
#include "cloudroute/net/client.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <unordered_set>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/core/selector.hpp"
#include "cloudroute/net/backoff.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

namespace {

// "MOVED 3999 127.0.0.1:6381" / "ASK 3999 :6381" (empty host: the node that
// answered). False when the text does not parse.
bool ParseRedirect(const std::string &text, const NodeEntry *from, uint16_t *slot,
                   std::string *host, uint16_t *port) {
  const size_t sp1 = text.find(' ');
  if (sp1 == std::string::npos) return false;
  const size_t sp2 = text.find(' ', sp1 + 1);
  if (sp2 == std::string::npos) return false;
  const long s = std::strtol(text.c_str() + sp1 + 1, nullptr, 10);
  std::string addr = text.substr(sp2 + 1);
  const size_t colon = addr.rfind(':');
  if (colon == std::string::npos || s < 0 || s >= static_cast<long>(kSlotCount)) return false;
  const long p = std::strtol(addr.c_str() + colon + 1, nullptr, 10);
  if (p <= 0 || p > 65535) return false;
  *host = addr.substr(0, colon);
  if (host->size() >= 2 && host->front() == '[') *host = host->substr(1, host->size() - 2);
  if (host->empty() || *host == "?") *host = from->host;
  *slot = static_cast<uint16_t>(s);
  *port = static_cast<uint16_t>(p);
  return true;
}

constexpr uint32_t kSettleRefreshes = 10;

// What the read candidates depend on, as text: every shard's slot ranges and
// its nodes' addresses, roles and health.
std::string Signature(const Topology &t) {
  std::string out;
  for (const TopoShard &sh : t.shards) {
    for (const SlotRange &r : sh.ranges) out += std::to_string(r.start) + "-" + std::to_string(r.end) + ",";
    std::vector<uint32_t> members = sh.replicas;
    if (sh.master != kNoNode) members.insert(members.begin(), sh.master);
    for (uint32_t i : members) {
      const TopoNode &n = t.nodes[i];
      out += n.address() + (n.role == Role::kMaster ? "M" : "R") +
             std::to_string(static_cast<int>(n.health)) + ";";
    }
    out += "|";
  }
  return out;
}

}  // namespace

Client::Client(Router *router, std::vector<Seed> seeds, ClientOptions opts)
    : router_(router), seeds_(std::move(seeds)), opts_(std::move(opts)) {}

Result<std::unique_ptr<Client>> Client::Create(Router *router, std::vector<Seed> seeds,
                                               ClientOptions opts) {
  if (router == nullptr) return Error(Code::kInvalid, "router is NULL");
  if (seeds.empty()) return Error(Code::kInvalid, "no seed nodes given");
  std::unique_ptr<Client> c(new Client(router, std::move(seeds), std::move(opts)));
  Status s = c->Refresh();
  if (!s.ok()) return s;
  Client *raw = c.get();
  c->refresher_ = std::make_unique<Refresher>([raw] { raw->RefreshInBackground(); },
                                              [raw] {
                                                raw->PingIdle();
                                                raw->PublishRtt();
                                              },
                                              c->opts_.refresh_interval_ms,
                                              c->opts_.refresh_min_gap_ms);
  return c;
}

// refresher_ is the last member, so it is destroyed first, and ~unique_ptr
// deletes the Refresher (stopping and joining its thread) while the pointer
// still holds it: the thread reads refresher_ inside Refresh() until it is
// joined. (refresher_.reset() here cleared the pointer before the join: a data
// race, and a null dereference at the Trigger() in Refresh().)
Client::~Client() = default;

uint32_t Client::TimeoutFor(Tier tier) const {
  const int t = static_cast<int>(tier);
  return opts_.timeout_ms[t >= 0 && t < kTierCount ? t : kTierCount - 1];
}

NodePool &Client::PoolFor(NodeEntry *node) {
  std::lock_guard<std::mutex> lock(pools_mu_);
  std::unique_ptr<NodePool> &p = pools_[node->handle];
  if (p == nullptr) {
    // Dial the announced address, or where the configuration re-points it
    // (NAT, a proxy, a cloud's private endpoint): routing keeps the identity.
    std::string host = node->host;
    uint16_t port = node->port;
    const auto &remap = router_->config().connect_via;
    if (auto it = remap.find(node->address); it != remap.end()) {
      host = it->second.first;
      port = it->second.second;
    }
    ConnectOptions conn = opts_.conn;
    conn.readonly = true;  // once per connection; harmless on a master
    const uint32_t timeout = std::max(opts_.conn.connect_timeout_ms, TimeoutFor(Tier::kUnknown));
    Stats *stats = &stats_;
    const std::string id_host = node->host;  // the identity zones are reported under
    const uint16_t id_port = node->port;
    p = std::make_unique<NodePool>(
        [this, host, port, id_host, id_port, conn, timeout,
         stats]() -> Result<std::unique_ptr<Connection>> {
          auto c = Connection::Open(host, port, conn, timeout);
          if (!c.ok()) return c;
          stats->Add(&Stats::connections);
          ProbeZone(id_host, id_port, c->get(), timeout);
          if ((*c)->broken()) return Error(kConnError, FormatAddress(host, port) + ": zone probe failed");
          Status ready = CheckReplicaReady(c->get(), timeout);
          if (!ready.ok()) return Error(ready.code(), FormatAddress(host, port) + ": " + ready.message());
          return c;
        },
        opts_.pool);
  }
  return *p;
}

void Client::NoteFailure(NodeEntry *node, NodePool *pool, const Status &s) {
  node->health.Failure(router_->registry().clock()(), router_->registry().health_config());
  if (pool != nullptr) {
    pool->DropIdle();  // sockets to a failing node are suspect
    pool->counters().errors.fetch_add(1, std::memory_order_relaxed);
  }
  stats_.Add(s.code() == kTimeout ? &Stats::timeouts : &Stats::conn_errors);
  if (consecutive_failures_.fetch_add(1, std::memory_order_relaxed) + 1 >=
      opts_.failures_before_refresh) {
    consecutive_failures_.store(0, std::memory_order_relaxed);
    if (refresher_ != nullptr) refresher_->Trigger();
  }
}

void Client::NoteSuccess(NodeEntry *node) {
  if (node->health.consecutive_failures() != 0) node->health.Success();
  if (consecutive_failures_.load(std::memory_order_relaxed) != 0) {
    consecutive_failures_.store(0, std::memory_order_relaxed);
  }
}

Client::Outcome Client::Classify(ReplyPtr reply, const NodeEntry *node, Access access) const {
  Outcome o;
  if (!reply->is_error()) {
    o.kind = Kind::kDone;
    o.reply = std::move(reply);
    return o;
  }
  const std::string prefix = ErrorPrefix(*reply);
  if ((prefix == "MOVED" || prefix == "ASK") &&
      ParseRedirect(reply->str, node, &o.slot, &o.host, &o.port)) {
    o.kind = prefix == "MOVED" ? Kind::kMoved : Kind::kAsk;
  } else if (prefix == "TRYAGAIN" || prefix == "CLUSTERDOWN") {
    o.kind = Kind::kRetry;
  } else if (prefix == "LOADING" || prefix == "MASTERDOWN") {
    // A replica that cannot serve yet: a read moves on, a write waits.
    o.kind = access == Access::kRead ? Kind::kNodeFailed : Kind::kRetry;
    o.status = Error(kServerError, node->address + ": " + reply->str);
  } else {
    o.kind = Kind::kServerError;
  }
  o.reply = std::move(reply);
  return o;
}

Client::Outcome Client::TryNode(NodeEntry *node, Tier tier, Access access, const Args &args,
                                bool asking) {
  static const Args kAsking{"ASKING"};
  NodePool &pool = PoolFor(node);
  const uint32_t timeout = TimeoutFor(tier);
  Outcome o;
  auto conn = pool.Acquire(timeout);
  if (!conn.ok()) {
    NoteFailure(node, &pool, conn.status());
    o.status = conn.status();
    return o;
  }
  std::vector<const Args *> cmds;
  if (asking) cmds.push_back(&kAsking);
  cmds.push_back(&args);
  std::vector<ReplyPtr> replies;
  const int64_t t0 = SteadyNowNs();
  Status s = (*conn)->Pipeline(cmds, timeout, &replies);
  const int64_t t1 = SteadyNowNs();
  pool.Release(std::move(*conn));
  if (!s.ok()) {
    NoteFailure(node, &pool, s);
    o.status = s;
    o.maybe_sent = true;
    return o;
  }
  NoteSuccess(node);
  NodeCounters &nc = pool.counters();
  nc.AddLatency(static_cast<uint32_t>(std::min<int64_t>((t1 - t0) / 1000, UINT32_MAX)));
  nc.last_sample_ns.store(t1, std::memory_order_relaxed);
  o = Classify(std::move(replies.back()), node, access);
  if (o.kind == Kind::kDone || o.kind == Kind::kServerError) {
    if (access == Access::kRead) {
      stats_.AddRead(static_cast<int>(tier));
      nc.reads.fetch_add(1, std::memory_order_relaxed);
    } else {
      stats_.Add(&Stats::writes);
      nc.writes.fetch_add(1, std::memory_order_relaxed);
    }
  }
  return o;
}

Client::Outcome Client::TryRead(const CandidateSet &set, const Args &args, uint16_t slot) {
  NodeRegistry &reg = router_->registry();
  Outcome result;
  uint32_t tried = 0, failed = 0;
  VisitInPollOrder(
      set, [&reg]() { return reg.NextRandom(); },
      [&](const Candidate &c) {
        // Admit() claims a half-open probe: only ask it of a node we will try.
        if (!c.node->health.Admit(reg.clock(), reg.health_config())) return false;
        ++tried;
        Outcome o = TryNode(c.node, c.tier, Access::kRead, args, false);
        if (o.kind == Kind::kNodeFailed) {
          ++failed;
          result = std::move(o);
          return false;
        }
        if (failed > 0) stats_.Add(&Stats::fallbacks);
        result = std::move(o);
        return true;
      });
  if (tried == 0) {
    result.kind = Kind::kNodeFailed;
    result.status = Error(Code::kUnavailable, "every read candidate of slot " +
                                                  std::to_string(slot) + " is marked down");
  } else if (result.kind == Kind::kNodeFailed) {
    result.status = Error(result.status.code(), "all " + std::to_string(tried) +
                                                    " reachable read candidates of slot " +
                                                    std::to_string(slot) +
                                                    " failed; last: " + result.status.message());
  }
  return result;
}

Result<ReplyPtr> Client::Execute(Access access, std::string_view key, const Args &args) {
  if (args.empty()) return Error(Code::kInvalid, "empty command");
  return ExecuteSlot(access, KeySlot(key.data(), key.size()), args);
}

Result<ReplyPtr> Client::ExecuteSlot(Access access, uint16_t slot, const Args &args) {
  NodeEntry *ask = nullptr;
  uint32_t redirects = 0, retries = 0;
  for (;;) {
    Outcome o;
    if (ask != nullptr) {
      o = TryNode(ask, Tier::kUnknown, access, args, /*asking=*/true);
      ask = nullptr;
    } else {
      std::shared_ptr<const Snapshot> snap = router_->Current();
      if (snap == nullptr) return Error(Code::kNoTopology, "no topology installed");
      const CandidateSet *set = snap->SetForSlot(slot);
      if (set == nullptr) {
        refresher_->Trigger();
        return Error(Code::kSlotUncovered, "slot " + std::to_string(slot) + " is served by no shard");
      }
      if (access == Access::kWrite) {
        if (set->master == nullptr) {
          return Error(Code::kUnavailable, "the master of slot " + std::to_string(slot) +
                                               " has no known endpoint");
        }
        o = TryNode(set->master, set->master_tier, access, args, false);
      } else {
        // A migrating slot's set is master-first (see Snapshot::slot_to_set).
        o = TryRead(*set, args, slot);
      }
    }
    switch (o.kind) {
      case Kind::kDone:
        return std::move(o.reply);
      case Kind::kServerError:
        stats_.Add(&Stats::server_errors);
        return Error(kServerError, o.reply->str);
      case Kind::kNodeFailed:
        return o.status;
      case Kind::kMoved:
      case Kind::kAsk: {
        if (++redirects > opts_.max_redirects) {
          return Error(kServerError, "too many redirects for slot " + std::to_string(slot) +
                                         "; last: " + o.reply->str);
        }
        if (o.kind == Kind::kMoved) {
          stats_.Add(&Stats::moved);
          Status s = router_->ReportMoved(o.slot, o.host, o.port);
          if (!s.ok()) return s;
          refresher_->Trigger();
        } else {
          stats_.Add(&Stats::ask);
          auto target = router_->ReportAsk(o.slot, o.host, o.port);  // marks it migrating
          if (!target.ok()) return target.status();
          ask = *target;
        }
        break;
      }
      case Kind::kRetry: {
        if (++retries > opts_.max_retries) {
          stats_.Add(&Stats::server_errors);
          return Error(kServerError, o.reply != nullptr ? o.reply->str : o.status.message());
        }
        stats_.Add(&Stats::retries);
        const uint32_t ms = BackoffMs(retries - 1, opts_.retry_base_ms, opts_.retry_cap_ms,
                                      router_->registry().NextRandom());
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        break;
      }
    }
  }
}

Status Client::Refresh() {
  std::lock_guard<std::mutex> lock(refresh_mu_);
  // Ask the nodes we know (healthy ones first), then the configured seeds.
  std::vector<Seed> ask, down;
  std::unordered_set<std::string> seen;
  if (std::shared_ptr<const Snapshot> snap = router_->Current()) {
    NodeRegistry &reg = router_->registry();
    for (const TopoNode &n : snap->topology->nodes) {
      if (!n.endpoint_known() || !seen.insert(n.address()).second) continue;
      NodeEntry *e = reg.Find(n.address());
      const bool up = e == nullptr || e->health.State(reg.clock()()) == HealthState::kUp;
      (up ? ask : down).push_back(Seed{n.host, n.port});
    }
  }
  ask.insert(ask.end(), down.begin(), down.end());
  for (const Seed &s : seeds_) {
    if (seen.insert(FormatAddress(s.host, s.port)).second) ask.push_back(s);
  }
  auto d = Discover(ask, opts_.conn, TimeoutFor(Tier::kUnknown));
  if (!d.ok()) {
    stats_.Add(&Stats::refresh_failures);
    return d.status();
  }
  Status s = router_->Update(d->topology);
  if (!s.ok()) {
    stats_.Add(&Stats::refresh_failures);
    return s;
  }
  stats_.Add(&Stats::refreshes);
  if (refresher_ != nullptr) refresher_->NoteRefreshed();
  // A topology read mid-transition is incomplete: during a failover the
  // replicas of the old master are listed under no shard until they follow
  // the new one (which takes gossip, up to about a node timeout), and a
  // syncing replica is "loading"; both are left out of the read candidates.
  // So after a change, refresh again at the triggered pace while a node of
  // the last settled topology is missing or a replica is loading, or the
  // reply still changes — at most kSettleRefreshes times per episode —
  // instead of leaving reads on a remote node for a whole refresh interval.
  const std::string sig = Signature(*d->topology);
  bool unsettled = !topo_signature_.empty() && sig != topo_signature_;
  std::unordered_set<std::string> present;
  for (const TopoNode &n : d->topology->nodes) {
    present.insert(n.address());
    unsettled |= n.health == ReportedHealth::kLoading;
  }
  for (const std::string &a : settled_nodes_) unsettled |= present.count(a) == 0;
  topo_signature_ = sig;
  if (unsettled && settle_left_ == 0 && !settling_) {
    settle_left_ = kSettleRefreshes;  // a new episode
    settling_ = true;
  }
  if (unsettled && settle_left_ > 0) {
    --settle_left_;
    if (refresher_ != nullptr) refresher_->Trigger();
  } else {
    settling_ = false;
    settle_left_ = 0;
    settled_nodes_ = std::move(present);
  }
  ScanMigrations(*d->topology);
  CheckReplicaLag(*d->topology);
  LearnZones();
  return Status::Ok();
}

void Client::RefreshInBackground() { (void)Refresh(); }

void Client::PublishRtt() {
  std::vector<std::pair<uint32_t, NodePool *>> pools;
  {
    std::lock_guard<std::mutex> lock(pools_mu_);
    for (auto &p : pools_) pools.emplace_back(p.first, p.second.get());
  }
  for (auto &p : pools) {
    NodeCounters &c = p.second->counters();
    const uint32_t now = c.latency_us.load(std::memory_order_relaxed);
    const uint32_t pub = c.published_rtt_us.load(std::memory_order_relaxed);
    // Only changes of more than 10% rebuild the NEAREST order.
    if (now == 0 || (pub != 0 && (now > pub ? now - pub : pub - now) * 10 <= pub)) continue;
    if (router_->SetRtt(p.first, now).ok()) c.published_rtt_us.store(now, std::memory_order_relaxed);
  }
}

std::vector<NodeStatsValues> Client::node_stats() const {
  std::vector<NodeStatsValues> out;
  std::lock_guard<std::mutex> lock(pools_mu_);
  for (const auto &p : pools_) {
    NodeStatsValues v;
    v.node = router_->registry().Get(p.first);
    NodeCounters &c = p.second->counters();
    v.reads = c.reads.load(std::memory_order_relaxed);
    v.writes = c.writes.load(std::memory_order_relaxed);
    v.errors = c.errors.load(std::memory_order_relaxed);
    v.connections = c.connections.load(std::memory_order_relaxed);
    v.latency_us = c.latency_us.load(std::memory_order_relaxed);
    v.open = p.second->open();
    v.idle = p.second->idle();
    out.push_back(v);
  }
  std::sort(out.begin(), out.end(), [](const NodeStatsValues &a, const NodeStatsValues &b) {
    return a.node->handle < b.node->handle;
  });
  return out;
}

}  // namespace net
}  // namespace cloudroute
