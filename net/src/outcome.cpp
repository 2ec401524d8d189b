// What a node's answer means (see outcome.hpp).
#include "cloudroute/net/outcome.hpp"

#include <cstdlib>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

bool ParseRedirect(const std::string &text, const std::string &from_host, uint16_t *slot,
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
  if (host->empty() || *host == "?") *host = from_host;
  *slot = static_cast<uint16_t>(s);
  *port = static_cast<uint16_t>(p);
  return true;
}

Status NamedFailure(const NodeEntry *node, const Status &s) {
  const std::string &msg = s.message();
  if (msg.compare(0, node->address.size(), node->address) == 0) return s;
  return Error(s.code(), node->address + ": " + msg);
}

Outcome Classify(ReplyPtr reply, const NodeEntry *node, Access access) {
  Outcome o;
  if (!reply->is_error()) {
    o.kind = OutcomeKind::kDone;
    o.reply = std::move(reply);
    return o;
  }
  const std::string prefix = ErrorPrefix(*reply);
  if ((prefix == "MOVED" || prefix == "ASK") &&
      ParseRedirect(reply->str, node->host, &o.slot, &o.host, &o.port)) {
    o.kind = prefix == "MOVED" ? OutcomeKind::kMoved : OutcomeKind::kAsk;
  } else if (prefix == "TRYAGAIN" || prefix == "CLUSTERDOWN") {
    o.kind = OutcomeKind::kRetry;
  } else if (prefix == "LOADING" || prefix == "MASTERDOWN") {
    // A replica that cannot serve yet: a read moves on, a write waits.
    o.kind = access == Access::kRead ? OutcomeKind::kNodeFailed : OutcomeKind::kRetry;
    o.status = Error(kServerError, node->address + ": " + reply->str);
  } else {
    o.kind = OutcomeKind::kServerError;
  }
  o.reply = std::move(reply);
  return o;
}

}  // namespace net
}  // namespace cloudroute
