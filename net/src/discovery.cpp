// Discovery from seed nodes (see discovery.hpp).
#include "cloudroute/net/discovery.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "cloudroute/core/cluster_reply.hpp"
#include "cloudroute/core/topology.hpp"
#include "cloudroute/net/backoff.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"
#include "cloudroute/net/interrupt.hpp"
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
    HostPortView split;
    const bool split_ok = SplitHostPort(item, &split);
    if (!split_ok && item.front() == '[') {
      return Error(Code::kInvalid, "seed " + Quote(item) + " has a malformed IPv6 literal");
    }
    if (!split_ok || split.port.empty() || (!split.bracketed && split.host.empty())) {
      return Error(Code::kInvalid, "seed " + Quote(item) + " is not host:port");
    }
    if (split.bracketed && split.host.find(':') == std::string_view::npos) {
      return Error(Code::kInvalid, "seed " + Quote(item) + ": brackets hold an IPv6 address");
    }
    if (!split.bracketed && split.host.find(':') != std::string_view::npos) {
      return Error(Code::kInvalid, "seed " + Quote(item) + ": put an IPv6 address in brackets");
    }
    const std::string host(split.host);
    const std::string port_text(split.port);
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

// What one seed's failure means for asking again.
enum class Failure : uint8_t {
  kHard,           // auth, ACL, not a cluster, a malformed reply, a limit: asking again won't help
  kTransient,      // unreachable, timed out, loading, the cluster down for a moment
  kContradiction,  // a well-formed topology that contradicts itself (Status::contradiction)
};

// Server error replies that a node gives for a moment: it loads its data,
// or the cluster is down or reconfiguring.
bool TransientReply(const std::string &text) {
  for (const char *prefix : {"LOADING", "CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN"}) {
    if (text.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

Failure Classify(const Status &s) {
  if (s.contradiction()) return Failure::kContradiction;
  return s.code() == kConnError || s.code() == kTimeout ? Failure::kTransient : Failure::kHard;
}

Result<std::shared_ptr<const Topology>> AskOne(const Seed &seed, const ConnectOptions &opts,
                                               uint32_t timeout_ms, Failure *failure) {
  ConnectOptions o = opts;
  o.readonly = false;
  auto conn = Connection::Open(seed.host, seed.port, o, timeout_ms);
  if (!conn.ok()) {
    *failure = Classify(conn.status());
    return conn.status();
  }
  const std::string from = (*conn)->address();
  auto reply = (*conn)->Command({"CLUSTER", "SHARDS"}, timeout_ms);
  if (!reply.ok()) {
    *failure = Classify(reply.status());
    return reply.status();
  }
  Result<std::shared_ptr<const Topology>> topo = Error(Code::kInternal, "unset");
  if (!(*reply)->is_error()) {
    topo = ClusterShardsToTopology(ToRespValue(**reply), seed.host);
  } else {
    // Redis < 7 ("unknown subcommand") or an ACL user without the command
    // ("NOPERM ... 'cluster|shards'"): the older, still supported reply.
    const std::string shards_error = (*reply)->str;
    reply = (*conn)->Command({"CLUSTER", "SLOTS"}, timeout_ms);
    if (!reply.ok()) {
      *failure = Classify(reply.status());
      return reply.status();
    }
    if ((*reply)->is_error()) {
      *failure = TransientReply((*reply)->str) ? Failure::kTransient : Failure::kHard;
      return Error(kServerError, from + ": CLUSTER SHARDS refused (" + shards_error +
                                     ") and CLUSTER SLOTS refused: " + (*reply)->str);
    }
    topo = ClusterSlotsToTopology(ToRespValue(**reply), seed.host);
  }
  if (!topo.ok()) {
    *failure = Classify(topo.status());
    return topo.status().Prefixed(from + ": ");
  }
  return topo;
}

// Waits ms before the seeds are asked again; false when this thread's
// interrupt check asked to stop meanwhile (interrupt.hpp).
bool WaitToAskAgain(uint32_t ms) {
  const int64_t until = DeadlineAfter(ms);
  const bool checked = HasInterruptCheck();
  for (uint32_t left = ms; left > 0; left = MsLeft(until)) {
    std::this_thread::sleep_for(
        std::chrono::milliseconds(checked ? std::min(left, kInterruptSliceMs) : left));
    if (checked && InterruptAsked()) return false;
  }
  return true;
}

}  // namespace

Result<std::shared_ptr<const Topology>> Discover(const std::vector<Seed> &seeds,
                                                 const ConnectOptions &opts, uint32_t timeout_ms,
                                                 uint32_t settle_ms, uint32_t *rounds) {
  if (seeds.empty()) return Error(Code::kInvalid, "no seed nodes given");
  const int64_t t0 = SteadyNowNs();
  const int64_t settle_until = DeadlineAfter(settle_ms, t0);
  uint64_t random = static_cast<uint64_t>(t0) * 0x9e3779b97f4a7c15ull;
  for (uint32_t round = 1;; ++round) {
    if (rounds != nullptr) *rounds = round;
    std::string why;
    Code last = kConnError;
    bool contradicted = false, hard = false;
    for (const Seed &s : seeds) {
      Failure failure = Failure::kHard;
      Result<std::shared_ptr<const Topology>> d = AskOne(s, opts, timeout_ms, &failure);
      if (d.ok() && opts.tls != nullptr) *d = WithTlsPorts(std::move(*d));
      if (d.ok()) return d;
      // This thread's interrupt check ended a wait (interrupt.hpp): no other seed is asked.
      if (d.status().code() == kConnError && InterruptAsked()) return d.status();
      last = d.status().code();
      contradicted |= failure == Failure::kContradiction;
      hard |= failure == Failure::kHard;
      why += (why.empty() ? "" : "; ") + d.status().message();
    }
    // Only a moment of disagreement is waited out: some seed contradicted
    // itself and none failed for a reason that asking again cannot change.
    const bool disagreed = contradicted && !hard;
    if (!disagreed) return Error(last, "no seed answered with a topology: " + why);
    random = random * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t wait_ms =
        BackoffMs(round - 1, kSettleBackoffBaseMs, kSettleBackoffCapMs, random >> 11);
    const int64_t spent_ms = (SteadyNowNs() - t0) / kNsPerMs;
    const std::string asked = round > 1 ? "; every seed was asked " + std::to_string(round) +
                                              " times over " + std::to_string(spent_ms) + " ms"
                                        : "";
    if (MsLeft(settle_until) <= wait_ms) {
      return Status::Contradiction(
          "no seed answered with a consistent topology (the nodes disagree, as they do for a "
          "moment during a failover): " +
          why + asked);
    }
    if (!WaitToAskAgain(wait_ms)) {
      return Error(kConnError,
                   "interrupted by the caller while waiting to ask the seeds again (no seed "
                   "answered with a consistent topology: " +
                       why + asked + ")");
    }
  }
}

}  // namespace net
}  // namespace cloudroute
