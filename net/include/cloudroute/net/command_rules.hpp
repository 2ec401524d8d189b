// Command rules: what a command may do to a pooled connection, and what
// shape its reply may take — the two checks that keep every reply with the
// request it answers.
//
// A pooled connection promises its next user a plain request/reply stream:
// RESP2, the client's database (its db option), no subscription, no MULTI, every reply sent. A
// command that changes that state (SUBSCRIBE, MONITOR, CLIENT REPLY OFF, SELECT, HELLO, MULTI …)
// would leave the next caller reading replies that are not its own, so RefuseStateChange() turns it
// away before anything is sent, with what to use instead. A pinned connection (pinned.hpp) is one
// caller's for the life of a transaction: there MULTI / EXEC / DISCARD / WATCH / UNWATCH are
// allowed, the rest is refused as on a shared one.
//
// ExpectedReplyOf() knows the reply shapes of the commands the typed calls
// of every binding send (GET, SET, MGET, DEL, INCRBY, HGETALL …). A reply of
// a shape the command cannot produce means replies and requests no longer
// match — a server or proxy bug, or a reply left over from someone else — so
// the connection is poisoned (Connection::Poison): closed, and what was read
// on it is not trusted. An error reply fits every command. Commands not in
// the table (the generic path: any command, modules) pass any well-formed
// reply through.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cloudroute/core/status.hpp"
#include "cloudroute/net/connection.hpp"
#include "cloudroute/net/reply.hpp"

namespace cloudroute {
namespace net {

// Whether arg is the command or option name `upper` (given in upper case),
// ignoring case.
bool ArgIs(std::string_view arg, const char *upper);

enum class ConnectionUse : uint8_t {
  kShared,  // a pooled connection shared by every caller
  kPinned,  // a connection pinned to one caller for a transaction
};

// kInvalid, naming the command and what to use instead, when the command
// (name and, for CLIENT, its subcommand) would change the connection's state;
// OK otherwise. Nothing has been sent when it refuses.
Status RefuseStateChange(std::string_view name, std::string_view sub, ConnectionUse use);
template <typename Seq>
Status RefuseStateChange(const Seq &argv, ConnectionUse use) {
  if (argv.empty()) return Status::Ok();
  return RefuseStateChange(std::string_view(argv[0]),
                           argv.size() > 1 ? std::string_view(argv[1]) : std::string_view(), use);
}

enum class ReplyShape : uint8_t {
  kAny,             // not checked
  kOk,              // +OK
  kOkOrNil,         // +OK, or nil (SET NX / XX that did not set)
  kBulkOrNil,       // a bulk string or nil (GET)
  kInteger,         // an integer (DEL, INCRBY, TTL …)
  kBulkOrNilArray,  // an array of exactly `count` bulk strings or nils (MGET)
  kEvenBulkArray,   // an array of an even number of bulk strings (HGETALL)
};

struct ExpectedReply {
  ReplyShape shape = ReplyShape::kAny;
  size_t count = 0;  // kBulkOrNilArray: how many elements
};

// The shape of a command without options that change it (see SET below).
ReplyShape ShapeOfCommand(std::string_view name);

// What the command's reply may be. SET's depends on its options: GET makes
// it a bulk string or nil, NX / XX +OK or nil, else +OK.
template <typename Seq>
ExpectedReply ExpectedReplyOf(const Seq &argv) {
  ExpectedReply e;
  if (argv.empty()) return e;
  const std::string_view name(argv[0]);
  if (ArgIs(name, "SET")) {
    e.shape = ReplyShape::kOk;
    for (size_t i = 3; i < argv.size(); ++i) {
      const std::string_view opt(argv[i]);
      if (ArgIs(opt, "GET")) return {ReplyShape::kBulkOrNil, 0};
      if (ArgIs(opt, "NX") || ArgIs(opt, "XX")) e.shape = ReplyShape::kOkOrNil;
    }
    return e;
  }
  if (ArgIs(name, "MGET")) return {ReplyShape::kBulkOrNilArray, argv.size() - 1};
  if (ArgIs(name, "HMGET")) {
    return {ReplyShape::kBulkOrNilArray, argv.size() >= 2 ? argv.size() - 2 : 0};
  }
  e.shape = ShapeOfCommand(name);
  return e;
}

// "" when reply fits e (an error reply always does); else what was wrong,
// as "an integer where GET answers a bulk string or nil".
std::string ReplyMismatch(std::string_view name, const ExpectedReply &e, const Reply &reply);

// OK when reply can answer argv; else conn (the connection it came on) is
// poisoned and the status to hand the request says why.
template <typename Seq>
Status CheckReply(const Seq &argv, const Reply &reply, Connection *conn) {
  if (argv.empty()) return Status::Ok();
  const std::string bad = ReplyMismatch(std::string_view(argv[0]), ExpectedReplyOf(argv), reply);
  return bad.empty() ? Status::Ok() : conn->Poison(bad);
}

}  // namespace net
}  // namespace cloudroute
