// The capped reader: hiredis object functions that build net::Reply trees
// and refuse hostile replies before they cost memory.
//
// hiredis's own reader trusts the element count of an aggregate (0.14
// callocs `*268435456\r\n` pointers — 2 GiB — before one element arrives)
// and buffers a bulk string of any declared length until it is complete.
// ReaderState enforces caps equivalent to core's RespLimits:
//  - max_elements per aggregate: checked when the aggregate header is
//    parsed, nothing is reserved beyond a small bound; max_depth: checked
//    for every node, leaves too (the root is depth 1, as in core);
//  - max_bulk_len: checked on each string, and while a string is still
//    arriving by the connection's read loop (BufferedOverCap);
//  - max_total_bytes: what the reply really costs while it is built — the
//    tree (ReplyNodeCost: each node's allocation with malloc's overhead, its
//    slot in the parent's vector, the vector's growth, a string's heap past
//    the small-string buffer; measured against the heap in
//    tests/net/connection_test.cc) plus the reader's buffer beyond
//    kReaderSlack (an upper bound of its allocation: hiredis grows it by
//    doubling, by 1 MiB past 1 MiB). So a bulk string costs about twice its
//    length while it arrives (the buffer, then the copy in the tree).
//  - the client-wide ReplyBudget (optional): every connection of one client
//    holds what it charges there, so that all the replies a client is
//    building at once, on every pooled connection, stay under one total.
// A refused reply makes hiredis stop with an error; limit_error says why
// (naming the cap) and the connection is closed (the stream cannot be
// resynchronised).
//
// What the charge leaves out, by design: a reply once handed to the caller
// (it is the caller's), up to kReaderSlack of read buffer per connection,
// and what a conversion builds from it. The C API's conversion (cr_reply)
// frees the net tree as it builds its own, which costs less per node, so it
// needs no more than the charge; a binding's conversion (Python objects,
// Java objects) adds up to one more copy of it while both exist: plan for
// twice max_reply_bytes per reply converted by a binding.
//
// Thread-safety: one ReaderState per connection, used by its owner only; a
// ReplyBudget is shared by the connections of a client (atomic).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "cloudroute/core/resp.hpp"
#include "cloudroute/net/reply.hpp"

struct redisReader;

namespace cloudroute {
namespace net {

// Defaults for command replies: larger than the topology parser's (values
// are user data) but bounded so that a client with the default pool stays
// well under 1 GB whatever its servers send: 256 MiB a reply, strings of
// 64 MiB, and (ClientBudgetFor) 512 MiB for all of a client's replies
// being read at once.
RespLimits DefaultReplyLimits();

// The client-wide budget for replies of these per-reply limits: twice
// max_total_bytes (one reply at the cap never starves all the others).
uint64_t ClientBudgetFor(const RespLimits &limits);

// Bytes of replies under construction, shared by the connections of one
// client. Taken in steps of kBudgetStep per connection (so a reply of many
// small nodes does not contend on one atomic), so a connection may hold up
// to one step more than it charges.
class ReplyBudget {
 public:
  explicit ReplyBudget(uint64_t cap) : cap_(cap) {}
  ReplyBudget(const ReplyBudget &) = delete;
  ReplyBudget &operator=(const ReplyBudget &) = delete;
  // Takes n bytes; false (nothing taken) when that would pass the cap.
  bool Take(uint64_t n);
  void Give(uint64_t n) { used_.fetch_sub(n, std::memory_order_relaxed); }
  uint64_t cap() const { return cap_; }
  uint64_t used() const { return used_.load(std::memory_order_relaxed); }

 private:
  const uint64_t cap_;
  std::atomic<uint64_t> used_{0};
};
constexpr uint64_t kBudgetStep = 1u << 20;
// Read buffer a connection may hold without charge (framing ordinary replies).
constexpr uint64_t kReaderSlack = 64u * 1024;

struct ReaderState {
  ReaderState() = default;
  ReaderState(const ReaderState &) = delete;
  ReaderState &operator=(const ReaderState &) = delete;
  ~ReaderState() { Release(); }

  RespLimits limits;
  std::shared_ptr<ReplyBudget> budget;  // the client's; null = none
  uint64_t bytes = 0;                   // the tree of the reply being built (ReplyNodeCost)
  uint64_t buffered = 0;                // the read buffer's charge (NoteBuffer)
  uint64_t buf_peak = 0;                // the buffer's largest length since the reader was made
  uint64_t held = 0;                    // what this connection holds of *budget
  std::string limit_error;              // set when a cap refused the reply

  // Charges the tree grown by n bytes; false (limit_error set) over a cap.
  bool ChargeTree(uint64_t n);
  // Re-reads the reader's buffer after it was fed; false (limit_error set)
  // when the reply in flight with that buffer is over a cap.
  bool NoteBuffer(const struct redisReader *reader);
  // The reply was handed out: its tree is no longer charged here.
  void Reset();
  // Gives back everything held of the budget (the connection closes).
  void Release();

 private:
  bool Settle();  // holds bytes + buffered of the budget; checks max_total_bytes
};

// What one node of a reply tree is charged (see above): `text` bytes of
// string, `children` declared elements for an aggregate (0 for a leaf),
// child: whether it sits in a parent's vector.
uint64_t ReplyNodeCost(uint64_t text, uint64_t children, bool child);
// The charge of a whole tree, as the reader charged it.
uint64_t ReplyTreeCost(const Reply &r, bool child = false);

// A hiredis reader whose objects are net::Reply nodes, capped by *state
// (which must outlive it). Free with redisReaderFree(); a reply it returns
// is a Reply* the caller owns (wrap it in ReplyPtr).
redisReader *NewCappedReader(ReaderState *state);

// True when the bytes the reader holds but has not consumed exceed what any
// allowed item could need: a bulk string beyond max_bulk_len is arriving.
bool BufferedOverCap(const redisReader *reader, const ReaderState &state);

// After a reply was handed out: when the reader holds nothing unconsumed and
// its buffer grew past kReaderSlack, replaces *reader by a new one (hiredis
// keeps a grown buffer until its next read), so that an idle pooled
// connection never sits on a large buffer; its charge is dropped.
void ShrinkIdleReader(redisReader **reader, ReaderState *state);

}  // namespace net
}  // namespace cloudroute
