// The live client's log events (see event_log.hpp).
#include "cloudroute/net/event_log.hpp"

#include "cloudroute/core/health.hpp"

namespace cloudroute {
namespace net {

namespace {
constexpr int64_t kWindowNs = 1000000000;  // EmitLimited: one event a second per key
constexpr const char *kNames[kLogLevelCount] = {"debug", "info", "warn", "error"};

// The EventLog whose sink this thread runs now (nullptr: none).
thread_local const EventLog *tl_in_sink = nullptr;

// Marks the thread as inside log's sink for its lifetime, restoring the
// outer mark (a handler that makes another client log) after.
class InSink {
 public:
  explicit InSink(const EventLog *log) : outer_(tl_in_sink) { tl_in_sink = log; }
  ~InSink() { tl_in_sink = outer_; }
  InSink(const InSink &) = delete;
  InSink &operator=(const InSink &) = delete;

 private:
  const EventLog *const outer_;
};
}  // namespace

const char *LogLevelName(LogLevel l) {
  const int i = static_cast<int>(l);
  return i >= 0 && i < kLogLevelCount ? kNames[i] : "?";
}

void EventLog::Call(LogLevel l, const std::string &message, const LogFields &fields) const {
  const InSink mark(this);
  sink_.fn(l, message, fields);
}

bool EventLog::InSinkOnThisThread() const { return tl_in_sink == this; }

void EventLog::Emit(LogLevel l, const std::string &message, const LogFields &fields) const {
  if (Enabled(l)) Call(l, message, fields);
}

void EventLog::EmitLimited(LogLevel l, const std::string &key, const std::string &message,
                           LogFields fields) {
  if (!Enabled(l)) return;
  const int64_t now = SteadyNowNs();
  uint64_t suppressed = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Window &w = windows_[key];
    if (w.start_ns != 0 && now - w.start_ns < kWindowNs) {
      ++w.suppressed;
      return;
    }
    suppressed = w.suppressed;
    w = Window{now, 0};
  }
  if (suppressed != 0) fields.emplace_back("suppressed", std::to_string(suppressed));
  Call(l, message, fields);
}

void LogFailovers(EventLog &log, const Topology &before, const Topology &now) {
  for (const TopoShard &sh : now.shards) {
    if (sh.master == kNoNode || sh.ranges.empty()) continue;
    const uint16_t slot = sh.ranges.front().start;
    const uint16_t old_shard = before.ShardOfSlot(slot);
    if (old_shard == kNoShard) continue;
    const TopoShard &old = before.shards[old_shard];
    if (old.master == kNoNode) continue;
    const std::string was = before.nodes[old.master].address();
    const std::string is = now.nodes[sh.master].address();
    if (was == is) continue;
    bool promoted = false;  // a replica of the same shard: a failover, not a resharding
    for (uint32_t r : old.replicas) promoted |= before.nodes[r].address() == is;
    if (!promoted) continue;
    log.Emit(LogLevel::kWarn, "failover seen",
             {{"slot", std::to_string(slot)}, {"old_master", was}, {"node", is}});
  }
}

}  // namespace net
}  // namespace cloudroute
