// The pub/sub engine of a live cluster client (see subscriber.hpp).
#include "cloudroute/net/subscriber.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <set>
#include <utility>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/outcome.hpp"

namespace cloudroute {
namespace net {

namespace {
constexpr int kTickMs = 100;             // the loop's longest sleep
constexpr uint32_t kPlaceRetryMs = 200;  // no usable node: try again this much later
constexpr uint32_t kAvoidBaseMs = 1000;  // a node that failed us: avoided, doubling...
constexpr uint32_t kAvoidMaxMs = 8000;   // ...up to this
constexpr uint32_t kErrorRetryMaxMs = 2000;

const CandidateSet *SetForName(const Snapshot &snap, const std::string &name) {
  return snap.SetForSlot(KeySlot(name.data(), name.size()));
}

// What a node's readiness is sampled under: its address and its shard's
// master (a replica re-pointed to a new master starts over: that master
// forwards SPUBLISH only to the replicas it knows).
std::string ReadyKey(const NodeEntry *node, const CandidateSet &set) {
  return node->address + "|" + (set.master != nullptr ? set.master->address : std::string());
}

uint32_t Backoff(uint32_t base_ms, uint32_t times, uint32_t max_ms) {
  const uint32_t shift = std::min<uint32_t>(times, 16);
  return static_cast<uint32_t>(std::min<uint64_t>(static_cast<uint64_t>(base_ms) << shift, max_ms));
}
}  // namespace

// A command sent on a link, waiting for its confirmations (one per name).
struct Subscriber::Sent {
  PushFrame::Type type;  // kSubscribe, kUnsubscribe, kPong (a PING)
  ChannelKind kind;
  std::deque<std::string> names;
  int64_t deadline_ns;
  bool probe = false;  // the PING after a planned move's subscribe: an error = not ready
};

// One connection of the subscriber, to one node.
struct Subscriber::Link {
  std::unique_ptr<Connection> conn;
  std::shared_ptr<const Snapshot> snap;  // pins node
  NodeEntry *node = nullptr;
  std::string address;  // as announced
  Tier tier = Tier::kUnknown;
  bool classic = false;  // carries channels and patterns (else shard channels)
  // Commands whose confirmations have not all come, in order.
  std::deque<Sent> sent;
  int64_t next_ping_ns = 0;
  // When a frame was last read: what the node sent before an answer comes
  // first, so a link that keeps delivering is not late (see Timers).
  int64_t read_ns = 0;
  size_t names = 0;     // names placed on this link
  uint32_t probes = 0;  // planned moves' PINGs unanswered
  // Failed: dropped by SweepDead (after the caller's loop over links).
  bool dead = false;
  bool poisoned = false;
  // Drain stopped at a full queue: frames may wait in the reader's buffer,
  // which poll does not see; drained again once the queue has room.
  bool stalled = false;
  Status why;
};

// One subscribed name.
struct Subscriber::Name {
  enum class State : uint8_t { kPending, kSent, kSubscribed };
  State state = State::kPending;
  Link *link = nullptr;    // kSent, kSubscribed
  bool ever = false;       // subscribed once: the next confirmation is a resubscription
  int64_t retry_ns = 0;    // kPending: not before
  uint32_t errors = 0;     // error replies in a row (backoff)
  std::string master;      // a shard channel: its slot's master when placed
  std::string moved_from;  // the master its slot left (sunsubscribe / MOVED); "" = none
  int64_t moved_ns = 0;
  // A planned move (make-before-break): subscribed on `next` too, not yet
  // confirmed; then, once it is, `link` is the new node and `draining` the
  // old one until its unsubscribe is confirmed. Messages of all three count.
  Link *next = nullptr;
  bool next_confirmed = false;  // its subscribe is; the probe PING after it not yet
  Link *draining = nullptr;
  std::string next_master;
  // The last planned move made (anti-flap). An attempt the new node refused
  // does not count: the name never left, and the node's avoidance spaces
  // the next attempt.
  int64_t planned_ns = 0;
};

Result<std::unique_ptr<Subscriber>> Subscriber::Start(ClientContext *ctx, NodePools *pools) {
  const int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) return Status(Code::kNoMemory, "subscription: no eventfd");
  std::unique_ptr<Subscriber> s(new Subscriber(ctx, pools, fd));
  try {
    s->thread_ = std::thread([p = s.get()] { p->Run(); });
  } catch (const std::system_error &e) {
    return Status(Code::kNoMemory, std::string("subscription: no thread: ") + e.what());
  }
  return s;
}

Subscriber::Subscriber(ClientContext *ctx, NodePools *pools, int wake_fd)
    : ctx_(ctx), pools_(pools), wake_fd_(wake_fd) {
  queue_.set_on_drained([this] { Signal(); });
}

Subscriber::~Subscriber() {
  // Readers first: they return at once, while the thread may still be in a
  // dial (bounded by the node's timeout); what it queues now is dropped.
  queue_.Close();
  stop_.store(true, std::memory_order_release);
  Signal();
  if (thread_.joinable()) thread_.join();
  links_.clear();
  close(wake_fd_);
}

void Subscriber::Signal() {
  const uint64_t one = 1;
  ssize_t n;
  do {
    n = write(wake_fd_, &one, sizeof one);
  } while (n < 0 && errno == EINTR);
}

void Subscriber::Add(ChannelKind kind, std::vector<std::string> names) {
  {
    std::lock_guard<std::mutex> lock(ops_mu_);
    ops_.push_back(Op{true, kind, std::move(names)});
  }
  Signal();
}

void Subscriber::Remove(ChannelKind kind, std::vector<std::string> names) {
  {
    std::lock_guard<std::mutex> lock(ops_mu_);
    ops_.push_back(Op{false, kind, std::move(names)});
  }
  Signal();
}

void Subscriber::Event(PubSubItem::Type type, const Key &key, const std::string &node,
                       const std::string &reason) {
  PubSubItem item;
  item.type = type;
  item.kind = key.first;
  item.channel = key.second;
  item.node = node;
  item.reason = reason;
  queue_.Push(std::move(item));
}

uint32_t Subscriber::TimeoutFor(const Link &link) const { return ctx_->TimeoutFor(link.tier); }

bool Subscriber::Avoided(const std::string &address, int64_t now) const {
  auto it = avoid_.find(address);
  return it != avoid_.end() && now < it->second.until_ns;
}

void Subscriber::Run() {
  while (!stop_.load(std::memory_order_acquire)) {
    ApplyOps();
    const int64_t now = SteadyNowNs();
    Reconcile(now);
    PlacePending(now);
    PlanMoves(now);
    SweepDead();
    Timers(SteadyNowNs());
    CloseIdleLinks();
    if (stop_.load(std::memory_order_acquire)) break;
    Poll(SteadyNowNs());
  }
}

void Subscriber::ApplyOps() {
  std::vector<Op> ops;
  {
    std::lock_guard<std::mutex> lock(ops_mu_);
    ops.swap(ops_);
  }
  for (Op &op : ops) {
    if (op.add) {
      for (std::string &n : op.names) names_.emplace(Key{op.kind, std::move(n)}, Name{});
      continue;
    }
    // Per link, the names to unsubscribe there.
    std::map<Link *, std::vector<std::string>> off;
    for (std::string &n : op.names) {
      auto it = names_.find(Key{op.kind, n});
      if (it == names_.end()) continue;
      Link *l = it->second.link;
      Event(PubSubItem::Type::kUnsubscribed, it->first, l != nullptr ? l->address : "");
      if (Link *x = it->second.next; x != nullptr) {  // a planned move's new node too
        --x->names;
        off[x].push_back(n);
      }
      if (l != nullptr) {
        --l->names;
        off[l].push_back(std::move(n));
      }
      names_.erase(it);
    }
    for (auto &[l, list] : off) SendGrouped(l, PushFrame::Type::kUnsubscribe, op.kind, list);
  }
}

bool Subscriber::StillServes(const Key &key, const NodeEntry *node, const Snapshot &snap) const {
  if (key.first == ChannelKind::kShard) {
    const CandidateSet *set = SetForName(snap, key.second);
    if (set == nullptr) return false;
    if (set->master == node) return true;
    for (const Candidate &c : set->list) {
      if (c.node == node) return true;
    }
    return false;
  }
  const size_t shards = snap.topology != nullptr ? snap.topology->shards.size() : 0;
  for (size_t i = 0; i < shards && i < snap.sets.size(); ++i) {
    if (snap.sets[i].master == node) return true;
    for (const Candidate &c : snap.sets[i].list) {
      if (c.node == node) return true;
    }
  }
  return false;
}

void Subscriber::Reconcile(int64_t now) {
  std::shared_ptr<const Snapshot> snap = ctx_->topo->Current();
  if (snap == nullptr || snap->generation == generation_) return;
  generation_ = snap->generation;
  replan_ = true;
  // Names on a node that no longer serves them move (shard channels of a
  // moved slot whose node has not told us, the classic link's node gone).
  std::map<Link *, std::map<ChannelKind, std::vector<std::string>>> off;
  for (auto &[key, n] : names_) {
    if (n.next != nullptr && !StillServes(key, n.next->node, *snap)) {
      AbortMove(key, &n, "the topology no longer places it on " + n.next->address);
    }
    if (n.link == nullptr || StillServes(key, n.link->node, *snap)) continue;
    Link *l = n.link;
    off[l][key.first].push_back(key.second);
    --l->names;
    Moving(key, &n, l->address, "the topology no longer places it on " + l->address, now);
  }
  for (auto &[l, kinds] : off) {
    for (auto &[kind, list] : kinds) SendGrouped(l, PushFrame::Type::kUnsubscribe, kind, list);
  }
  SweepDead();
}

void Subscriber::Moving(const Key &key, Name *n, const std::string &node, const std::string &reason,
                        int64_t retry_ns) {
  if (Link *x = n->next; x != nullptr) {  // a planned move in flight: undone quietly
    n->next = nullptr;
    n->next_confirmed = false;
    --x->names;
    SendGrouped(x, PushFrame::Type::kUnsubscribe, key.first, {key.second});
  }
  n->draining = nullptr;  // its unsubscribe is sent already
  n->state = Name::State::kPending;
  n->link = nullptr;
  n->retry_ns = retry_ns;
  Event(PubSubItem::Type::kMoving, key, node, reason);
}

bool Subscriber::Usable(const NodeEntry *node, int64_t now) const {
  return node != nullptr && !Avoided(node->address, now) &&
         node->health.State(now) != HealthState::kDown;
}

NodeEntry *Subscriber::Choose(const Key &key, const Name &n, const Snapshot &snap, int64_t now,
                              int64_t *retry_ns, std::string *master, Tier *tier) {
  *retry_ns = DeadlineAfter(kPlaceRetryMs, now);
  if (key.first == ChannelKind::kShard) {
    const CandidateSet *set = SetForName(snap, key.second);
    if (set == nullptr) {
      ctx_->TriggerRefresh();
      return nullptr;
    }
    *master = set->master != nullptr ? set->master->address : "";
    if (!n.moved_from.empty() && *master == n.moved_from &&
        now - n.moved_ns < MsToNs(kMoveWaitMs)) {
      ctx_->TriggerRefresh();  // the move is not in this topology yet
      return nullptr;
    }
    // After its slot left a node (sunsubscribe): a replica only once it has
    // been a healthy candidate under the slot's new master for a while —
    // until that master knows it, SPUBLISH does not reach it — else the
    // master; the planned move brings the name to the replica later.
    const bool settle = !n.moved_from.empty() && Usable(set->master, now);
    for (const Candidate &c : set->list) {
      if (Usable(c.node, now) &&
          (!settle || c.node == set->master || ready_.Settled(ReadyKey(c.node, *set), now))) {
        *tier = c.tier;
        return c.node;
      }
    }
    if (Usable(set->master, now)) {
      *tier = set->master_tier;
      return set->master;
    }
    return nullptr;
  }
  // Channels and patterns: every shard's candidates, merged by tier and rank.
  struct Pick {
    Tier tier;
    uint32_t rank;
    NodeEntry *node;
  };
  std::vector<Pick> picks;
  const size_t shards = snap.topology != nullptr ? snap.topology->shards.size() : 0;
  for (size_t i = 0; i < shards && i < snap.sets.size(); ++i) {
    for (const Candidate &c : snap.sets[i].list) {
      if (Usable(c.node, now)) picks.push_back(Pick{c.tier, c.rank, c.node});
    }
    if (snap.sets[i].list.empty() && Usable(snap.sets[i].master, now)) {
      picks.push_back(Pick{snap.sets[i].master_tier, 0, snap.sets[i].master});
    }
  }
  if (picks.empty()) return nullptr;
  std::stable_sort(picks.begin(), picks.end(), [](const Pick &a, const Pick &b) {
    return a.tier != b.tier ? a.tier < b.tier : a.rank < b.rank;
  });
  size_t equal = 1;
  while (equal < picks.size() && picks[equal].tier == picks[0].tier &&
         picks[equal].rank == picks[0].rank) {
    ++equal;
  }
  const Pick &p = picks[pick_ % equal];
  *tier = p.tier;
  return p.node;
}

Result<Subscriber::Link *> Subscriber::LinkFor(NodeEntry *node, Tier tier, bool classic,
                                               const std::shared_ptr<const Snapshot> &snap,
                                               int64_t now) {
  for (const auto &l : links_) {
    if (!l->dead && l->node == node && l->classic == classic) return l.get();
  }
  const std::pair<std::string, uint16_t> dial = DialAddress(*ctx_, *node);
  ConnectOptions co = ctx_->opts.conn;
  co.readonly = ctx_->topo->redirects();
  auto c = Connection::Open(dial.first, dial.second, co, ctx_->TimeoutFor(tier));
  if (!c.ok()) {
    pools_->NoteFailure(node, nullptr, c.status());
    AvoidNode(node->address, now);
    ctx_->TriggerRefresh();
    return c.status();
  }
  ctx_->stats.Add(&Stats::connections);
  auto link = std::make_unique<Link>();
  link->conn = std::move(*c);
  link->snap = snap;
  link->node = node;
  link->address = node->address;
  link->tier = tier;
  link->classic = classic;
  if (ctx_->opts.idle_ping_ms > 0) link->next_ping_ns = DeadlineAfter(ctx_->opts.idle_ping_ms, now);
  links_.push_back(std::move(link));
  return links_.back().get();
}

void Subscriber::AvoidNode(const std::string &address, int64_t now) {
  ready_.Forget(address);  // a planned move waits for it to settle again
  Avoid &a = avoid_[address];
  a.until_ns = DeadlineAfter(Backoff(kAvoidBaseMs, a.times, kAvoidMaxMs), now);
  ++a.times;
}

void Subscriber::PlacePending(int64_t now) {
  bool any = false;
  for (const auto &[key, n] : names_) {
    if (n.state == Name::State::kPending && n.retry_ns <= now) any = true;
  }
  if (!any) return;
  std::shared_ptr<const Snapshot> snap = ctx_->topo->Current();
  if (snap == nullptr) return;
  ++pick_;
  std::map<Link *, std::map<ChannelKind, std::vector<std::string>>> batches;
  for (auto &[key, n] : names_) {
    if (n.state != Name::State::kPending || n.retry_ns > now) continue;
    int64_t retry = 0;
    std::string master;
    Tier tier = Tier::kUnknown;
    NodeEntry *node = Choose(key, n, *snap, now, &retry, &master, &tier);
    if (node == nullptr) {
      n.retry_ns = retry;
      continue;
    }
    auto link = LinkFor(node, tier, key.first != ChannelKind::kShard, snap, now);
    if (!link.ok()) {
      // The node is avoided now: the next round picks another.
      Moving(key, &n, node->address, "cannot subscribe: " + link.status().message(), now);
      continue;
    }
    n.state = Name::State::kSent;
    n.link = *link;
    n.master = master;
    ++(*link)->names;
    batches[*link][key.first].push_back(key.second);
  }
  for (auto &[l, kinds] : batches) {
    for (auto &[kind, list] : kinds) SendGrouped(l, PushFrame::Type::kSubscribe, kind, list);
  }
}

bool Subscriber::Healthy(const NodeEntry *node, int64_t now) const {
  return node != nullptr && !node->health.open() && !Avoided(node->address, now);
}

void Subscriber::PlanMoves(int64_t now) {
  if (!replan_ && (replan_ns_ == 0 || now < replan_ns_)) return;
  std::shared_ptr<const Snapshot> snap = ctx_->topo->Current();
  if (snap == nullptr) return;
  replan_ = false;
  replan_ns_ = 0;
  // Which nodes are healthy read candidates now, and since when.
  const size_t shards =
      std::min(snap->topology != nullptr ? snap->topology->shards.size() : 0, snap->sets.size());
  std::vector<std::string> healthy;
  for (size_t i = 0; i < shards; ++i) {
    for (const Candidate &c : snap->sets[i].list) {
      if (Healthy(c.node, now)) healthy.push_back(ReadyKey(c.node, snap->sets[i]));
    }
  }
  ready_.Sample(healthy, now);
  auto option = [&](const Candidate &c, const CandidateSet &set) {
    return NearerOption{ReadyKey(c.node, set), c.tier, Healthy(c.node, now)};
  };
  // Channels and patterns: any shard's candidates, by tier and rank.
  std::vector<std::pair<const Candidate *, const CandidateSet *>> classic;
  for (size_t i = 0; i < shards; ++i) {
    for (const Candidate &c : snap->sets[i].list) classic.emplace_back(&c, &snap->sets[i]);
  }
  std::stable_sort(classic.begin(), classic.end(), [](const auto &a, const auto &b) {
    return a.first->tier != b.first->tier ? a.first->tier < b.first->tier
                                          : a.first->rank < b.first->rank;
  });
  std::vector<NearerOption> classic_options;
  for (const auto &[c, set] : classic) classic_options.push_back(option(*c, *set));

  std::map<Link *, std::map<ChannelKind, std::vector<std::string>>> batches;
  std::vector<NearerOption> options;
  for (auto &[key, n] : names_) {
    if (n.state != Name::State::kSubscribed || n.link == nullptr || n.link->dead ||
        n.next != nullptr || n.draining != nullptr) {
      continue;
    }
    const bool is_classic = key.first != ChannelKind::kShard;
    const CandidateSet *set = is_classic ? nullptr : SetForName(*snap, key.second);
    if (!is_classic && set == nullptr) continue;
    if (!is_classic) {
      options.clear();
      for (const Candidate &c : set->list) options.push_back(option(c, *set));
    }
    const NearerDecision d = NearerNode::Decide(
        n.link->tier, is_classic ? classic_options : options, ready_, n.planned_ns, now);
    if (d.recheck_ns != 0)
      replan_ns_ = replan_ns_ == 0 ? d.recheck_ns : std::min(replan_ns_, d.recheck_ns);
    if (d.index < 0) continue;
    const size_t at = static_cast<size_t>(d.index);
    const Candidate &to = is_classic ? *classic[at].first : set->list[at];
    if (to.node == n.link->node) continue;
    auto link = LinkFor(to.node, to.tier, is_classic, snap, now);
    if (!link.ok()) continue;  // reported and avoided: it has to settle again
    n.next = *link;
    n.next_master = is_classic ? std::string()
                               : (set->master != nullptr ? set->master->address : std::string());
    ++(*link)->names;
    Event(PubSubItem::Type::kMoving, key, n.link->address,
          "a nearer node is ready: " + to.node->address + " (" + TierName(to.tier) + ")");
    batches[*link][key.first].push_back(key.second);
  }
  for (auto &[l, kinds] : batches) {
    // Then a PING, answered once the connection is subscribed: a node still
    // loading refuses it (LOADING) while it accepts the subscribe. The move
    // completes only when both are answered.
    for (auto &[kind, list] : kinds) SendGrouped(l, PushFrame::Type::kSubscribe, kind, list);
    (void)Send(l, PushFrame::Type::kPong, ChannelKind::kChannel, {}, /*probe=*/true);
  }
}

void Subscriber::AbortMove(const Key &key, Name *n, const std::string &why) {
  Link *x = n->next;
  n->next = nullptr;
  n->next_confirmed = false;
  replan_ = true;  // decided again: tried once the node is usable and settled again
  --x->names;
  SendGrouped(x, PushFrame::Type::kUnsubscribe, key.first, {key.second});
  Event(PubSubItem::Type::kResubscribed, key, n->link->address);
  if (ctx_->log.Enabled(LogLevel::kInfo)) {
    ctx_->log.EmitLimited(LogLevel::kInfo, "move failed " + x->address,
                          "subscription stays: the nearer node did not take it",
                          {{"node", x->address}, {"name", key.second}, {"error", why}});
  }
}

void Subscriber::SendGrouped(Link *link, PushFrame::Type type, ChannelKind kind,
                             const std::vector<std::string> &names) {
  if (kind != ChannelKind::kShard) {
    (void)Send(link, type, kind, names);
    return;
  }
  for (auto &[slot, group] : GroupBySlot(names)) {
    (void)slot;
    if (!Send(link, type, kind, group)) return;
  }
}

bool Subscriber::Send(Link *link, PushFrame::Type type, ChannelKind kind,
                      const std::vector<std::string> &names, bool probe) {
  if (link->dead) return false;
  Args args;
  if (type == PushFrame::Type::kPong) {
    args.push_back("PING");
  } else {
    args.push_back(type == PushFrame::Type::kSubscribe ? SubscribeVerb(kind)
                                                       : UnsubscribeVerb(kind));
    args.insert(args.end(), names.begin(), names.end());
  }
  std::string wire;
  AppendCommand(args, &wire);
  const uint32_t timeout = TimeoutFor(*link);
  Status s = link->conn->SendBytes(wire, DeadlineAfter(timeout));
  if (!s.ok()) {
    Fail(link, s, false);
    return false;
  }
  link->sent.push_back(Sent{type, kind, std::deque<std::string>(names.begin(), names.end()),
                            DeadlineAfter(timeout), probe});
  if (probe) ++link->probes;
  return true;
}

void Subscriber::Fail(Link *link, const Status &why, bool poisoned) {
  if (link->dead) return;
  link->dead = true;
  link->poisoned = poisoned;
  link->why = why;
}

void Subscriber::SweepDead() {
  const int64_t now = SteadyNowNs();
  for (size_t i = 0; i < links_.size();) {
    Link *l = links_[i].get();
    if (!l->dead) {
      ++i;
      continue;
    }
    if (l->poisoned) pools_->NotePoisoned(l->address, l->why);
    pools_->NoteFailure(l->node, nullptr, l->why);  // l->snap pins the node
    AvoidNode(l->address, now);
    ctx_->TriggerRefresh();
    if (ctx_->log.Enabled(LogLevel::kWarn)) {
      ctx_->log.EmitLimited(
          LogLevel::kWarn, "subscription lost " + l->address,
          "subscription connection lost, moving its names",
          {{"node", l->address}, {"names", std::to_string(l->names)}, {"error", l->why.message()}});
    }
    const std::string reason =
        (l->poisoned ? std::string() : std::string("connection lost: ")) + l->why.message();
    for (auto &[key, n] : names_) {
      if (n.next == l) {  // a planned move failed: still on its node
        n.next = nullptr;
        n.next_confirmed = false;
        replan_ = true;
        Event(PubSubItem::Type::kResubscribed, key, n.link->address);
        continue;
      }
      if (n.draining == l) {  // the old node of a planned move: done with it
        n.draining = nullptr;
        Event(PubSubItem::Type::kResubscribed, key, n.link->address);
        continue;
      }
      if (n.link != l) continue;
      if (Link *x = n.next; x != nullptr && !x->dead) {
        // Lost while moving to a nearer node: its subscription there,
        // sent already, is the placement now (its confirmation resubscribes).
        Event(PubSubItem::Type::kMoving, key, l->address, reason);
        n.link = x;
        n.next = nullptr;
        n.master = n.next_master;
        n.planned_ns = now;
        n.state = Name::State::kSent;
        if (n.next_confirmed) Confirmed(x, key);  // subscribed there already
        n.next_confirmed = false;
        continue;
      }
      Moving(key, &n, l->address, reason, now);
    }
    links_.erase(links_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

void Subscriber::CloseIdleLinks() {
  links_.erase(std::remove_if(links_.begin(), links_.end(),
                              [](const std::unique_ptr<Link> &l) {
                                return !l->dead && l->names == 0 && l->sent.empty();
                              }),
               links_.end());
}

void Subscriber::Timers(int64_t now) {
  // While the reader is behind, the sockets are not read: an answer that
  // waits there is not late, and a PING would only add to it.
  if (queue_.Full()) {
    for (const auto &l : links_) {
      for (Sent &sent : l->sent) sent.deadline_ns = DeadlineAfter(TimeoutFor(*l), now);
    }
    return;
  }
  // By index: Drain adds no link (failures are deferred to SweepDead).
  for (size_t i = 0; i < links_.size(); ++i) {
    Link *l = links_[i].get();
    if (l->dead) continue;
    // An answer waits behind the messages sent before it (a reader that
    // caught up leaves the servers' buffers to drain): late only once the
    // link read nothing for the timeout as well — and nothing waits to be
    // read now (this thread may have been kept from reading: a busy machine).
    if (!l->sent.empty() && now > l->sent.front().deadline_ns &&
        now > DeadlineAfter(TimeoutFor(*l), l->read_ns)) {
      const int64_t read_before = l->read_ns;
      if (!Drain(l) || l->read_ns != read_before) continue;
      Fail(l,
           Status(Code::kTimeout,
                  l->address + ": no answer to " +
                      (l->sent.front().type == PushFrame::Type::kPong
                           ? std::string("PING")
                           : std::string(l->sent.front().type == PushFrame::Type::kSubscribe
                                             ? SubscribeVerb(l->sent.front().kind)
                                             : UnsubscribeVerb(l->sent.front().kind))) +
                      " within " + std::to_string(TimeoutFor(*l)) +
                      " ms, nor anything else read for as long"),
           false);
      continue;
    }
    if (ctx_->opts.idle_ping_ms > 0 && now >= l->next_ping_ns) {
      l->next_ping_ns = DeadlineAfter(ctx_->opts.idle_ping_ms, now);
      (void)Send(l, PushFrame::Type::kPong, ChannelKind::kChannel, {});
    }
  }
  SweepDead();
}

void Subscriber::Poll(int64_t now) {
  (void)now;
  std::vector<pollfd> fds;
  fds.push_back(pollfd{wake_fd_, POLLIN, 0});
  const bool full = queue_.Full();
  bool stalled = false;
  for (const auto &l : links_) {
    // A full queue: stop reading (the servers buffer) until the reader
    // catches up (on_drained signals); errors still show.
    fds.push_back(pollfd{l->conn->fd(), static_cast<short>(full ? 0 : POLLIN), 0});
    stalled = stalled || (!full && l->stalled);
  }
  const int n = poll(fds.data(), fds.size(), stalled ? 0 : kTickMs);
  if (n < 0 || (n == 0 && !stalled)) return;
  if (fds[0].revents != 0) {
    uint64_t v;
    while (read(wake_fd_, &v, sizeof v) > 0) {
    }
  }
  // links_ does not change while they are drained (failures are deferred).
  for (size_t i = 1; i < fds.size(); ++i) {
    Link *l = links_[i - 1].get();
    if (fds[i].revents == 0 && !(stalled && l->stalled)) continue;
    l->stalled = false;
    (void)Drain(l);
  }
  SweepDead();
}

bool Subscriber::Drain(Link *link) {
  while (!link->dead) {
    // The queue's limit holds frame by frame: what is not read yet waits
    // in the socket (and the server's buffer), or in the reader's buffer.
    if (queue_.Full()) {
      link->stalled = true;
      return true;
    }
    ReplyPtr r;
    Status s = link->conn->TryReceive(&r);
    if (!s.ok()) {
      Fail(link, s, s.code() == Code::kParse);
      return false;
    }
    if (r == nullptr) return true;
    link->read_ns = SteadyNowNs();
    auto f = ParsePushFrame(r.get());
    if (!f.ok()) {
      Fail(link, Status(Code::kParse, link->address + ": " + f.status().message()), true);
      return false;
    }
    HandleFrame(link, std::move(*f));
  }
  return false;
}

void Subscriber::HandleFrame(Link *link, PushFrame f) {
  const int64_t now = SteadyNowNs();
  if (f.type == PushFrame::Type::kMessage) {
    auto it = names_.find(Key{f.kind, f.kind == ChannelKind::kPattern ? f.pattern : f.name});
    // A message for a name removed or moved since: its queue entry would
    // repeat or outlive the caller's choice; dropped. During a planned move
    // both nodes' messages count (some twice, none lost).
    if (it == names_.end() ||
        (it->second.link != link && it->second.next != link && it->second.draining != link)) {
      return;
    }
    PubSubItem item;
    item.type = PubSubItem::Type::kMessage;
    item.kind = f.kind;
    item.channel = std::move(f.name);
    item.pattern = std::move(f.pattern);
    item.payload = std::move(f.payload);
    item.node = link->address;
    queue_.Push(std::move(item));
    return;
  }
  if (!link->sent.empty()) {
    Sent &h = link->sent.front();
    if (f.type == PushFrame::Type::kError) {
      RefusedCommand(link, &h, f.payload, now);
      link->sent.pop_front();
      return;
    }
    const bool pong = f.type == PushFrame::Type::kPong;
    if (f.type == h.type &&
        (pong || (f.kind == h.kind && !h.names.empty() && f.name == h.names.front()))) {
      if (pong && h.probe) ProbeAnswered(link);
      if (f.type == PushFrame::Type::kSubscribe) Confirmed(link, Key{f.kind, f.name});
      if (f.type == PushFrame::Type::kUnsubscribe) Unsubscribed(link, Key{f.kind, f.name});
      if (!pong) h.names.pop_front();
      if (pong || h.names.empty()) link->sent.pop_front();
      return;
    }
  }
  if (f.type == PushFrame::Type::kUnsubscribe && f.kind == ChannelKind::kShard) {
    ServerUnsubscribed(link, f.name, now);
    return;
  }
  const char *what = f.type == PushFrame::Type::kError       ? "error reply"
                     : f.type == PushFrame::Type::kPong      ? "pong"
                     : f.type == PushFrame::Type::kSubscribe ? "subscribe confirmation"
                                                             : "unsubscribe confirmation";
  Fail(
      link,
      Status(Code::kParse, link->address + ": malformed push frame: a " + std::string(what) + " (" +
                               Quote(f.type == PushFrame::Type::kError ? f.payload : f.name) +
                               ") that answers no command sent"),
      true);
}

void Subscriber::Confirmed(Link *link, const Key &key) {
  auto it = names_.find(key);
  if (it != names_.end() && it->second.next == link) {
    it->second.next_confirmed = true;
    if (link->probes == 0) Promote(key, &it->second);  // else once the probe is answered
    return;
  }
  if (it == names_.end() || it->second.link != link || it->second.state != Name::State::kSent) {
    return;  // removed or moved since it was sent: its unsubscribe follows
  }
  Name &n = it->second;
  n.state = Name::State::kSubscribed;
  n.errors = 0;
  n.moved_from.clear();
  avoid_.erase(link->address);
  Event(n.ever ? PubSubItem::Type::kResubscribed : PubSubItem::Type::kSubscribed, key,
        link->address);
  if (n.ever && ctx_->log.Enabled(LogLevel::kInfo)) {
    ctx_->log.EmitLimited(LogLevel::kInfo, "resubscribed " + link->address, "subscription moved",
                          {{"node", link->address}, {"name", key.second}});
  }
  n.ever = true;
}

void Subscriber::Promote(const Key &key, Name *n) {
  // A planned move's new subscription holds: the old one is let go, and its
  // messages count until that is confirmed (Unsubscribed).
  Link *old = n->link;
  n->link = n->next;
  n->next = nullptr;
  n->next_confirmed = false;
  n->draining = old;
  n->master = n->next_master;
  n->planned_ns = SteadyNowNs();
  avoid_.erase(n->link->address);
  --old->names;
  SendGrouped(old, PushFrame::Type::kUnsubscribe, key.first, {key.second});
  // A failed send: SweepDead ends the overlap.
}

void Subscriber::ProbeAnswered(Link *link) {
  if (--link->probes != 0) return;
  for (auto &[key, n] : names_) {
    if (n.next == link && n.next_confirmed) Promote(key, &n);
  }
}

void Subscriber::Unsubscribed(Link *link, const Key &key) {
  auto it = names_.find(key);
  if (it == names_.end() || it->second.draining != link) return;
  Name &n = it->second;
  n.draining = nullptr;
  Event(PubSubItem::Type::kResubscribed, key, n.link->address);
  if (ctx_->log.Enabled(LogLevel::kInfo)) {
    ctx_->log.EmitLimited(
        LogLevel::kInfo, "moved nearer " + n.link->address, "subscription moved to a nearer node",
        {{"from", link->address}, {"node", n.link->address}, {"name", key.second}});
  }
}

void Subscriber::RefusedCommand(Link *link, Sent *h, const std::string &text, int64_t now) {
  if (h->probe) {
    // The PING after a planned move's subscribe: the node is not ready
    // (LOADING while it loads a sync, which SUBSCRIBE would not say).
    --link->probes;
    AvoidNode(link->address, now);
    for (auto &[key, n] : names_) {
      if (n.next == link) AbortMove(key, &n, "not ready: " + Quote(text));
    }
    return;
  }
  if (h->type != PushFrame::Type::kSubscribe) return;  // nothing to undo
  uint16_t slot = 0;
  std::string host;
  uint16_t port = 0;
  const bool moved = text.compare(0, 6, "MOVED ") == 0 &&
                     ParseRedirect(text, link->node->host, &slot, &host, &port).ok();
  if (moved) {
    (void)ctx_->topo->ReportMoved(slot, host, port);
    ctx_->TriggerRefresh();
  }
  for (const std::string &name : h->names) {
    auto it = names_.find(Key{h->kind, name});
    if (it != names_.end() && it->second.next == link) {
      if (!Avoided(link->address, now)) {
        AvoidNode(link->address, now);
      }
      AbortMove(it->first, &it->second, "refused: " + Quote(text));
      continue;
    }
    if (it == names_.end() || it->second.link != link) continue;
    Name &n = it->second;
    --link->names;
    const uint32_t wait = moved ? 0 : Backoff(100, n.errors++, kErrorRetryMaxMs);
    Moving(it->first, &n, link->address, std::string(moved ? "moved: " : "refused: ") + Quote(text),
           DeadlineAfter(wait, now));
  }
}

void Subscriber::ServerUnsubscribed(Link *link, const std::string &name, int64_t now) {
  auto it = names_.find(Key{ChannelKind::kShard, name});
  if (it != names_.end() && it->second.next == link) {
    AbortMove(it->first, &it->second, "the server sent sunsubscribe");
    return;
  }
  if (it != names_.end() && it->second.draining == link) {  // its unsubscribe's work is done
    Unsubscribed(link, it->first);
    return;
  }
  if (it == names_.end() || it->second.link != link) return;  // already moved or removed
  Name &n = it->second;
  --link->names;
  n.moved_from = n.master;
  n.moved_ns = now;
  ctx_->TriggerRefresh();
  const uint16_t slot = KeySlot(name.data(), name.size());
  if (ctx_->log.Enabled(LogLevel::kInfo)) {
    ctx_->log.EmitLimited(LogLevel::kInfo, "sunsubscribe " + link->address,
                          "shard channel unsubscribed by the server (slot moved)",
                          {{"node", link->address}, {"slot", std::to_string(slot)}});
  }
  Moving(it->first, &n, link->address,
         "slot " + std::to_string(slot) + " moved: the server sent sunsubscribe", now);
}

}  // namespace net
}  // namespace cloudroute
