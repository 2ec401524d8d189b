// Pinned: one connection to the master of one slot, held by one caller for
// a transaction — WATCH, reads, MULTI, commands, EXEC — so every command of
// it reaches the same server on the same connection.
//
// Each command names its keys; a key of another slot is refused with
// kInvalid ("CROSSSLOT …") before anything is sent (the server would refuse
// it inside MULTI anyway, after earlier commands had been queued). Nothing
// is redirected or retried: a MOVED or ASK (the slot moved since the pin)
// comes back as an error reply, and the caller pins again and restarts. A
// connection error or timeout marks the master and breaks the pin: every
// later command fails with kConnError.
//
// Releasing (the destructor) discards an open MULTI and drops a WATCH
// before the connection goes back to the pool, so the next user of it
// starts clean; a connection that cannot be cleaned is closed.
//
// Thread-safety: one thread at a time; must not outlive the client.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cloudroute/net/call_options.hpp"
#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/node_pools.hpp"

namespace cloudroute {
namespace net {

class Pinned {
 public:
  // The master of slot, with a connection from its pool. Errors: kNoTopology,
  // kSlotUncovered, kUnavailable (no known master), a dial's failure.
  static Result<std::unique_ptr<Pinned>> Acquire(ClientContext *ctx, NodePools *pools,
                                                 uint16_t slot);
  ~Pinned();
  Pinned(const Pinned &) = delete;
  Pinned &operator=(const Pinned &) = delete;

  // args on the pinned connection; keys: the keys it names (each must hash
  // to slot()). An error reply is kServerError with its text; EXEC's nil
  // (a WATCHed key changed) is a reply.
  Result<ReplyPtr> Command(const std::vector<std::string> &keys, const Args &args,
                           const CallOptions &call = {});

  uint16_t slot() const { return slot_; }
  const NodeEntry *node() const { return node_; }

 private:
  Pinned(ClientContext *ctx, NodePools *pools, NodeEntry *node, Tier tier, uint16_t slot)
      : ctx_(ctx), pools_(pools), node_(node), tier_(tier), slot_(slot) {}

  ClientContext *const ctx_;
  NodePools *const pools_;
  NodeEntry *const node_;
  const Tier tier_;
  const uint16_t slot_;
  NodePins pin_;  // node_, not reclaimed (nor its pool dropped) while this lives
  NodePool *pool_ = nullptr;
  std::unique_ptr<Connection> conn_;
  bool in_multi_ = false, watching_ = false;
};

}  // namespace net
}  // namespace cloudroute
