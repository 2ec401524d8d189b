// What a caller can see of a CLUSTER SLOTS / SHARDS parse, as text, for
// the checks that the direct walk and the general path (frame, then walk)
// agree: tests/core/cluster_paths_test.cc and tests/fuzz/fuzz_cluster_paths.cc.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "cloudroute/core/cluster_reply.hpp"

namespace crtest {

using ClusterParse = cloudroute::Result<std::shared_ptr<const cloudroute::Topology>> (*)(
    std::string_view, const cloudroute::ClusterReplyOptions &);

// A reply kind's two paths.
struct ClusterParser {
  const char *name;
  ClusterParse direct;  // the direct walk, then the general path for what it leaves
  ClusterParse framed;  // the general path alone
};

inline const ClusterParser kClusterParsers[] = {
    {"CLUSTER SLOTS", cloudroute::ParseClusterSlots, cloudroute::ParseClusterSlotsFramed},
    {"CLUSTER SHARDS", cloudroute::ParseClusterShards, cloudroute::ParseClusterShardsFramed}};

// A refusal's code, contradiction flag and message; an accepted topology's
// every node (text, ports, role, health, shard, and whether its ip is kept
// as its host), every shard (id, master, replicas, ranges) and slot run.
inline std::string Outcome(cloudroute::Result<std::shared_ptr<const cloudroute::Topology>> parsed) {
  if (!parsed.ok()) {
    const cloudroute::Status &s = parsed.status();
    return "refused " + std::to_string(static_cast<int>(s.code())) +
           (s.contradiction() ? " contradiction: " : ": ") + s.message();
  }
  const cloudroute::Topology &t = **parsed;
  std::string o = "accepted\n";
  for (const cloudroute::TopoNode &n : t.nodes) {
    o += "node [" + std::string(n.id()) + "] [" + std::string(n.host()) + "] [" +
         std::string(n.ip()) + "] [" + std::string(n.zone()) + "] " + std::to_string(n.port) + " " +
         std::to_string(n.tls_port) + " role " + std::to_string(static_cast<int>(n.role)) +
         " health " + std::to_string(static_cast<int>(n.health)) + " shard " +
         std::to_string(n.shard) + " ip_len " + std::to_string(n.ip_len) + "\n";
  }
  for (const cloudroute::TopoShard &s : t.shards) {
    o += "shard [" + std::string(s.id) + "] master " + std::to_string(s.master) + " replicas";
    for (uint32_t r : s.replicas) o += " " + std::to_string(r);
    o += " ranges";
    for (const auto &r : s.ranges) o += " " + std::to_string(r.start) + "-" + std::to_string(r.end);
    o += "\n";
  }
  o += "runs";
  for (const auto &r : t.slot_runs) {
    o +=
        " " + std::to_string(r.start) + "-" + std::to_string(r.end) + ":" + std::to_string(r.shard);
  }
  return o;
}

}  // namespace crtest
