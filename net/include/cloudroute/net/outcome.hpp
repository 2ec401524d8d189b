// Outcome: what one node's answer to one command means for the caller —
// done, an error reply to return, a redirect to follow (MOVED / ASK), a
// retry to wait for (TRYAGAIN / CLUSTERDOWN, LOADING / MASTERDOWN for a
// write), or a node that failed (LOADING / MASTERDOWN for a read: it moves
// on to the next candidate; a MOVED / ASK whose target does not parse,
// kParse; a connection error or timeout).
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "cloudroute/core/candidates.hpp"
#include "cloudroute/core/node_registry.hpp"
#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/reply.hpp"

namespace cloudroute {
namespace net {

enum class OutcomeKind : uint8_t { kDone, kErrorReply, kMoved, kAsk, kRetry, kNodeFailed };

struct Outcome {
  OutcomeKind kind = OutcomeKind::kNodeFailed;
  ReplyPtr reply;
  Status status;
  uint16_t slot = 0;  // kMoved / kAsk
  std::string host;
  uint16_t port = 0;
  NodeEntry *node = nullptr;  // who answered (or failed), when one was tried
  Tier tier = Tier::kUnknown;
  // The deadline of a blocking command or of a call-level timeout passed: not
  // the node's failure, and no other candidate is tried (call_options.hpp).
  bool waited = false;
  // kNodeFailed before the command left: no connection to send it on.
  bool unsent = false;
};

// node: the node that answered (an empty or "?" host in a redirect means it).
// REQUIRES: reply != nullptr
Outcome Classify(ReplyPtr reply, const NodeEntry *node, Access access);
// What an error reply's first word (ErrorPrefix) makes of it, as Classify
// judges it (MOVED / ASK before their target is parsed): kErrorReply for
// an error to return as it is.
OutcomeKind ErrorKind(const std::string &prefix, Access access);

// A node's failure named as the topology names the node: a remapped dial's
// own message names the address dialed (a proxy, a NAT), which an operator
// cannot find in the topology.
Status NamedFailure(const NodeEntry *node, const Status &s);

// Whom to ask when a read routed on `set` got a MOVED from `replier` after
// it had already followed a MOVED (redirects counts both): replicas learn a
// slot's new owner at different moments — right after an atomic slot
// migration (Valkey 9's CLUSTER MIGRATESLOTS) the new owner's replica may
// still point back at the old owner, whose replica points forward again,
// and a read bouncing between them used up its redirects. So a replica's
// MOVED on a redirected read is not taken as the slot's owner: the read
// goes to that replica's own master once, which knows what it owns (it
// serves the read, or its MOVED is followed as any). nullptr when the MOVED
// is to be followed as usual (the first redirect, or one sent by a master).
NodeEntry *MasterToAsk(const CandidateSet *set, const NodeEntry *replier, uint32_t redirects);

// Whom to ask when a read routed on `set` was answered by `replier` with
// `reply`: right after a slot changes owner (TopologySource::RecentlyMoved)
// the new owner's replicas may not hold its keys yet — a Valkey atomic slot
// migration hands the slots over once the target master has them — so a
// nil (the reply, or an element of an array reply) from a replica of a
// recently moved place is asked again at the place's master, once. nullptr
// when the reply stands: a master's, a replica's without nil, or a place
// that did not move.
NodeEntry *NilToConfirm(const CandidateSet *set, const NodeEntry *replier, const Reply &reply,
                        const TopologySource &topo, uint16_t place);

// "MOVED 3999 127.0.0.1:6381" / "ASK 3999 :6381" / "MOVED 1 [::1]:6381"
// (empty or "?" host: from_host), parsed strictly: the slot is 1-5 digits
// below 16384; the target runs to the end of the text and is host:port or
// [v6]:port as ParseHostPort takes it (an IP literal or an RFC 1123 name —
// no NUL, CR, LF, space or control byte —, an IPv6 literal only in balanced
// brackets, the port 1-65535 in digits). kParse otherwise, its message
// showing the text escaped (Quote: non-printable bytes as \xNN). Classify
// turns a refused redirect into kNodeFailed with that kParse status, named
// by the node that sent it: it is never dialed, and a read tries its next
// candidate (a node that sends garbage is not trusted for the read).
Status ParseRedirect(const std::string &text, const std::string &from_host, uint16_t *slot,
                     std::string *host, uint16_t *port);

}  // namespace net
}  // namespace cloudroute
