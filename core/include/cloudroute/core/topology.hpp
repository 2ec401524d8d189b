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
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cloudroute/core/hash_index.hpp"
#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/core/small_array.hpp"
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
std::string FormatAddress(std::string_view host, uint16_t port);

struct TopoNode;

// Where a topology keeps the text of its nodes and shards: blocks that never
// move, shared by every copy of the topology (a copy's views stay valid as
// long as either lives). One block for a parsed topology, so a node's four
// strings cost their bytes and a NUL each instead of four std::strings.
class TextArena {
 public:
  // A new block of n bytes, kept as long as the arena or a copy lives.
  char *Allocate(size_t n);
  // A NUL-terminated copy of s.
  std::string_view Keep(std::string_view s);
  // Copies id, host, ip and zone into the arena as n's text (see TopoNode).
  // kInvalid when one is longer than its field holds (an id of 256 bytes at
  // most, a host of 255, an ip of 254, a zone of 65535).
  Status Put(TopoNode *n, std::string_view id, std::string_view host, std::string_view ip,
             std::string_view zone);

 private:
  std::vector<std::shared_ptr<char[]>> blocks_;
};

// A node's text lives elsewhere (its topology's TextArena, or a caller's
// buffer): id, host, ip and zone back to back, each NUL-terminated so the
// C API hands them out as they are; an ip equal to the host (as CLUSTER
// SHARDS reports most nodes) is not stored twice. 24 bytes a node instead
// of ~185. Read the text through the accessors, not the lengths.
struct TopoNode {
  static constexpr uint8_t kIpIsHost = 0xFF;  // ip_len: the ip is the host

  const char *text = kNoText;
  uint16_t id_len = 0;
  uint16_t zone_len = 0;
  uint8_t host_len = 0;
  uint8_t ip_len = 0;  // or kIpIsHost
  uint16_t port = 0;
  uint16_t tls_port = 0;
  Role role = Role::kMaster;
  ReportedHealth health = ReportedHealth::kOnline;
  uint32_t shard = kNoNode;

  static constexpr const char *kNoText = "\0\0\0";  // four empty strings

  std::string_view id() const { return {text, id_len}; }          // "" when the reply carried none
  std::string_view host() const { return {host_c(), host_len}; }  // "?" when unknown
  std::string_view ip() const {                                   // separately reported IP, or ""
    return ip_len == kIpIsHost ? host() : std::string_view(ip_c(), ip_len);
  }
  std::string_view zone() const { return {zone_c(), zone_len}; }  // server-reported zone
  // The same, NUL-terminated.
  const char *id_c() const { return text; }
  const char *host_c() const { return text + id_len + 1; }
  const char *ip_c() const { return ip_len == kIpIsHost ? host_c() : host_c() + host_len + 1; }
  const char *zone_c() const {
    return host_c() + host_len + 1 + (ip_len == kIpIsHost ? 0 : ip_len + 1);
  }

  bool endpoint_known() const { return host_len != 0 && host() != "?" && port != 0; }
  std::string address() const { return FormatAddress(host(), port); }
};
static_assert(sizeof(TopoNode) == 24, "a node's fixed part stays small");

// Appends n's text (see TopoNode) to *text and sets n's lengths; n->text is
// the caller's to point at where the appended bytes end up. REQUIRES: the
// lengths fit (as TextArena::Put checks).
void SetNodeText(TopoNode *n, std::string_view id, std::string_view host, std::string_view ip,
                 std::string_view zone, std::string *text);

// 56 bytes: a shard's usual two replicas and one range live in the shard
// itself (SmallArray), not in two blocks of their own.
struct TopoShard {
  std::string_view id;  // NUL-terminated, in the topology's text
  uint32_t master = kNoNode;
  SmallArray<uint32_t> replicas;
  SmallArray<SlotRange> ranges;  // sorted, merged
};

// Slots start..end (inclusive) are served by shard `shard`.
struct SlotRun {
  uint16_t start;
  uint16_t end;
  uint16_t shard;
};

