// FanOut: multi-key commands (MGET, MSET, DEL) split by slot — one command
// per slot (a Batch) — with every node's share pipelined on one connection
// and all nodes in flight at once: about one round trip whatever the key
// count. In four steps:
//   Plan     routes each batch to a node (a leg per node);
//   Send     sends every leg's commands before any reply is read;
//   Receive  reads and classifies each leg's replies;
//   Redo     runs what did not complete — an unroutable slot, a node that
//            failed before the send (or during it, for a read), a redirect,
//            a retry — one by one through CommandExecutor::ExecuteSlot,
//            which produces the precise error or follows the redirect.
// A write that may have reached its node is never re-sent: its error stays.
//
// Thread-safety: one FanOut per call, on the caller's thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/command_executor.hpp"
#include "cloudroute/net/node_pools.hpp"

namespace cloudroute {
namespace net {

struct Batch {
  uint16_t slot = 0;
  Args args;
  std::vector<size_t> idx;  // positions of this batch's keys in the caller's list
  ReplyPtr reply;
  Status status;
  bool redo = false;
};

// One batch per slot, in the order slots first appear: args = cmd, then each
// key (followed by its value when values is not null).
// REQUIRES: values == nullptr || values->size() == keys.size()
std::vector<Batch> SplitBySlot(const std::vector<std::string> &keys, const std::string &cmd,
                               const std::vector<std::string> *values);

class FanOut {
 public:
  FanOut(ClientContext *ctx, NodePools *pools, CommandExecutor *exec, Access access,
         std::vector<Batch> *batches)
      : ctx_(ctx), pools_(pools), exec_(exec), access_(access), batches_(batches) {}

  // Every batch gets its reply or its status; the first failed batch's
  // status is returned.
  Status Run();

 private:
  struct Leg {
    NodeEntry *node = nullptr;
    Tier tier = Tier::kUnknown;
    NodePool *pool = nullptr;
    std::unique_ptr<Connection> conn;  // null: nothing to receive
    std::vector<Batch *> batches;
    int64_t deadline = 0;
    int64_t t0 = 0;
  };

  Status Plan();
  void Send(Leg *leg);
  void Receive(Leg *leg);
  void Redo();
  // A batch that did not complete on its leg: a read is redone, a write that
  // may have arrived keeps the error.
  void Unfinished(Batch *b, const Status &s) const;

  ClientContext *const ctx_;
  NodePools *const pools_;
  CommandExecutor *const exec_;
  const Access access_;
  std::vector<Batch> *const batches_;
  std::vector<Leg> legs_;
};

}  // namespace net
}  // namespace cloudroute
