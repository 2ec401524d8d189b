// Discovery from seed nodes (see discovery.hpp).
#include "cloudroute/net/discovery.hpp"

#include <cstdlib>

#include "cloudroute/core/cluster_reply.hpp"
#include "cloudroute/core/topology.hpp"
#include "cloudroute/net/errors.hpp"
#include "cloudroute/net/tls.hpp"

namespace cloudroute {
namespace net {

Result<std::vector<Seed>> ParseSeeds(const std::string &text) {
  std::vector<Seed> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) {
      if (comma == text.size()) break;
      continue;
    }
    const size_t colon = item.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == item.size()) {
      return Error(Code::kInvalid, "seed " + Quote(item) + " is not host:port");
    }
    std::string host = item.substr(0, colon);
    if (host.front() == '[') {
      if (host.back() != ']' || host.size() < 3) {
        return Error(Code::kInvalid, "seed " + Quote(item) + " has a malformed IPv6 literal");
      }
      host = host.substr(1, host.size() - 2);
    } else if (host.find(':') != std::string::npos) {
      return Error(Code::kInvalid, "seed " + Quote(item) + ": put an IPv6 address in brackets");
    }
    const std::string port_text = item.substr(colon + 1);
    char *end = nullptr;
    const long port = std::strtol(port_text.c_str(), &end, 10);
    if (*end != '\0' || port < 1 || port > 65535) {
      return Error(Code::kInvalid, "seed " + Quote(item) + " has a bad port");
    }
    if (Status st = CheckHost(host, "seed host"); !st.ok()) return st;
    out.push_back(Seed{host, static_cast<uint16_t>(port)});
  }
  if (out.empty()) return Error(Code::kInvalid, "no seed nodes given");
  return out;
}

namespace {

Result<std::shared_ptr<const Topology>> AskOne(const Seed &seed, const ConnectOptions &opts,
                                               uint32_t timeout_ms) {
  ConnectOptions o = opts;
  o.readonly = false;
  auto conn = Connection::Open(seed.host, seed.port, o, timeout_ms);
  if (!conn.ok()) return conn.status();
  const std::string from = (*conn)->address();
  auto reply = (*conn)->Command({"CLUSTER", "SHARDS"}, timeout_ms);
  if (!reply.ok()) return reply.status();
  Result<std::shared_ptr<const Topology>> topo = Error(Code::kInternal, "unset");
  if (!(*reply)->is_error()) {
    topo = ClusterShardsToTopology(ToRespValue(**reply), seed.host);
  } else {
    // Redis < 7 ("unknown subcommand") or an ACL user without the command
    // ("NOPERM ... 'cluster|shards'"): the older, still supported reply.
    const std::string shards_error = (*reply)->str;
    reply = (*conn)->Command({"CLUSTER", "SLOTS"}, timeout_ms);
    if (!reply.ok()) return reply.status();
    if ((*reply)->is_error()) {
      return Error(kServerError, from + ": CLUSTER SHARDS refused (" + shards_error +
                                     ") and CLUSTER SLOTS refused: " + (*reply)->str);
    }
    topo = ClusterSlotsToTopology(ToRespValue(**reply), seed.host);
  }
  if (!topo.ok()) {
    return Error(topo.status().code(), from + ": " + topo.status().message());
  }
  return topo;
}

}  // namespace

Result<std::shared_ptr<const Topology>> Discover(const std::vector<Seed> &seeds,
                                                 const ConnectOptions &opts, uint32_t timeout_ms) {
  if (seeds.empty()) return Error(Code::kInvalid, "no seed nodes given");
  std::string why;
  Code last = kConnError;
  for (const Seed &s : seeds) {
    Result<std::shared_ptr<const Topology>> d = AskOne(s, opts, timeout_ms);
    if (d.ok() && opts.tls != nullptr) *d = WithTlsPorts(std::move(*d));
    if (d.ok()) return d;
    last = d.status().code();
    why += (why.empty() ? "" : "; ") + d.status().message();
  }
  return Error(last, "no seed answered with a topology: " + why);
}

}  // namespace net
}  // namespace cloudroute
