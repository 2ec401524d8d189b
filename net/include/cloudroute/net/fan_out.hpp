// FanOut: runs a set of commands (Jobs) at about one round trip whatever
// their number — each job routed by its slot and access (or pinned to a
// node), the jobs grouped per node, every node's group pipelined on one
// connection and all nodes in flight at once. Multi-key commands (MGET,
// MSET, DEL: one job per slot) and pipelines (pipeline.hpp: one job per
// command) both run on it.
// Read your writes: a read of a slot that an earlier job of the same run
// writes (or, with read_your_writes_ms, that this client wrote within the
// window: recent_writes.hpp) is master-only — placed on the slot's master,
// after the write on the same connection, and kept there on redirects and
// retries. A replica may not have the write yet; the master has it. If the
// master fails, such a read fails rather than read a replica. Jobs pinned
// to a node (no slot) neither count as writes nor become master-only.
// In rounds:
//   Plan     places each open job on a node (a leg per node): a write or a
//            master-only read on its slot's master, a read on its first
//            candidate in poll order that has not failed it, an ASK target
//            with ASKING, a pinned node;
//   Connect  takes each leg's pooled connection in node order and dials the
//            missing ones all at once (a stalled node's handshake delays no
//            other leg);
//   Send     writes every leg's commands before any reply is read;
//   Receive  reads and classifies each leg's replies;
// (with shared connections, PoolOptions::shared, and hedging off, Connect /
// Send / Receive are one exchange on the engine thread: every leg submitted
// to its node's shared connections, then each leg's replies classified as
// they are);
// and again for the jobs a round left open — a MOVED (the slot patched, the
// command sent to the new owner), an ASK, a TRYAGAIN / CLUSTERDOWN (after a
// backoff), a read whose node failed (on its next candidate), a write its
// group's master did not execute when the source re-asks about it
// (AskAgain: Sentinel groups; after a backoff) — until each
// has a reply or an error. Only the affected jobs go again. A write that
// may have reached its node is never re-sent: its error says so. A pinned
// job is sent once: a redirect or failure is its result.
//
// Hedged legs (hedge.hpp; ClientOptions::hedge): with hedging on, a leg of
// plain reads — each routed by its slot, none a write, a master-only read,
// an ASK, a script (EVAL*, FCALL*) or a blocking command (XREAD BLOCK …) —
// is hedgeable; a leg carrying any other job is not, and waits as before.
// Such a leg gets its node's hedge delay (fixed, or the node's adaptive
// one). A new connection it needs is waited for only that long (at least
// delay_ms): still dialing then, its reads go to their next candidates in
// the next round, and the node lost a hedge. (A hedge leg that needs a new
// connection is dialed on its own thread while the other legs are read.)
// Once sent, the legs are read
// together (Collect) and a hedgeable leg not fully answered within its
// delay is hedged: the replies that came stand, and each read still open is
// sent to its next up candidate (never the leg's node, nor one it failed
// on), grouped per node as hedge legs, for one hedge of the budget per
// hedged leg (stats: hedges; hedges_denied when the budget says no). Per
// read, the first answer wins, the other leg's reply for it is dropped; a
// leg whose every read was answered elsewhere is closed, never pooled (its
// replies are still in flight). A hedged leg that a hedge beat for any read
// counts once in hedges_won, and its node lost a hedge (three in a row set
// it aside: hedge.hpp). A leg that failed or timed out fails its reads that
// the other leg has not answered, as above.
//
// Thread-safety: one FanOut per call, on one thread at a time (the
// caller's; an asynchronous call hands it from thread to thread).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/node_pools.hpp"
#include "cloudroute/net/outcome.hpp"

namespace cloudroute {
namespace net {

// One command to run. The caller fills the first four fields; FanOut sets
// exactly one of reply / a failed status.
struct Job {
  Access access = Access::kRead;
  uint16_t slot = 0;
  NodeEntry *pinned = nullptr;  // non-null: this node only, no redirect, no retry
  // Views of the arguments: the leg's wire buffer is the only copy made.
  // REQUIRES: what they point to outlives FanOut::Run.
  std::vector<std::string_view> argv;

  ReplyPtr reply;
  Status status;

  bool done() const { return reply != nullptr || !status.ok(); }

