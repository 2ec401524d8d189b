// The queue of a subscription (see pubsub_queue.hpp).
#include "cloudroute/net/pubsub_queue.hpp"

#include <chrono>
#include <utility>

#include "cloudroute/net/deadline.hpp"

namespace cloudroute {
namespace net {

void PubSubQueue::Push(PubSubItem item) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    bytes_ += item.bytes();
    items_.push_back(std::move(item));
  }
  cv_.notify_one();
}

bool PubSubQueue::Full() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_ >= max_bytes_;
}

bool PubSubQueue::Pop(int64_t deadline_ns, PubSubItem *out) {
  bool drained = false;
  {
    std::unique_lock<std::mutex> lock(mu_);
    ++waiting_;
    for (;;) {
      if (closed_) break;
      if (wake_) {
        wake_ = false;
        break;
      }
      if (!items_.empty()) {
        const bool was_full = bytes_ >= max_bytes_;
        *out = std::move(items_.front());
        items_.pop_front();
        bytes_ -= out->bytes();
        drained = was_full && bytes_ < max_bytes_;
        --waiting_;
        lock.unlock();
        if (drained && on_drained_) on_drained_();
        return true;
      }
      const int64_t now = SteadyNowNs();
      if (deadline_ns != INT64_MAX && now >= deadline_ns) break;
      if (deadline_ns == INT64_MAX) {
        cv_.wait(lock);
      } else {
        cv_.wait_for(lock, std::chrono::nanoseconds(deadline_ns - now));
      }
    }
    --waiting_;
    if (closed_) left_cv_.notify_all();
  }
  return false;
}

void PubSubQueue::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = true;
  }
  cv_.notify_all();
}

void PubSubQueue::Close() {
  std::unique_lock<std::mutex> lock(mu_);
  closed_ = true;
  cv_.notify_all();
  left_cv_.wait(lock, [this] { return waiting_ == 0; });
  items_.clear();
  bytes_ = 0;
}

}  // namespace net
}  // namespace cloudroute