struct Topology {
  std::vector<TopoNode> nodes;
  std::vector<TopoShard> shards;
  // Who serves which slot: maximal runs of one shard, sorted by start, slots
  // served by no shard left out (set by TopologyBuilder::Build). A cluster's
  // thousand-odd runs take a few KB where a per-slot table kept 32 KB beside
  // the snapshot's own (the table routing reads, FillSlotTable).
  std::vector<SlotRun> slot_runs;
  TextArena text;  // what the nodes' and shards' text views point into

  // The shard that serves slot, or kNoShard (a binary search of the runs).
  uint16_t ShardOfSlot(uint32_t slot) const;
  // The per-slot table: (*table)[slot] = ShardOfSlot(slot), for every slot.
  void FillSlotTable(std::array<uint16_t, kSlotCount> *table) const;
};

// What a reply says about one node, before de-duplication. Its text is
// Text: std::string_view in a NodeSpecView (views of the reply, which the
// reply's parsers fill per node without copying; TopologyBuilder copies
// what it keeps), std::string in a NodeSpec (for a caller that builds a
// node from parts).
template <typename Text>
struct NodeSpecOf {
  Text id;
  Text host;
  Text ip;
  Text zone;
  uint16_t port = 0;
  uint16_t tls_port = 0;
  ReportedHealth health = ReportedHealth::kOnline;
  // Set by a parser that already refused what TopologyBuilder checks of
  // id, host and ip (IsValidNodeId, IsValidHost, ParseIp), so they are not
  // checked twice.
  bool checked = false;
};
using NodeSpecView = NodeSpecOf<std::string_view>;
struct NodeSpec : NodeSpecOf<std::string> {
  // Views of this spec's text, valid while it lives unchanged.
  operator NodeSpecView() const { return {id, host, ip, zone, port, tls_port, health, checked}; }
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
  Result<uint32_t> AddShard(const NodeSpecView &master);
  Status AddRange(uint32_t shard, uint32_t start, uint32_t end);
  Status AddReplica(uint32_t shard, const NodeSpecView &replica);
  size_t shard_count() const { return t_.shards.size(); }
  // Validates and produces the immutable result.
  Result<std::shared_ptr<const Topology>> Build();

 private:
  Result<uint32_t> Intern(const NodeSpecView &spec, Role role);
  // The first slot two shards claim, as an error (Build() found an overlap).
  Status SlotConflict() const;
  // While building, text lives in text_ (it may move as it grows): node i's
  // at text_at_[i], shard s's id at shard_text_[s] (offset, length).
  std::string_view NodeId(uint32_t i) const {
    return std::string_view(text_).substr(text_at_[i], t_.nodes[i].id_len);
  }
  std::string_view NodeHost(uint32_t i) const {
    return std::string_view(text_).substr(text_at_[i] + t_.nodes[i].id_len + 1,
                                          t_.nodes[i].host_len);
  }
  std::string NodeAddress(uint32_t i) const { return FormatAddress(NodeHost(i), t_.nodes[i].port); }
  std::string_view ShardId(uint32_t s) const {
    return std::string_view(text_).substr(shard_text_[s].first, shard_text_[s].second);
  }

  Topology t_;
  std::string text_;
  std::vector<uint32_t> text_at_;
  std::vector<std::pair<uint32_t, uint32_t>> shard_text_;
  HashIndex by_key_;      // by id, or by address for nodes without one
  HashIndex by_address_;  // known endpoints only
};

// Parses the static text form (see cr_topology_parse_static in cloudroute.h).
Result<std::shared_ptr<const Topology>> ParseStaticTopology(std::string_view text);

// "host:port" or "[host]:port" split without allocating or checking: host is
// the text in the brackets (up to the first ']', which ':' must follow) or
// before the last ':', port the text after that ':'. False when there is no
// ':' to split at, or a '[' has no "]:" after it. ParseHostPort checks both;
// a caller that takes brackets only around an IPv6 literal checks that too.
struct HostPortView {
  std::string_view host;
  std::string_view port;
  bool bracketed = false;  // host came in brackets
};
bool SplitHostPort(std::string_view text, HostPortView *out);

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
