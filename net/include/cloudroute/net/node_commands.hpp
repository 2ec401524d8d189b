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
  NodeEntry *node = nullptr;  // pinned only while the caller holds the snapshot
  std::string address;        // node's, copied
  Role role = Role::kMaster;
  Tier tier = Tier::kUnknown;  // its timeout's tier
  ReplyPtr reply;              // set when the node answered (also an error reply)
  Status status;               // kServerError with its text for an error reply; a failure otherwise
};

// The targets in snap (the caller's, kept until RunOnNodes returned: it
// pins the nodes): masters in slot order — a ring's groups in group order —
// (each followed by its replicas for kAllNodes), or the one node at address.
// Errors: kNoTopology (snap is null); kNotFound (no such node).
Result<std::vector<NodeReply>> ResolveTargets(const Snapshot *snap, NodeTarget target,
                                              const std::string &address);

// Sends args to every target and fills in their replies.
// REQUIRES: the snapshot the targets came from is held.
void RunOnNodes(ClientContext *ctx, NodePools *pools, const Args &args, const CallOptions &call,
                std::vector<NodeReply> *targets);

// Both of the above on the current topology of ctx->topo, for a client's
// ExecuteOnNodes: kInvalid for an empty command or one that would change
// a shared connection's state (command_rules.hpp).
Result<std::vector<NodeReply>> ExecuteOnNodes(ClientContext *ctx, NodePools *pools,
                                              NodeTarget target, const std::string &address,
                                              const Args &args, const CallOptions &call);

}  // namespace net
}  // namespace cloudroute
