// C API: publish / subscribe of the live cluster client (net/subscriber).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api.hpp"
#include "cloudroute/net/deadline.hpp"
#include "handles.hpp"
#include "live.hpp"

using namespace cloudroute;
using namespace cloudroute::capi;

namespace {

static_assert(static_cast<int>(net::ChannelKind::kChannel) == CR_CHANNEL_KIND_CHANNEL &&
                  static_cast<int>(net::ChannelKind::kPattern) == CR_CHANNEL_KIND_PATTERN &&
                  static_cast<int>(net::ChannelKind::kShard) == CR_CHANNEL_KIND_SHARD,
              "net::ChannelKind mirrors cr_channel_kind");
static_assert(
    static_cast<int>(net::PubSubItem::Type::kMessage) == CR_MESSAGE_TYPE_MESSAGE &&
        static_cast<int>(net::PubSubItem::Type::kSubscribed) == CR_MESSAGE_TYPE_SUBSCRIBED &&
        static_cast<int>(net::PubSubItem::Type::kResubscribed) == CR_MESSAGE_TYPE_RESUBSCRIBED &&
        static_cast<int>(net::PubSubItem::Type::kMoving) == CR_MESSAGE_TYPE_MOVING &&
        static_cast<int>(net::PubSubItem::Type::kUnsubscribed) == CR_MESSAGE_TYPE_UNSUBSCRIBED,
    "net::PubSubItem::Type mirrors cr_message_type");

// The checks of cr_subscription_add / _remove: the names as strings.
cr_status Names(std::vector<std::string> *out, const cr_subscription *s,
                const cr_channel_kind &kind, size_t n, const void *const *names, const size_t *lens,
                const char *fn) {
  if (cr_status st = NotNull(s, fn, "subscription"); st != CR_OK) return st;
  if (cr_status st = EnumInRange(kind, CR_CHANNEL_KIND_SHARD, fn, "kind"); st != CR_OK) return st;
  if (n == 0) return Fail(CR_EINVAL, std::string(fn) + ": no names (n is 0)");
  if (cr_status st = NotNull(names, fn, "names"); st != CR_OK) return st;
  if (cr_status st = NotNull(lens, fn, "lens"); st != CR_OK) return st;
  if (cr_status st = BytesArray(names, lens, n, fn, "names"); st != CR_OK) return st;
  out->reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (lens[i] == 0) {
      return Fail(CR_EINVAL, std::string(fn) + ": names[" + std::to_string(i) + "] is empty");
    }
    out->push_back(Str(names[i], lens[i]));
  }
  return CR_OK;
}

cr_status Publish(int64_t *out_receivers, cr_client *c, const void *channel, size_t channel_len,
                  const void *message, size_t message_len, const char *verb, const char *fn) {
  if (out_receivers != nullptr) *out_receivers = 0;
  if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
  if (cr_status s = Bytes(channel, channel_len, fn, "channel"); s != CR_OK) return s;
  if (cr_status s = Bytes(message, message_len, fn, "message"); s != CR_OK) return s;
  const std::string ch = Str(channel, channel_len);
  // Routed as a write on the channel: the master of its slot (SPUBLISH
  // needs exactly that; PUBLISH is forwarded by any node).
  Result<net::ReplyPtr> r =
      c->client->Execute(net::Access::kWrite, ch, {verb, ch, Str(message, message_len)});
  if (!r.ok()) return Prefixed(r.status(), fn);
  if ((*r)->type != RespType::kInteger) {
    return Fail(CR_EPARSE, std::string(fn) + ": " + verb + " answered with no integer");
  }
  if (out_receivers != nullptr) *out_receivers = (*r)->integer;
  return CR_OK;
}

}  // namespace

extern "C" {

cr_status cr_client_subscribe(cr_subscription **out, cr_client *c) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_client_subscribe";
    if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
    *out = nullptr;
    if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
    auto sub = c->client->Subscribe();
    if (!sub.ok()) return Prefixed(sub.status(), fn);
    auto h = std::make_unique<cr_subscription>();
    h->sub = std::move(*sub);
    *out = h.release();
    return CR_OK;
  });
}