  // FanOut's progress across rounds.
  NodeEntry *ask = nullptr;      // the next round sends ASKING + argv here
  NodeEntry *confirm = nullptr;  // ... argv here: a replica's master (MasterToAsk,
                                 // NilToConfirm)
  Tier confirm_tier = Tier::kUnknown;
  bool confirmed = false;                 // a replica's nil was sent to confirm (once)
  std::vector<const NodeEntry *> failed;  // nodes this read failed on
  Status last_failure;
  uint32_t redirects = 0, retries = 0;
  bool master_only = false;  // a read of a slot written before it (read your writes)
  bool answered = false;     // this round: a leg's reply settled it (a hedge's loser drops its own)
};

// Multi-key commands are split into one command per slot (a Batch).
struct Batch {
  uint16_t slot = 0;
  Args args;
  std::vector<size_t> idx;  // positions of this batch's keys in the caller's list
};

// One batch per place (a slot, or a ring's group: topology_source.hpp), in
// the order places first appear: args = cmd, then each key (followed by its
// value when values is not null).
// REQUIRES: values == nullptr || values->size() == keys.size()
std::vector<Batch> SplitBySlot(const TopologySource &topo, const std::vector<std::string> &keys,
                               const std::string &cmd, const std::vector<std::string> *values);

// A job per batch, viewing its arguments. REQUIRES: batches outlive the jobs.
std::vector<Job> JobsFor(const std::vector<Batch> &batches, Access access);

class FanOut {
 public:
  FanOut(ClientContext *ctx, NodePools *pools, std::vector<Job> *jobs)
      : ctx_(ctx), pools_(pools), jobs_(jobs) {}

  // Every job gets its reply or its status, in place.
  void Run();

  // Run() in steps, for an asynchronous call (async_calls.hpp) that must
  // not wait for its first round: the same rounds and rules.
  //   Begin()  on the caller's thread: the first round planned and, when
  //            it can be one exchange on the nodes' shared connections
  //            (legs to send, hedging off; with `for_async` links, made
  //            even when PoolOptions::shared is 0), its requests built in
  //            *out (no done set) — true; the caller submits them and
  //            calls Absorb() once every one is settled. False: the round
  //            is planned but not sent; Continue() runs it.
  //   Absorb() the exchange's replies settled (SettleArrived, Conclude).
  //            Conclusive(requests) says whether it may run on the engine
  //            thread: every request answered, and no reply that needs
  //            more than returning it (a redirect, a retry, LOADING,
  //            READONLY) — nothing that logs, sleeps or re-routes.
  //   Ended()  whether every job is settled with no backoff due; it then
  //            notes the run's writes (read your writes), as Run() does
  //            at its end. Any thread.
  //   Resume() the rounds after an absorbed one, to the end (blocking).
  //   Continue() the rounds from a planned one, to the end (blocking).
  using Requests = std::vector<std::pair<std::shared_ptr<NodeLink>, LinkRequestPtr>>;
  bool Begin(Requests *out);
  void Absorb(const Requests &requests);
  static bool Conclusive(const Requests &requests);
  bool Ended();
  void Resume();
  void Continue();

 private:
  struct Entry {
    Job *job;
    bool asking;
  };
  struct Leg {
    NodeEntry *node = nullptr;
    Tier tier = Tier::kUnknown;
    NodePool *pool = nullptr;
    std::unique_ptr<Connection> conn;  // null: nothing (more) to receive
    std::vector<Entry> entries;
    size_t replies = 0;  // expected: the entries and their ASKINGs
    int64_t deadline = 0;
    int64_t t0 = 0;
    std::vector<ReplyPtr> got;  // the replies read so far
    size_t settled = 0;         // entries whose reply was settled (or dropped)
    size_t used = 0;            // replies those entries took
    bool hedgeable = false;     // plain reads only (see above)
    int64_t delay_ns = 0;       // hedgeable: its node's hedge delay
    int64_t hedge_at = 0;       // hedgeable and sent: when it is hedged (0: not, or done)
    Leg *hedge_of = nullptr;    // a hedge leg: the leg whose reads it also carries
    // A hedge leg whose connection is being dialed (NodePools::DialAside).
    std::shared_ptr<NodePools::PendingDial> dial;
    bool lost_a_hedge = false;  // a hedge answered one of its reads first
    // In flight from planning to Conclude (load-aware selection reads it).
    LoadMark busy;
  };

