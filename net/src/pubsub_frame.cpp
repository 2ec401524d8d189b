// Pub/sub frames (see pubsub_frame.hpp).
#include "cloudroute/net/pubsub_frame.hpp"

#include <cstring>
#include <utility>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/core/topology.hpp"

namespace cloudroute {
namespace net {

const char *ChannelKindName(ChannelKind k) {
  switch (k) {
    case ChannelKind::kChannel:
      return "channel";
    case ChannelKind::kPattern:
      return "pattern";
    case ChannelKind::kShard:
      return "shard channel";
  }
  return "?";
}

const char *SubscribeVerb(ChannelKind k) {
  return k == ChannelKind::kPattern ? "PSUBSCRIBE"
         : k == ChannelKind::kShard ? "SSUBSCRIBE"
                                    : "SUBSCRIBE";
}

const char *UnsubscribeVerb(ChannelKind k) {
  return k == ChannelKind::kPattern ? "PUNSUBSCRIBE"
         : k == ChannelKind::kShard ? "SUNSUBSCRIBE"
                                    : "UNSUBSCRIBE";
}

namespace {

Status Bad(const std::string &what) {
  return Status(Code::kParse, "malformed push frame: " + what);
}

bool IsBulk(const ReplyPtr &e) { return e != nullptr && e->type == RespType::kBulkString; }

struct Verb {
  const char *text;
  PushFrame::Type type;
  ChannelKind kind;
  size_t arity;
};

// Lower case, as servers send them.
constexpr Verb kVerbs[] = {
    {"message", PushFrame::Type::kMessage, ChannelKind::kChannel, 3},
    {"pmessage", PushFrame::Type::kMessage, ChannelKind::kPattern, 4},
    {"smessage", PushFrame::Type::kMessage, ChannelKind::kShard, 3},
    {"subscribe", PushFrame::Type::kSubscribe, ChannelKind::kChannel, 3},
    {"psubscribe", PushFrame::Type::kSubscribe, ChannelKind::kPattern, 3},
    {"ssubscribe", PushFrame::Type::kSubscribe, ChannelKind::kShard, 3},
    {"unsubscribe", PushFrame::Type::kUnsubscribe, ChannelKind::kChannel, 3},
    {"punsubscribe", PushFrame::Type::kUnsubscribe, ChannelKind::kPattern, 3},
    {"sunsubscribe", PushFrame::Type::kUnsubscribe, ChannelKind::kShard, 3},
    {"pong", PushFrame::Type::kPong, ChannelKind::kChannel, 2},
};

}  // namespace

Result<PushFrame> ParsePushFrame(Reply *r) {
  PushFrame f;
  if (r->type == RespType::kError) {
    f.type = PushFrame::Type::kError;
    f.payload = std::move(r->str);
    return f;
  }
  if (r->type != RespType::kArray)
    return Bad("not an array (RESP type " + std::to_string(static_cast<int>(r->type)) + ")");
  auto &el = r->elements;
  if (el.empty() || !IsBulk(el[0])) return Bad("no verb");
  const Verb *verb = nullptr;
  for (const Verb &v : kVerbs) {
    if (el[0]->str == v.text) verb = &v;
  }
  if (verb == nullptr) return Bad("unknown verb " + Quote(el[0]->str));
  if (el.size() != verb->arity) {
    return Bad(std::string(verb->text) + " with " + std::to_string(el.size()) + " elements");
  }
  f.type = verb->type;
  f.kind = verb->kind;
  switch (verb->type) {
    case PushFrame::Type::kMessage: {
      for (size_t i = 1; i < el.size(); ++i) {
        if (!IsBulk(el[i]))
          return Bad(std::string(verb->text) + " element " + std::to_string(i) +
                     " is not a bulk string");
      }
      const size_t at = verb->kind == ChannelKind::kPattern ? 2 : 1;
      if (verb->kind == ChannelKind::kPattern) f.pattern = std::move(el[1]->str);
      f.name = std::move(el[at]->str);
      f.payload = std::move(el[at + 1]->str);
      return f;
    }
    case PushFrame::Type::kSubscribe:
    case PushFrame::Type::kUnsubscribe:
      // An UNSUBSCRIBE of nothing confirms with a nil name.
      if (!IsBulk(el[1]) && !(verb->type == PushFrame::Type::kUnsubscribe && el[1] != nullptr &&
                              el[1]->type == RespType::kNull)) {
        return Bad(std::string(verb->text) + " name is not a bulk string");
      }
      if (el[2] == nullptr || el[2]->type != RespType::kInteger || el[2]->integer < 0) {
        return Bad(std::string(verb->text) + " count is not a non-negative integer");
      }
      f.name = std::move(el[1]->str);
      f.count = el[2]->integer;
      return f;
    case PushFrame::Type::kPong:
      if (!IsBulk(el[1])) return Bad("pong with a non-string argument");
      return f;
    case PushFrame::Type::kError:
      break;
  }
  return Bad("unreachable");
}

std::map<uint16_t, std::vector<std::string>> GroupBySlot(const std::vector<std::string> &names) {
  std::map<uint16_t, std::vector<std::string>> out;
  for (const std::string &n : names) out[KeySlot(n.data(), n.size())].push_back(n);
  return out;
}

}  // namespace net
}  // namespace cloudroute
