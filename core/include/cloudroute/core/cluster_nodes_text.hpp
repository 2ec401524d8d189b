// CLUSTER NODES text: one line per node, "<id> <ip:port@cport[,hostname]>
// <flags> <master> <ping-sent> <pong-recv> <epoch> <link> <slot> <slot> …",
// where a slot entry is a number, a range "a-b", or — on the answering
// node's own ("myself") line only — a migration marker: "[slot->-<id>]"
// (migrating away to <id>) or "[slot-<-<id>]" (importing from <id>).
//
// The client reads one thing from it: which slots the answering master is
// migrating away (Redis keeps that state on the source master alone; see
// slot_migrations.hpp).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace cloudroute {

// The slots the answering node marks as migrating away ("[slot->-nodeid]")
// on its "myself" line, in the order listed. Lines end in LF or CRLF; lines
// with fewer than four fields are skipped; malformed markers, importing
// markers and slots outside 0-16383 are ignored.
std::vector<uint16_t> ParseMigratingSlots(std::string_view cluster_nodes);

}  // namespace cloudroute
