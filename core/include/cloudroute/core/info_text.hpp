// InfoText: the text an INFO command answers ("# Replication\r\nrole:master\r\n
// connected_slaves:1\r\nslave0:ip=…,port=…\r\n…"), parsed once into its
// fields, and the replication fields the client reads, typed.
//
// The format: one "key:value" per line (CRLF from a server, LF accepted),
// "# Name" lines open a section, blank lines separate sections. The value is
// everything after the first colon (values may hold colons: IPv6, paths).
// Lines that are neither are skipped, so garbage yields no fields rather
// than an error: a field the caller needs is then simply absent.
//
// Thread-safety: pure functions and immutable values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cloudroute {

struct InfoField {
  std::string section;  // "Replication" for the lines after "# Replication"; "" before any
  std::string key, value;
};

class InfoText {
 public:
  static InfoText Parse(std::string_view text);

  // The value of the first field named key, or nullptr when there is none.
  const std::string *Find(std::string_view key) const;
  // The value as a decimal integer; nullopt when absent, not a number (the
  // whole value must be digits, with an optional '-'), or out of range.
  std::optional<int64_t> FindInt(std::string_view key) const;
  const std::vector<InfoField> &fields() const { return fields_; }

 private:
  std::vector<InfoField> fields_;
};

// "slave0:ip=127.0.1.2,port=7002,state=online,offset=3962,lag=0" on a
// master, one per connected replica.
struct ReplicaInfo {
  std::string ip, state;
  uint16_t port = 0;
  int64_t offset = -1;  // acknowledged replication offset; -1 when absent or bad
  int64_t lag_s = -1;   // seconds since its last ack; -1 when absent or bad
};

// INFO replication, the fields the client decides on. Strings are empty and
// numbers -1 when the field is absent or does not parse.
struct ReplicationInfo {
  std::string role;                     // "master" or "slave"
  std::string master_link_status;       // a replica's: "up" or "down"
  std::string master_sync_in_progress;  // a replica's: "0" or "1"
  int64_t master_repl_offset = -1;
  // The "slave<N>" lines that name an ip and a port in 1-65535; others are
  // skipped.
  std::vector<ReplicaInfo> replicas;
};

ReplicationInfo ParseReplicationInfo(std::string_view info_text);

}  // namespace cloudroute
