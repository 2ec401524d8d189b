// Synthetic CLUSTER SLOTS and CLUSTER SHARDS replies (RESP2) of N shards of
// three nodes each (a master and two replicas, 40-hex node ids, node k of
// shard s at 127.k+1.(s/250).(s%250+1):7000), the shape of a large Redis
// Cluster; optionally after a failover in one shard (its nodes 0 and 1
// traded roles), the reply a refresh finds. Shared by bench/scale_check.cc and
// tests/core/scale_alloc_test.cc.
#pragma once

#include <cstdio>
#include <string>

namespace crscale {

inline std::string Bulk(const std::string &s) {
  return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
}
inline std::string Int(long v) { return ":" + std::to_string(v) + "\r\n"; }

inline std::string Ip(int s, int k) {
  return "127." + std::to_string(1 + k) + "." + std::to_string(s / 250) + "." +
         std::to_string(1 + s % 250);
}

inline std::string Id(int s, int k) {
  char id[41];
  std::snprintf(id, sizeof id, "%08x%08x%024x", 0xc0ffee00u + static_cast<unsigned>(s),
                static_cast<unsigned>(k), 0u);
  return id;
}

// Node k of shard s at position `at` of its shard's list: the master first.
// In shard `failed_over` (if any) nodes 0 and 1 traded places (a failover).
inline int NodeAt(int s, int at, int failed_over) {
  return s == failed_over && at < 2 ? 1 - at : at;
}

inline std::string ClusterSlots(int shards, int failed_over = -1) {
  std::string out = "*" + std::to_string(shards) + "\r\n";
  for (int s = 0; s < shards; ++s) {
    out += "*5\r\n" + Int(static_cast<long>(s) * 16384 / shards) +
           Int(static_cast<long>(s + 1) * 16384 / shards - 1);
    for (int at = 0; at < 3; ++at) {
      const int k = NodeAt(s, at, failed_over);
      out += "*3\r\n" + Bulk(Ip(s, k)) + Int(7000) + Bulk(Id(s, k));
    }
  }
  return out;
}

inline std::string ClusterShards(int shards, int failed_over = -1) {
  std::string out = "*" + std::to_string(shards) + "\r\n";
  for (int s = 0; s < shards; ++s) {
    out += "*4\r\n" + Bulk("slots") + "*2\r\n" + Int(static_cast<long>(s) * 16384 / shards) +
           Int(static_cast<long>(s + 1) * 16384 / shards - 1) + Bulk("nodes") + "*3\r\n";
    for (int at = 0; at < 3; ++at) {
      const int k = NodeAt(s, at, failed_over);
      out += "*14\r\n" + Bulk("id") + Bulk(Id(s, k)) + Bulk("port") + Int(7000) + Bulk("ip") +
             Bulk(Ip(s, k)) + Bulk("endpoint") + Bulk(Ip(s, k)) + Bulk("role") +
             Bulk(at == 0 ? "master" : "replica") + Bulk("replication-offset") + Int(1234) +
             Bulk("health") + Bulk("online");
    }
  }
  return out;
}

}  // namespace crscale
