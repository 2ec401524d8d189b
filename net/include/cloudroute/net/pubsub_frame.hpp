// Pub/sub frames: what a subscribed connection receives, checked and named,
// and how shard channels group by slot — pure functions, no I/O.
//
// A subscribed connection (RESP2) carries confirmations of the subscribe
// family (["ssubscribe", name, count] …), messages (["message", channel,
// payload], ["pmessage", pattern, channel, payload], ["smessage", channel,
// payload]), the PING answer ["pong", ""] and error replies to the commands
// it sent (-MOVED for an SSUBSCRIBE of a slot the node does not serve). The
// server also pushes ["sunsubscribe", channel, count] unasked when a shard
// channel's slot leaves the node. Every frame comes from a server and is
// untrusted: anything else — another type, arity or element type, an
// unknown verb — is a protocol violation the caller answers by closing the
// connection (ParsePushFrame's error says what was wrong, bytes escaped).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cloudroute/core/status.hpp"
#include "cloudroute/net/reply.hpp"

namespace cloudroute {
namespace net {

enum class ChannelKind : uint8_t { kChannel = 0, kPattern = 1, kShard = 2 };
constexpr int kChannelKindCount = 3;
// "channel", "pattern", "shard channel".
const char *ChannelKindName(ChannelKind k);
// The commands of a kind: SUBSCRIBE / PSUBSCRIBE / SSUBSCRIBE and their UN….
const char *SubscribeVerb(ChannelKind k);
const char *UnsubscribeVerb(ChannelKind k);

struct PushFrame {
  enum class Type : uint8_t {
    kMessage,      // kind, name (the channel), payload; pattern for kPattern
    kSubscribe,    // a confirmation: kind, name, count
    kUnsubscribe,  // a confirmation, or (kShard) the server's own on a slot move
    kPong,         // the answer to PING
    kError,        // an error reply: its text in payload
  };
  Type type = Type::kError;
  ChannelKind kind = ChannelKind::kChannel;
  std::string name;     // the channel (a message's), or the confirmed name
  std::string pattern;  // a pmessage's pattern
  std::string payload;  // a message's payload, an error's text
  int64_t count = 0;    // a confirmation's subscription count
};

// Checks and names one frame; kParse (naming what was wrong) for anything a
// subscribed connection cannot carry. Moves the strings out of r.
Result<PushFrame> ParsePushFrame(Reply *r);

// Shard channels grouped by slot (an SSUBSCRIBE carries channels of one
// slot only), in slot order; each group keeps the names' order.
std::map<uint16_t, std::vector<std::string>> GroupBySlot(const std::vector<std::string> &names);

}  // namespace net
}  // namespace cloudroute
