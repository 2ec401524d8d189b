// NodeCommands: a command sent to nodes named by the caller instead of by a
// key — one node ("host:port" of the current topology), every master, or
// every node — for keyless commands (PING, INFO, DBSIZE, FLUSHALL,
// SCRIPT LOAD, CONFIG GET …). The command goes to each target at once (all
// sent before any reply is read), and each node's answer comes back on its
// own: a reply, an error reply, or the connection error. Nothing is retried
// or redirected: the caller named the nodes. A node marked down is still
// asked; a connection failure or timeout marks it as usual (unless the
// timeout was the call's own, see call_options.hpp).
//
// Thread-safety: one call per object, on the caller's thread; the context
// and pools are shared and safe for concurrent use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cloudroute/core/topology.hpp"
#include "cloudroute/net/call_options.hpp"
#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/node_pools.hpp"

namespace cloudroute {
namespace net {

enum class NodeTarget : uint8_t { kNode = 0, kMasters = 1, kAllNodes = 2 };

struct NodeReply {
  NodeEntry *node = nullptr;
  Role role = Role::kMaster;
  Tier tier = Tier::kUnknown;  // its timeout's tier
  ReplyPtr reply;              // set when the node answered (also an error reply)
  Status status;               // kServerError with its text for an error reply; a failure otherwise
};

// The targets in the current topology: masters in slot order (each
// followed by its replicas for kAllNodes), or the one node at address.
// Errors: kNoTopology; kNotFound (no such node); kInvalid (a bad address).
Result<std::vector<NodeReply>> ResolveTargets(ClientContext *ctx, NodeTarget target,
                                              const std::string &address);

// Sends args to every target and fills in their replies.
void RunOnNodes(ClientContext *ctx, NodePools *pools, const Args &args, const CallOptions &call,
                std::vector<NodeReply> *targets);

}  // namespace net
}  // namespace cloudroute
