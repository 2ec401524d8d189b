// Topology: an immutable picture of a cluster — nodes, shards, and which
// shard serves each of the 16384 slots.
//
// A shard is identified by its master's node id (or "host:port" when the
// server gave no ids), never by its slot range: a shard may own any number of
// non-contiguous ranges (`0-3096` and `4078`), and ranges move between shards
// during resharding. The slot table stores a 16-bit shard index per slot,
// never a per-slot container.
//
// Thread-safety: built by one thread with TopologyBuilder, then immutable and
// shared read-only (std::shared_ptr<const Topology>).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cloudroute/core/hash_index.hpp"
#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/core/status.hpp"

namespace cloudroute {

enum class Role : uint8_t { kMaster = 0, kReplica = 1 };
enum class ReportedHealth : uint8_t { kOnline = 0, kLoading = 1, kFailed = 2 };

constexpr uint16_t kNoShard = 0xFFFF;
constexpr uint32_t kNoNode = 0xFFFFFFFFu;

struct SlotRange {
  uint16_t start;
  uint16_t end;  // inclusive
};

// "host:port", with an IPv6 literal in brackets.
std::string FormatAddress(const std::string &host, uint16_t port);

struct TopoNode {
  std::string id;    // "" when the reply carried none
  std::string host;  // endpoint (hostname or IP); "?" when unknown
  std::string ip;    // separately reported IP, or ""
  uint16_t port = 0;
  uint16_t tls_port = 0;
  Role role = Role::kMaster;
  ReportedHealth health = ReportedHealth::kOnline;
  std::string zone;  // server-reported availability zone
  uint32_t shard = kNoNode;

  bool endpoint_known() const { return !host.empty() && host != "?" && port != 0; }
  std::string address() const { return FormatAddress(host, port); }
};

struct TopoShard {
  std::string id;
  uint32_t master = kNoNode;
  std::vector<uint32_t> replicas;
  std::vector<SlotRange> ranges;  // sorted, merged
};

struct Topology {
  std::vector<TopoNode> nodes;
  std::vector<TopoShard> shards;
  std::array<uint16_t, kSlotCount> slot_to_shard;

  Topology() { slot_to_shard.fill(kNoShard); }
};

// What a reply says about one node, before de-duplication.
struct NodeSpec {
  std::string id;
  std::string host;
  std::string ip;
  uint16_t port = 0;
  uint16_t tls_port = 0;
  ReportedHealth health = ReportedHealth::kOnline;
  std::string zone;
  // Set by a parser that already refused what TopologyBuilder checks of
  // id, host and ip (IsValidNodeId, IsValidHost, ParseIp), so they are not
  // checked twice.
  bool checked = false;
};

// Assembles a Topology from entries in any order. Nodes are de-duplicated by
// id (or by address when ids are absent); ranges of the same shard are
// merged. Errors: a slot claimed by two shards; a node that is master of one
// shard and replica of another; one node id at two addresses; one known
// address (host other than "?") given to two nodes, whatever their roles; a
// host, ip or id that fails IsValidHost / IsValidNodeId.
class TopologyBuilder {
 public:
  // Returns the shard index for a master (creating it on first sight).
  // A hint of how many shards and nodes are coming (reserves; Build() gives
  // back what was not used).
  void Reserve(size_t shards, size_t nodes);
  Result<uint32_t> AddShard(const NodeSpec &master);
  Status AddRange(uint32_t shard, uint32_t start, uint32_t end);
  Status AddReplica(uint32_t shard, const NodeSpec &replica);
  size_t shard_count() const { return t_.shards.size(); }
  // Validates and produces the immutable result.
  Result<std::shared_ptr<const Topology>> Build();

 private:
  Result<uint32_t> Intern(const NodeSpec &spec, Role role);

  Topology t_;
  HashIndex by_key_;      // by id, or by address for nodes without one
  HashIndex by_address_;  // known endpoints only
};

// Parses the static text form (see cr_topology_parse_static in cloudroute.h).
Result<std::shared_ptr<const Topology>> ParseStaticTopology(std::string_view text);

// "host:port" or "[v6]:port" → host, port, where host passes IsValidHost and
// port is 1-65535. kParse on anything else.
Status ParseHostPort(std::string_view text, std::string *host, uint16_t *port);

// True for an IPv4 or IPv6 literal (no brackets, no zone index) or an RFC 1123
// hostname: dot-separated labels of ASCII letters, digits and '-' (not first
// or last in a label), 1-63 bytes each, at most 253 in all. A trailing dot is
// refused, so one host has one spelling ("a.example" and "a.example." would
// otherwise be two addresses of one node), and a name whose labels are all
// digits must be a valid IPv4 literal ("10.0.0.256" is refused).
bool IsValidHost(std::string_view host);

// Node ids (and static shard ids): 1-256 bytes of printable ASCII, no spaces.
bool IsValidNodeId(std::string_view id);

// `text` quoted for an error message: at most 64 bytes, bytes outside
// printable ASCII as \xNN, so a hostile reply cannot inject lines or
// terminal escapes into whatever prints the message.
std::string Quote(std::string_view text);

// The one check of host and location text a caller hands in (MOVED/ASK
// reports, seeds, Sentinel addresses, shard group addresses, zones,
// locations): kInvalid naming `what` with the text Quote()d.
// CheckHost: the host must pass IsValidHost (so no CR, LF, NUL or space).
// CheckPrintable: no control byte (below 0x20, or DEL) — a CR/LF would split
// a log line or a protocol line wherever the text is printed or sent.
Status CheckHost(std::string_view host, std::string_view what);
Status CheckPrintable(std::string_view text, std::string_view what);

}  // namespace cloudroute
