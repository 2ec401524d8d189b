// A subscription (cr_subscription) read on a thread of its own, every
// message and event kept, for the pub/sub tests of tests/net and
// tests/integration.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cloudroute.h"
#include "common/wait_until.hpp"

namespace crtest {

struct SubscriptionItem {
  cr_message_type type;
  cr_channel_kind kind;
  std::string channel, pattern, payload, node, reason;
  std::chrono::steady_clock::time_point at;  // when the reader took it
};

class SubscriptionReader {
 public:
  using Item = SubscriptionItem;

  explicit SubscriptionReader(cr_subscription *s) : s_(s), thread_([this] { Run(); }) {}
  ~SubscriptionReader() { Stop(); }
  SubscriptionReader(const SubscriptionReader &) = delete;
  SubscriptionReader &operator=(const SubscriptionReader &) = delete;

  void Stop() {
    stop_ = true;
    if (thread_.joinable()) {
      cr_subscription_wake(s_);
      thread_.join();
    }
  }
  std::vector<Item> Items() {
    std::lock_guard<std::mutex> lock(mu_);
    return items_;
  }
  size_t Count() {
    std::lock_guard<std::mutex> lock(mu_);
    return items_.size();
  }
  // The index of the first item at or after `after` that matches pred,
  // waiting for it within the timeout; -1 if none came.
  template <typename P>
  int AwaitIndex(P pred, std::chrono::milliseconds timeout, size_t after = 0) {
    int at = -1;
    WaitUntil(
        [&] {
          std::lock_guard<std::mutex> lock(mu_);
          for (size_t k = after; k < items_.size(); ++k) {
            if (pred(items_[k])) {
              at = static_cast<int>(k);
              return true;
            }
          }
          return false;
        },
        timeout, std::chrono::milliseconds(5));
    return at;
  }
  // As AwaitIndex; copies the item to *out.
  template <typename P>
  bool Await(P pred, std::chrono::milliseconds timeout, Item *out = nullptr, size_t after = 0) {
    const int at = AwaitIndex(pred, timeout, after);
    if (at < 0) return false;
    if (out != nullptr) {
      std::lock_guard<std::mutex> lock(mu_);
      *out = items_[static_cast<size_t>(at)];
    }
    return true;
  }

 private:
  void Run() {
    while (!stop_) {
      cr_message *m = nullptr;
      if (cr_subscription_next(&m, s_, 200) != CR_OK) ADD_FAILURE() << cr_last_error();
      if (m == nullptr) continue;
      Item it;
      size_t len = 0;
      it.type = cr_message_get_type(m);
      it.kind = cr_message_get_kind(m);
      const char *p = cr_message_get_channel(m, &len);
      it.channel.assign(p, len);
      if ((p = cr_message_get_pattern(m, &len)) != nullptr) it.pattern.assign(p, len);
      if ((p = cr_message_get_payload(m, &len)) != nullptr) it.payload.assign(p, len);
      it.node = cr_message_get_node(m);
      it.reason = cr_message_get_reason(m);
      it.at = std::chrono::steady_clock::now();
      cr_message_free(m);
      std::lock_guard<std::mutex> lock(mu_);
      items_.push_back(std::move(it));
    }
  }
  cr_subscription *s_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<Item> items_;
  std::thread thread_;
};

}  // namespace crtest
