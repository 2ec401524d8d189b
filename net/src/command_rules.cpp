// What a command may do to a pooled connection, and the shape of its reply
// (see command_rules.hpp).
#include "cloudroute/net/command_rules.hpp"

#include <cctype>

namespace cloudroute {
namespace net {

bool ArgIs(std::string_view arg, const char *upper) {
  size_t i = 0;
  for (; upper[i] != '\0'; ++i) {
    if (i >= arg.size() ||
        std::toupper(static_cast<unsigned char>(arg[i])) != static_cast<unsigned char>(upper[i]))
      return false;
  }
  return i == arg.size();
}

namespace {

struct StateRule {
  const char *name;
  const char *why;  // what the caller should do instead
};

constexpr char kNoPubSub[] =
    "a subscribed connection receives messages nobody asked for: for pub/sub, subscribe "
    "with cr_client_subscribe (connections of its own), publish with cr_client_publish / "
    "cr_client_spublish";

// Commands that change what a connection's next reply means. Transactions
// are allowed on a pinned connection only (kTransaction).
constexpr StateRule kStateRules[] = {
    {"SUBSCRIBE", kNoPubSub},
    {"PSUBSCRIBE", kNoPubSub},
    {"SSUBSCRIBE", kNoPubSub},
    {"UNSUBSCRIBE", kNoPubSub},
    {"PUNSUBSCRIBE", kNoPubSub},
    {"SUNSUBSCRIBE", kNoPubSub},
    {"MONITOR",
     "a monitoring connection streams every command the server runs; use redis-cli MONITOR"},
    {"SYNC", "a replication stream is not a reply"},
    {"PSYNC", "a replication stream is not a reply"},
    {"SELECT", "the database is a client option (db): every connection sends SELECT for it"},
    {"SWAPDB", "SWAPDB is an administrator's command: it swaps the database under every client"},
    {"HELLO", "the client speaks RESP2 and authenticates each connection itself"},
    {"AUTH", "credentials are client options (username, password): every connection sends them"},
    {"RESET", "the client resets a connection by closing it"},
    {"QUIT", "the client closes its connections itself (close or free the client)"},
    {"READONLY", "the client sends READONLY on every connection that may serve replica reads"},
    {"READWRITE", "the client sends READONLY on every connection that may serve replica reads"},
    {"ASKING", "the client sends ASKING itself when it follows an ASK redirect"},
};

constexpr char kTransaction[] =
    "a transaction holds its connection from MULTI (or WATCH) to EXEC: run it on a pinned "
    "connection (cr_client_pin; Python Client.pinned(), Java Client.pin())";

constexpr const char *kTransactionCommands[] = {"MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH"};

// CLIENT subcommands that change the connection: REPLY (OFF / SKIP drop
// replies), TRACKING (invalidation pushes), and the RESP3-only or
// connection-identity ones.
constexpr StateRule kClientRules[] = {
    {"REPLY",
     "CLIENT REPLY OFF or SKIP leaves replies unsent, so later replies go to the wrong "
     "caller"},
    {"TRACKING", "tracking sends invalidation messages nobody asked for on the connection"},
    {"CACHING", "client-side caching needs CLIENT TRACKING, which the client does not allow"},
    {"SETNAME", "the connection name is a client option (client_name)"},
    {"NO-EVICT", "a pooled connection is shared: its flags would apply to every caller"},
    {"NO-TOUCH", "a pooled connection is shared: its flags would apply to every caller"},
};

}  // namespace

Status RefuseStateChange(std::string_view name, std::string_view sub, ConnectionUse use) {
  auto refuse = [&](std::string_view what, const char *why) {
    return Error(Code::kInvalid,
                 std::string(what) + " is not sent on the client's pooled connections: " + why);
  };
  for (const StateRule &r : kStateRules) {
    if (ArgIs(name, r.name)) return refuse(r.name, r.why);
  }
  for (const char *t : kTransactionCommands) {
    if (ArgIs(name, t))
      return use == ConnectionUse::kPinned ? Status::Ok() : refuse(t, kTransaction);
  }
  if (ArgIs(name, "CLIENT")) {
    for (const StateRule &r : kClientRules) {
      if (ArgIs(sub, r.name)) return refuse(std::string("CLIENT ") + r.name, r.why);
    }
  }
  return Status::Ok();
}

namespace {

struct ShapeRule {
  const char *name;
  ReplyShape shape;
};

// The commands the typed calls send (and their everyday neighbours), with
// the only RESP2 shapes they can answer. SET, MGET and HMGET are in
// ExpectedReplyOf: their shape depends on their arguments.
constexpr ShapeRule kShapes[] = {
    {"GET", ReplyShape::kBulkOrNil},         {"GETDEL", ReplyShape::kBulkOrNil},
    {"GETEX", ReplyShape::kBulkOrNil},       {"GETSET", ReplyShape::kBulkOrNil},
    {"HGET", ReplyShape::kBulkOrNil},        {"MSET", ReplyShape::kOk},
    {"DEL", ReplyShape::kInteger},           {"UNLINK", ReplyShape::kInteger},
    {"EXISTS", ReplyShape::kInteger},        {"TOUCH", ReplyShape::kInteger},
    {"INCR", ReplyShape::kInteger},          {"DECR", ReplyShape::kInteger},
    {"INCRBY", ReplyShape::kInteger},        {"DECRBY", ReplyShape::kInteger},
    {"EXPIRE", ReplyShape::kInteger},        {"PEXPIRE", ReplyShape::kInteger},
    {"EXPIREAT", ReplyShape::kInteger},      {"PEXPIREAT", ReplyShape::kInteger},
    {"PERSIST", ReplyShape::kInteger},       {"TTL", ReplyShape::kInteger},
    {"PTTL", ReplyShape::kInteger},          {"STRLEN", ReplyShape::kInteger},
    {"APPEND", ReplyShape::kInteger},        {"HSET", ReplyShape::kInteger},
    {"HDEL", ReplyShape::kInteger},          {"HLEN", ReplyShape::kInteger},
    {"HEXISTS", ReplyShape::kInteger},       {"HINCRBY", ReplyShape::kInteger},
    {"HGETALL", ReplyShape::kEvenBulkArray},
};

const char *ShapeText(ReplyShape s) {
  switch (s) {
    case ReplyShape::kOk:
      return "+OK";
    case ReplyShape::kOkOrNil:
      return "+OK or nil";
    case ReplyShape::kBulkOrNil:
      return "a bulk string or nil";
    case ReplyShape::kInteger:
      return "an integer";
    case ReplyShape::kBulkOrNilArray:
      return "an array of bulk strings or nils, one per key";
    case ReplyShape::kEvenBulkArray:
      return "an array of field and value bulk strings";
    case ReplyShape::kAny:
      break;
  }
  return "any reply";
}

std::string Describe(const Reply &r) {
  switch (r.type) {
    case RespType::kSimpleString:
      return "the status +" + (r.str.size() <= 16 ? r.str : r.str.substr(0, 16) + "...");
    case RespType::kBulkString:
      return "a bulk string of " + std::to_string(r.str.size()) + " bytes";
    case RespType::kInteger:
      return "the integer " + std::to_string(r.integer);
    case RespType::kNull:
      return "nil";
    case RespType::kArray:
    case RespType::kMap:
      return "an aggregate of " + std::to_string(r.elements.size()) + " elements";
    default:
      return "a reply of RESP type " + std::to_string(static_cast<int>(r.type));
  }
}

bool BulkOrNil(const Reply &r) {
  return r.type == RespType::kBulkString || r.type == RespType::kNull;
}

bool Fits(const ExpectedReply &e, const Reply &r) {
  switch (e.shape) {
    case ReplyShape::kAny:
      return true;
    case ReplyShape::kOk:
      return r.type == RespType::kSimpleString && r.str == "OK";
    case ReplyShape::kOkOrNil:
      return r.type == RespType::kNull || (r.type == RespType::kSimpleString && r.str == "OK");
    case ReplyShape::kBulkOrNil:
      return BulkOrNil(r);
    case ReplyShape::kInteger:
      return r.type == RespType::kInteger;
    case ReplyShape::kBulkOrNilArray:
      if (r.type != RespType::kArray || r.elements.size() != e.count) return false;
      for (const ReplyPtr &el : r.elements) {
        if (!BulkOrNil(*el)) return false;
      }
      return true;
    case ReplyShape::kEvenBulkArray:
      if (r.type != RespType::kArray || r.elements.size() % 2 != 0) return false;
      for (const ReplyPtr &el : r.elements) {
        if (el->type != RespType::kBulkString) return false;
      }
      return true;
  }
  return false;
}

}  // namespace

ReplyShape ShapeOfCommand(std::string_view name) {
  for (const ShapeRule &r : kShapes) {
    if (ArgIs(name, r.name)) return r.shape;
  }
  return ReplyShape::kAny;
}

std::string ReplyMismatch(std::string_view name, const ExpectedReply &e, const Reply &reply) {
  if (reply.is_error() || Fits(e, reply)) return std::string();
  std::string upper(name.substr(0, 32));
  for (char &ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  std::string want = ShapeText(e.shape);
  if (e.shape == ReplyShape::kBulkOrNilArray) {
    want = "an array of " + std::to_string(e.count) + " bulk strings or nils";
  }
  return Describe(reply) + " where " + upper + " answers " + want;
}

}  // namespace net
}  // namespace cloudroute