cr_status cr_subscription_add(cr_subscription *s, cr_channel_kind kind, size_t n,
                              const void *const *names, const size_t *lens) {
  return Guard([&]() -> cr_status {
    std::vector<std::string> list;
    if (cr_status st = Names(&list, s, kind, n, names, lens, "cr_subscription_add"); st != CR_OK) {
      return st;
    }
    s->sub->Add(static_cast<net::ChannelKind>(RawEnum(kind)), std::move(list));
    return CR_OK;
  });
}

cr_status cr_subscription_remove(cr_subscription *s, cr_channel_kind kind, size_t n,
                                 const void *const *names, const size_t *lens) {
  return Guard([&]() -> cr_status {
    std::vector<std::string> list;
    if (cr_status st = Names(&list, s, kind, n, names, lens, "cr_subscription_remove");
        st != CR_OK) {
      return st;
    }
    s->sub->Remove(static_cast<net::ChannelKind>(RawEnum(kind)), std::move(list));
    return CR_OK;
  });
}

cr_status cr_subscription_next(cr_message **out, cr_subscription *s, uint32_t timeout_ms) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_subscription_next";
    if (cr_status st = NotNull(out, fn, "out"); st != CR_OK) return st;
    *out = nullptr;
    if (cr_status st = NotNull(s, fn, "subscription"); st != CR_OK) return st;
    const int64_t deadline = timeout_ms == UINT32_MAX ? INT64_MAX
                             : timeout_ms == 0        ? 0
                                                      : net::DeadlineAfter(timeout_ms);
    auto m = std::make_unique<cr_message>();
    if (s->sub->queue().Pop(deadline, &m->item)) *out = m.release();
    return CR_OK;
  });
}

cr_status cr_subscription_wake(cr_subscription *s) {
  return Guard([&]() -> cr_status {
    if (cr_status st = NotNull(s, "cr_subscription_wake", "subscription"); st != CR_OK) return st;
    s->sub->queue().Wake();
    return CR_OK;
  });
}

void cr_subscription_free(cr_subscription *s) { delete s; }

cr_message_type cr_message_get_type(const cr_message *m) {
  return m == nullptr ? CR_MESSAGE_TYPE_MESSAGE : static_cast<cr_message_type>(m->item.type);
}

cr_channel_kind cr_message_get_kind(const cr_message *m) {
  return m == nullptr ? CR_CHANNEL_KIND_CHANNEL : static_cast<cr_channel_kind>(m->item.kind);
}

const char *cr_message_get_channel(const cr_message *m, size_t *len) {
  if (len != nullptr) *len = m == nullptr ? 0 : m->item.channel.size();
  return m == nullptr ? nullptr : m->item.channel.c_str();
}

const char *cr_message_get_pattern(const cr_message *m, size_t *len) {
  const bool has = m != nullptr && m->item.type == net::PubSubItem::Type::kMessage &&
                   m->item.kind == net::ChannelKind::kPattern;
  if (len != nullptr) *len = has ? m->item.pattern.size() : 0;
  return has ? m->item.pattern.c_str() : nullptr;
}

const char *cr_message_get_payload(const cr_message *m, size_t *len) {
  const bool has = m != nullptr && m->item.type == net::PubSubItem::Type::kMessage;
  if (len != nullptr) *len = has ? m->item.payload.size() : 0;
  return has ? m->item.payload.c_str() : nullptr;
}

const char *cr_message_get_node(const cr_message *m) {
  return m == nullptr ? nullptr : m->item.node.c_str();
}

const char *cr_message_get_reason(const cr_message *m) {
  return m == nullptr ? nullptr : m->item.reason.c_str();
}

void cr_message_free(cr_message *m) { delete m; }

cr_status cr_client_publish(int64_t *out_receivers, cr_client *c, const void *channel,
                            size_t channel_len, const void *message, size_t message_len) {
  return Guard([&] {
    return Publish(out_receivers, c, channel, channel_len, message, message_len, "PUBLISH",
                   "cr_client_publish");
  });
}

cr_status cr_client_spublish(int64_t *out_receivers, cr_client *c, const void *channel,
                             size_t channel_len, const void *message, size_t message_len) {
  return Guard([&] {
    return Publish(out_receivers, c, channel, channel_len, message, message_len, "SPUBLISH",
                   "cr_client_spublish");
  });
}

}  // extern "C"