  // Marks the master-only reads (read your writes, above); before the first round.
  void MarkReadsAfterWrites();
  // Notes every write's slot in the client's recent writes; after the last round.
  void NoteWrites();
  // Places every open job on a leg (or settles it with a routing error).
  void Plan();
  void Place(Job *job, const Snapshot &snap);
  void AddToLeg(Job *job, NodeEntry *node, Tier tier, bool asking);
  // Every leg's connection: idle ones taken in the legs' order, new ones
  // dialed at the same time, each on its own thread.
  void Connect();
  // The leg's node failed (before or after its commands were sent).
  void LegFailed(Leg *leg, const Status &s, bool sent);
  // Failed() for each of the leg's jobs not settled yet (nor answered on
  // another leg).
  void FailEntries(Leg *leg, const Status &s, bool sent);
  void Send(Leg *leg);
  // Reads the leg's replies to the end (no leg of the round is hedgeable).
  void Receive(Leg *leg);
  // Reads every leg at once, hedging the hedgeable ones past their delay.
  void Collect();
  // Reads what arrived on the leg without waiting; true when the leg ended
  // (answered, failed, past its deadline, or every read answered elsewhere).
  bool Drain(Leg *leg);
  // Sends the leg's open reads to their next candidates (budget allowing).
  void Hedge(Leg *leg);
  // A hedge leg still dialing: sent once its connection is there, given up
  // (the dial goes on into the pool) once its reads were answered. True
  // when the dial ended.
  bool Dialed(Leg *leg);
  // Whether a read of the leg is still unanswered (here or on another leg).
  static bool Open(const Leg &leg);
  // The read's next up candidate other than node (nor one it failed on); null: none.
  const Candidate *NextCandidate(const Job &job, const NodeEntry *node);
  // The leg is over with s (OK: every reply read): what arrived is settled,
  // the connection handed back (closed when replies are still due), the
  // node's outcome noted, and the jobs left fail with s.
  void Finish(Leg *leg, Status s);
  // Settles the entries whose replies arrived, in order, each reply's shape
  // checked first: one of a shape its command cannot produce sets *s and
  // drops the replies not settled (every one of them may be another
  // command's).
  void SettleArrived(Leg *leg, Status *s);
  // The leg's outcome, however it was exchanged: the node's success or
  // failure, its round-trip sample (t0 to t1), and the jobs left unsettled
  // fail with s (sent: whether their commands may have reached the node).
  void Conclude(Leg *leg, const Status &s, bool sent, int64_t t1);
  // Send, Receive (and Connect) on the nodes' shared connections
  // (shared_link.hpp): every leg submitted at once, each settled as it was
  // answered; false (nothing done) when they are off, or hedging is on.
  bool Exchange();
  // The round's legs as requests on their nodes' shared connections (no
  // done set); false (none built) when Exchange() would be.
  bool BuildRequests(bool for_async, Requests *out);
  // The backoff a TRYAGAIN / CLUSTERDOWN / AskAgain of the round asked for.
  void Backoff();
  // What one reply means for its job.
  void Settle(Job *job, Leg *leg, ReplyPtr reply);
  // A write its place's master did not execute (none known, not dialed,
  // READONLY): true when the topology source says to try it again
  // (TopologySource::AskAbout; Sentinel groups), within max_retries — the
  // job stays open for the next round, after a backoff.
  bool AskAgain(Job *job, const Status &why);
  // A job whose node failed: a read moves on to its next candidate; a write
  // keeps the error (saying it may have arrived when sent is true), unless
  // it was never sent and AskAgain says to try it again.
  void Failed(Job *job, const Leg &leg, const Status &s, bool sent);

  ClientContext *const ctx_;
  NodePools *const pools_;
  std::vector<Job> *const jobs_;
  std::deque<Leg> legs_;  // a deque: hedge legs are added while the others are read
  // Pin every node a leg uses, so none is reclaimed (nor its pool dropped)
  // during the run: the snapshot of the round's plan, and the ASK targets.
  std::shared_ptr<const Snapshot> snap_;
  NodePins asked_;
  uint32_t backoff_retries_ = 0;  // > 0: the next round waits (TRYAGAIN / CLUSTERDOWN)
};

}  // namespace net
}  // namespace cloudroute
