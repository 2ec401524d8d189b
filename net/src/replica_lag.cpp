// Replica lag: bounding stale reads instead of only accepting them.
//
// On each refresh, when a bound is configured, every master is asked
// INFO replication. Its master_repl_offset and, per replica, the replica's
// acknowledged offset, state and seconds since the last ack tell how far
// behind each replica is; a replica past either bound (or not listed as
// online) is marked lagging in the router, which reads it only after every
// other candidate. A master that does not answer leaves its replicas' marks
// as they were (the next refresh asks again).
#include <cstdlib>
#include <string_view>

#include "cloudroute/net/connection.hpp"

#include "cloudroute/net/client.hpp"

namespace cloudroute {
namespace net {

namespace {

struct ReplicaLine {
  std::string ip, state;
  uint16_t port = 0;
  int64_t offset = -1, lag_s = -1;
};

// "slave0:ip=127.0.1.2,port=7002,state=online,offset=3962,lag=0"
bool ParseReplicaLine(std::string_view v, ReplicaLine *out) {
  while (!v.empty()) {
    const size_t comma = v.find(',');
    const std::string_view item = v.substr(0, comma);
    const size_t eq = item.find('=');
    if (eq != std::string_view::npos) {
      const std::string_view k = item.substr(0, eq);
      const std::string val(item.substr(eq + 1));
      if (k == "ip") out->ip = val;
      else if (k == "port") out->port = static_cast<uint16_t>(std::strtoul(val.c_str(), nullptr, 10));
      else if (k == "state") out->state = val;
      else if (k == "offset") out->offset = std::strtoll(val.c_str(), nullptr, 10);
      else if (k == "lag") out->lag_s = std::strtoll(val.c_str(), nullptr, 10);
    }
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return !out->ip.empty() && out->port != 0;
}

}  // namespace

void Client::CheckReplicaLag(const Topology &t) {
  if (opts_.replica_max_lag_bytes == 0 && opts_.replica_max_lag_s == 0) return;
  static const Args kInfo{"INFO", "replication"};
  const uint32_t timeout = TimeoutFor(Tier::kUnknown);
  for (const TopoShard &shard : t.shards) {
    if (shard.replicas.empty()) continue;
    const TopoNode &m = t.nodes[shard.master];
    NodeEntry *master = m.endpoint_known() ? router_->registry().Find(m.address()) : nullptr;
    if (master == nullptr) continue;
    NodePool &pool = PoolFor(master);
    auto conn = pool.Acquire(timeout);
    if (!conn.ok()) continue;
    auto reply = (*conn)->Command(kInfo, timeout);
    pool.Release(std::move(*conn));
    if (!reply.ok() || !(*reply)->is_string()) continue;

    int64_t master_offset = -1;
    std::vector<ReplicaLine> lines;
    std::string_view text = (*reply)->str;
    while (!text.empty()) {
      const size_t nl = text.find('\n');
      std::string_view line = text.substr(0, nl);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      const size_t colon = line.find(':');
      if (colon != std::string_view::npos) {
        const std::string_view k = line.substr(0, colon), v = line.substr(colon + 1);
        if (k == "master_repl_offset") {
          master_offset = std::strtoll(std::string(v).c_str(), nullptr, 10);
        } else if (k.substr(0, 5) == "slave" && k.size() > 5 && k[5] >= '0' && k[5] <= '9') {
          ReplicaLine r;
          if (ParseReplicaLine(v, &r)) lines.push_back(std::move(r));
        }
      }
      if (nl == std::string_view::npos) break;
      text.remove_prefix(nl + 1);
    }
    for (uint32_t idx : shard.replicas) {
      const TopoNode &r = t.nodes[idx];
      if (!r.endpoint_known()) continue;
      const ReplicaLine *found = nullptr;
      for (const ReplicaLine &l : lines) {
        if (l.port == r.port && (l.ip == r.host || l.ip == r.ip)) found = &l;
      }
      bool lagging = found == nullptr || found->state != "online";
      if (!lagging && opts_.replica_max_lag_bytes != 0 && master_offset >= 0 && found->offset >= 0) {
        lagging = static_cast<uint64_t>(std::max<int64_t>(0, master_offset - found->offset)) >
                  opts_.replica_max_lag_bytes;
      }
      if (!lagging && opts_.replica_max_lag_s != 0 && found->lag_s >= 0) {
        lagging = static_cast<uint64_t>(found->lag_s) > opts_.replica_max_lag_s;
      }
      (void)router_->SetReplicaLagging(r.host, r.port, lagging);
    }
  }
}

Status Client::CheckReplicaReady(Connection *conn, uint32_t timeout_ms) {
  static const Args kInfo{"INFO", "replication"};
  auto reply = conn->Command(kInfo, timeout_ms);
  if (!reply.ok()) return reply.status();
  if (!(*reply)->is_string()) return Status::Ok();  // not a Redis we understand: let reads tell
  std::string_view text = (*reply)->str;
  std::string role, link, sync;
  int64_t offset = -1;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos) {
      const std::string_view k = line.substr(0, colon), v = line.substr(colon + 1);
      if (k == "role") role = v;
      else if (k == "master_link_status") link = v;
      else if (k == "master_sync_in_progress") sync = v;
      else if (k == "master_repl_offset") offset = std::strtoll(std::string(v).c_str(), nullptr, 10);
    }
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  if (role != "slave") return Status::Ok();
  if (sync == "1" || (link != "up" && offset == 0)) {
    return Error(Code::kConnError, "replica has no replicated data yet (master_link_status:" + link +
                                 ", master_sync_in_progress:" + sync + "); reading elsewhere");
  }
  return Status::Ok();
}

}  // namespace net
}  // namespace cloudroute
