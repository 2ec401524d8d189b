// Subscriber: the pub/sub engine of a live cluster client — channels,
// patterns and shard channels on connections of its own, served by one
// thread of its own, delivered to a PubSubQueue.
//
//  - Channels and patterns share one connection (the "classic" link) to the
//    node a read would use first: every shard's read candidates of the
//    current snapshot merged by tier and rank (a local replica first), a
//    node whose breaker is open or that failed this subscriber lately
//    skipped. The cluster forwards every PUBLISH to every node.
//  - A shard channel goes to its slot's read candidates in order (the local
//    replica first; the master when no candidate is usable): one link per
//    node, one SSUBSCRIBE per slot (a command's channels share a slot).
//  - Confirmations are matched to the commands sent, in order, per link; a
//    frame that is not a valid push, or a reply no command asked for, closes
//    the link (counted as poisoned, logged) and its names move elsewhere. So
//    does a connection error, or a command or PING (one every idle_ping_ms)
//    the node does not answer within its tier timeout while nothing else
//    arrives either (an answer comes after the messages sent before it: a
//    link that keeps delivering is alive; what waits in the socket is read
//    before a link is failed): the node's failure is
//    reported to the client's node health, a refresh is triggered, and the
//    node is avoided by this subscriber for a while (1 s, doubling to 8 s).
//  - A shard channel's slot that moves: the server pushes sunsubscribe (or
//    answers an SSUBSCRIBE with MOVED: the router is patched). The name waits
//    (at most kMoveWaitMs) for a topology in which its slot's master is no
//    longer the one it was placed under — a refresh is triggered meanwhile —
//    then is subscribed at the slot's read candidates again: a replica only
//    once healthy under the new master for NearerNode::kReadyForMs (until
//    that master knows it, SPUBLISH does not reach it), else the master.
//  - On every new snapshot, names whose node is no longer a candidate of
//    their slot (a shard channel) or in the topology (the classic link) are
//    unsubscribed there and moved.
//  - A planned move (NearerNode decides): a name on a worse tier than a
//    healthy, settled candidate of its own moves there, make-before-break —
//    kMoving ("a nearer node is ready: ..."), the subscribe then a PING on
//    the new node (the PING fails with LOADING while the node loads, the
//    subscribe would not), once both are answered the unsubscribe on the old
//    node, and once that is confirmed kResubscribed with the new node. Messages of both nodes are
//    delivered meanwhile (some twice, none lost). A failed attempt (the PING or the subscribe
//    refused, the new link lost) undoes the new subscription, avoids the
//    node, and gives kResubscribed with the old node: it never stopped. It
//    is tried again once the node is no longer avoided and has settled
//    again (a loading replica: about every 2, 3, 5, 9 s); only moves made
//    count for NearerNode's gap.
//  Each name's moves are events on the queue: kSubscribed (the first time),
//  kMoving (why), kResubscribed (the node), kUnsubscribed (Remove).
//
// Thread-safety: Add, Remove and queue() from any thread. The destructor
// stops the thread and closes the queue (waiters return first); the
// client (its context and pools) must outlive the subscriber.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/nearer_node.hpp"
#include "cloudroute/net/node_pools.hpp"
#include "cloudroute/net/pubsub_frame.hpp"
#include "cloudroute/net/pubsub_queue.hpp"

namespace cloudroute {
namespace net {

class Subscriber {
 public:
  // How long a moved shard channel waits for a topology that shows the move.
  static constexpr uint32_t kMoveWaitMs = 5000;

  // kNoMemory when the thread or its wakeup fd cannot be made.
  static Result<std::unique_ptr<Subscriber>> Start(ClientContext *ctx, NodePools *pools);
  ~Subscriber();
  Subscriber(const Subscriber &) = delete;
  Subscriber &operator=(const Subscriber &) = delete;

  // Names are copied; the thread subscribes them (events follow).
  void Add(ChannelKind kind, std::vector<std::string> names);
  void Remove(ChannelKind kind, std::vector<std::string> names);
  PubSubQueue &queue() { return queue_; }

 private:
  struct Sent;
  struct Link;
  struct Name;
  struct Op {
    bool add;
    ChannelKind kind;
    std::vector<std::string> names;
  };
  using Key = std::pair<ChannelKind, std::string>;

