// PubSubQueue: what a subscription hands its reader — messages and events in
// arrival order — with a blocking Pop bounded by a deadline, a one-shot Wake
// and a Close that every waiter leaves before it returns.
//
// The queue counts the bytes it holds; Full() tells the subscriber thread
// to stop reading its sockets — asked before each frame, so the queue
// passes its limit by one item at most — until a Pop brings it under the limit again
// (the thread is then woken through on_drained), so a slow reader costs the
// servers' output buffers, never this process's memory.
//
// Thread-safety: safe for concurrent use. Close() may run while other
// threads wait in Pop: they return false, and Close returns only once every
// one of them has left (the owner may then destroy the queue).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

#include "cloudroute/net/pubsub_frame.hpp"

namespace cloudroute {
namespace net {

struct PubSubItem {
  enum class Type : uint8_t { kMessage, kSubscribed, kResubscribed, kMoving, kUnsubscribed };
  Type type = Type::kMessage;
  ChannelKind kind = ChannelKind::kChannel;
  std::string channel;  // a message's channel; an event's name
  std::string pattern;  // a pattern message's pattern
  std::string payload;  // a message's payload
  std::string node;     // "host:port"
  std::string reason;   // a kMoving event's
  size_t bytes() const {
    return sizeof(PubSubItem) + channel.size() + pattern.size() + payload.size() + node.size() +
           reason.size();
  }
};

class PubSubQueue {
 public:
  static constexpr size_t kDefaultMaxBytes = size_t{64} << 20;
  explicit PubSubQueue(size_t max_bytes = kDefaultMaxBytes) : max_bytes_(max_bytes) {}
  PubSubQueue(const PubSubQueue &) = delete;
  PubSubQueue &operator=(const PubSubQueue &) = delete;

  // Called (outside the lock) when a Pop brought a full queue under its
  // limit. Set before the first Push.
  void set_on_drained(std::function<void()> fn) { on_drained_ = std::move(fn); }

  // Dropped once closed.
  void Push(PubSubItem item);
  bool Full() const;
  // Waits until deadline_ns (SteadyNowNs clock; 0: not at all; INT64_MAX:
  // no bound) for an item; false when none came, on Wake and once closed.
  bool Pop(int64_t deadline_ns, PubSubItem *out);
  // One Pop returns false at once: the one waiting now, else the next.
  void Wake();
  // Wakes every waiter, waits until each has left, drops the items.
  void Close();

 private:
  const size_t max_bytes_;
  std::function<void()> on_drained_;
  mutable std::mutex mu_;
  std::condition_variable cv_;       // items, wakes, close
  std::condition_variable left_cv_;  // a waiter left (for Close)
  std::deque<PubSubItem> items_;
  size_t bytes_ = 0;
  bool wake_ = false;
  bool closed_ = false;
  int waiting_ = 0;
};

}  // namespace net
}  // namespace cloudroute
