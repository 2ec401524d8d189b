// What a node's answer means (see outcome.hpp).
#include "cloudroute/net/outcome.hpp"

#include <string_view>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/core/topology.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

Status ParseRedirect(const std::string &text, const std::string &from_host, uint16_t *slot,
                     std::string *host, uint16_t *port) {
  const std::string quoted = Quote(text);
  auto bad = [&](const std::string &why) {
    return Error(Code::kParse, "refused redirect " + quoted + ": " + why);
  };
  const size_t sp1 = text.find(' ');
  const std::string kind = text.substr(0, sp1);
  if (kind != "MOVED" && kind != "ASK") return bad("not a MOVED or ASK redirect");
  if (sp1 == std::string::npos) return bad("no slot");
  const size_t sp2 = text.find(' ', sp1 + 1);
  if (sp2 == std::string::npos) return bad("no target");
  // The slot: 1-5 digits, no sign, below 16384.
  const std::string_view digits(text.data() + sp1 + 1, sp2 - sp1 - 1);
  if (digits.empty() || digits.size() > 5) return bad("the slot is not a number in 0-16383");
  uint32_t s = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return bad("the slot is not a number in 0-16383");
    s = s * 10 + static_cast<uint32_t>(c - '0');
  }
  if (s >= kSlotCount) return bad("the slot is not a number in 0-16383");
  // The target runs to the end of the text: anything after it (a space, a
  // NUL, a CR) makes its port, or its host, fail the strict parse below.
  const std::string_view target(text.data() + sp2 + 1, text.size() - sp2 - 1);
  std::string h;
  uint16_t p = 0;
  if (!target.empty() && (target.front() == ':' || target.compare(0, 2, "?:") == 0)) {
    // No host (":6381", "?:6381"): the node that answered. The port alone is
    // parsed as in any address.
    const std::string_view digits_p = target.substr(target.find(':') + 1);
    uint32_t v = 0;
    for (char c : digits_p) {
      if (c < '0' || c > '9' || v > 65535) return bad("the port is not a number in 1-65535");
      v = v * 10 + static_cast<uint32_t>(c - '0');
    }
    if (v == 0 || v > 65535) return bad("the port is not a number in 1-65535");
    h = from_host;
    p = static_cast<uint16_t>(v);
  } else {
    Status st = ParseHostPort(target, &h, &p);
    if (!st.ok()) return bad(st.message());
  }
  *slot = static_cast<uint16_t>(s);
  *host = std::move(h);
  *port = p;
  return Status::Ok();
}

Status NamedFailure(const NodeEntry *node, const Status &s) {
  const std::string &msg = s.message();
  if (msg.compare(0, node->address.size(), node->address) == 0) return s;
  return Error(s.code(), node->address + ": " + msg);
}

NodeEntry *MasterToAsk(const CandidateSet *set, const NodeEntry *replier, uint32_t redirects) {
  if (redirects < 2 || set == nullptr || set->master == nullptr || replier == set->master) {
    return nullptr;
  }
  for (const Candidate &c : set->list) {
    if (c.node == replier) return set->master;
  }
  return nullptr;
}

NodeEntry *NilToConfirm(const CandidateSet *set, const NodeEntry *replier, const Reply &reply,
                        const TopologySource &topo, uint16_t place) {
  if (set == nullptr || set->master == nullptr || replier == set->master) return nullptr;
  // A value (nearly every read) costs a type check; a nil or an array asks
  // about the slot's mark (two loads) before anything scans an MGET leg.
  if (reply.type != RespType::kNull && reply.type != RespType::kArray) return nullptr;
  if (!topo.RecentlyMoved(place)) return nullptr;
  if (reply.type == RespType::kNull) return set->master;
  for (const ReplyPtr &e : reply.elements) {
    if (e != nullptr && e->type == RespType::kNull) return set->master;
  }
  return nullptr;
}

Outcome Classify(ReplyPtr reply, const NodeEntry *node, Access access) {
  Outcome o;
  if (!reply->is_error()) {
    o.kind = OutcomeKind::kDone;
    o.reply = std::move(reply);
    return o;
  }
  const std::string prefix = ErrorPrefix(*reply);
  o.kind = ErrorKind(prefix, access);
  if (o.kind == OutcomeKind::kMoved || o.kind == OutcomeKind::kAsk) {
    Status s = ParseRedirect(reply->str, node->host, &o.slot, &o.host, &o.port);
    if (!s.ok()) {
      // Never dialed, never returned as the server's text: a protocol error
      // naming the node, the target escaped (see outcome.hpp).
      o.kind = OutcomeKind::kNodeFailed;
      o.status = Error(Code::kParse, node->address + ": " + s.message());
    }
  } else if (prefix == "LOADING" || prefix == "MASTERDOWN") {
    o.status = Error(kServerError, node->address + ": " + reply->str);
  }
  o.reply = std::move(reply);
  return o;
}

OutcomeKind ErrorKind(const std::string &prefix, Access access) {
  if (prefix == "MOVED") return OutcomeKind::kMoved;
  if (prefix == "ASK") return OutcomeKind::kAsk;
  if (prefix == "TRYAGAIN" || prefix == "CLUSTERDOWN") return OutcomeKind::kRetry;
  if (prefix == "LOADING" || prefix == "MASTERDOWN") {
    // A replica that cannot serve yet: a read moves on, a write waits.
    return access == Access::kRead ? OutcomeKind::kNodeFailed : OutcomeKind::kRetry;
  }
  return OutcomeKind::kErrorReply;
}

}  // namespace net
}  // namespace cloudroute
