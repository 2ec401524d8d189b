// Parsers for CLUSTER SLOTS and CLUSTER SHARDS replies (RESP2 or RESP3 bytes)
// into a Topology.
//
// Endpoints: an empty or null endpoint means "the address that was asked"
// (default_host); "?" means unknown — the IP field is used when the reply has
// one, otherwise the node keeps host "?" and is never routed to.
//
// Thread-safety: pure functions.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "cloudroute/core/resp.hpp"
#include "cloudroute/core/topology.hpp"

namespace cloudroute {

struct ClusterReplyOptions {
  RespLimits limits;
  std::string default_host;  // "" = nodes with an empty endpoint are unknown
};

Result<std::shared_ptr<const Topology>> ParseClusterSlots(std::string_view reply,
                                                          const ClusterReplyOptions &opts);
Result<std::shared_ptr<const Topology>> ParseClusterShards(std::string_view reply,
                                                           const ClusterReplyOptions &opts);

// The same parses along the general path alone: the reply framed whole into
// a RespFlat, then walked. ParseClusterSlots/Shards first walk the reply's
// bytes directly, which accepts the plain forms only (see RespPlainReader in
// core/src/resp_plain.hpp), and give any reply that walk does not accept,
// every refused one among them, to this path, which gives the result or
// refusal; for tests that compare the two paths.
Result<std::shared_ptr<const Topology>> ParseClusterSlotsFramed(std::string_view reply,
                                                                const ClusterReplyOptions &opts);
Result<std::shared_ptr<const Topology>> ParseClusterShardsFramed(std::string_view reply,
                                                                 const ClusterReplyOptions &opts);

// The same, from an already framed value (the net layer frames with hiredis).
Result<std::shared_ptr<const Topology>> ClusterSlotsToTopology(const RespValue &v,
                                                               const std::string &default_host);
Result<std::shared_ptr<const Topology>> ClusterShardsToTopology(const RespValue &v,
                                                                const std::string &default_host);

}  // namespace cloudroute