  Subscriber(ClientContext *ctx, NodePools *pools, int wake_fd);
  void Signal();
  void Run();
  void ApplyOps();
  // A new snapshot: names on nodes that no longer serve them move.
  void Reconcile(int64_t now);
  // Subscribes the pending names that are due.
  void PlacePending(int64_t now);
  // Starts planned moves to nearer nodes (on a new snapshot, or when a
  // decision asked to be made again).
  void PlanMoves(int64_t now);
  // A planned move's new subscription failed or is given up: it is undone
  // (unsubscribed there) and the name stays where it is (kResubscribed).
  void AbortMove(const Key &key, Name *n, const std::string &why);
  bool Healthy(const NodeEntry *node, int64_t now) const;
  void Poll(int64_t now);
  // Confirmation deadlines and PINGs.
  void Timers(int64_t now);
  // Reads and handles every frame link has, or those until the queue is
  // full (the link is then marked stalled); false when it failed.
  bool Drain(Link *link);
  void HandleFrame(Link *link, PushFrame f);
  void Confirmed(Link *link, const Key &key);
  // A planned move's new subscription and its probe are both answered: the
  // old node is unsubscribed.
  void Promote(const Key &key, Name *n);
  // The pong of a planned move's probe PING.
  void ProbeAnswered(Link *link);
  // The confirmation of an unsubscribe: ends a planned move's overlap.
  void Unsubscribed(Link *link, const Key &key);
  // An error reply to the command at the head of link's queue.
  void RefusedCommand(Link *link, Sent *h, const std::string &text, int64_t now);
  // A sunsubscribe nobody asked for: the slot left the node.
  void ServerUnsubscribed(Link *link, const std::string &name, int64_t now);
  // Failures are deferred: a failed link is marked, and dropped — its node
  // reported, avoided, its names moved — by SweepDead, outside any loop
  // over the links.
  void Fail(Link *link, const Status &why, bool poisoned);
  void SweepDead();
  void CloseIdleLinks();
  // The node key should be on now (null: none usable, try again at
  // *retry_ns); *master: its slot's master (shard channels); *tier: the
  // node's.
  NodeEntry *Choose(const Key &key, const Name &n, const Snapshot &snap, int64_t now,
                    int64_t *retry_ns, std::string *master, Tier *tier);
  bool Usable(const NodeEntry *node, int64_t now) const;
  // Whether node still serves key in snap.
  bool StillServes(const Key &key, const NodeEntry *node, const Snapshot &snap) const;
  // The link to node (dialed now if there is none); a dial failure is
  // reported and the node avoided.
  Result<Link *> LinkFor(NodeEntry *node, Tier tier, bool classic,
                         const std::shared_ptr<const Snapshot> &snap, int64_t now);
  void AvoidNode(const std::string &address, int64_t now);
  // One command per slot for shard channels, one for the rest.
  void SendGrouped(Link *link, PushFrame::Type type, ChannelKind kind,
                   const std::vector<std::string> &names);
  bool Send(Link *link, PushFrame::Type type, ChannelKind kind,
            const std::vector<std::string> &names, bool probe = false);
  void Moving(const Key &key, Name *n, const std::string &node, const std::string &reason,
              int64_t retry_ns);
  void Event(PubSubItem::Type type, const Key &key, const std::string &node,
             const std::string &reason = "");
  bool Avoided(const std::string &address, int64_t now) const;
  uint32_t TimeoutFor(const Link &link) const;

  ClientContext *const ctx_;
  NodePools *const pools_;
  const int wake_fd_;
  PubSubQueue queue_;

  std::mutex ops_mu_;
  std::vector<Op> ops_;  // under ops_mu_
  std::atomic<bool> stop_{false};

  // The thread's own state.
  std::map<Key, Name> names_;
  std::vector<std::unique_ptr<Link>> links_;
  struct Avoid {
    int64_t until_ns = 0;
    uint32_t times = 0;
  };
  std::map<std::string, Avoid> avoid_;  // by address
  uint64_t generation_ = 0;
  bool replan_ = false;    // a new snapshot, a failed move: PlanMoves looks at every name
  int64_t replan_ns_ = 0;  // PlanMoves looks again then (0: no need)
  ReadyClock ready_;       // nodes healthy since
  uint64_t pick_ = 0;      // spreads equal classic candidates
  std::thread thread_;
};

}  // namespace net
}  // namespace cloudroute
