// EventLog: what the live client tells an operator — a node marked down or
// up, a failover seen, a refresh started, failed or done, MOVED/ASK, a read
// that fell back to a farther tier — as a level, a message and structured
// fields (node, slot, tier, counts) handed to the caller's sink.
//
// Silent unless a sink is set; events below the sink's level cost one
// comparison (callers test Enabled() before building a message). Events that
// can happen per request go through EmitLimited: at most one per kind and
// node a second, the next one carrying how many were left out. No event
// carries a password: messages are built from addresses, slots, counts and
// the library's own error texts, which never include one.
//
// Thread-safety: Emit from any thread; the sink is called on the emitting
// thread (a caller's, or the client's refresher thread), and may be called
// concurrently. While the sink runs, InSinkOnThisThread() is true on that
// thread: the client asks it to tell a call made from inside a handler (a
// free, a refresh) that would otherwise wait for its own thread.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cloudroute/core/topology.hpp"

namespace cloudroute {
namespace net {

enum class LogLevel : uint8_t { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };
constexpr int kLogLevelCount = 4;
const char *LogLevelName(LogLevel l);  // "debug", "info", "warn", "error"

using LogFields = std::vector<std::pair<std::string, std::string>>;

struct LogSink {
  std::function<void(LogLevel, const std::string &message, const LogFields &fields)> fn;
  LogLevel min_level = LogLevel::kInfo;
};

class EventLog {
 public:
  explicit EventLog(LogSink sink) : sink_(std::move(sink)) {}
  EventLog(const EventLog &) = delete;
  EventLog &operator=(const EventLog &) = delete;

  bool Enabled(LogLevel l) const { return sink_.fn && l >= sink_.min_level; }
  void Emit(LogLevel l, const std::string &message, const LogFields &fields) const;
  // Emit, at most once a second per `key` (kind and node); the event after a
  // quiet spell gets a "suppressed" field with the number left out.
  void EmitLimited(LogLevel l, const std::string &key, const std::string &message,
                   LogFields fields);
  // Whether this thread is inside this log's sink now (the innermost sink,
  // when handlers of several clients nest).
  bool InSinkOnThisThread() const;

 private:
  void Call(LogLevel l, const std::string &message, const LogFields &fields) const;

  struct Window {
    int64_t start_ns = 0;
    uint64_t suppressed = 0;
  };
  const LogSink sink_;
  std::mutex mu_;  // guards windows_
  std::unordered_map<std::string, Window> windows_;
};

// A failover seen between two topologies: for each shard of `now` whose
// master was a replica of the same slots' shard in `before`, one warning
// with the slot range's first slot and both masters.
void LogFailovers(EventLog &log, const Topology &before, const Topology &now);

}  // namespace net
}  // namespace cloudroute
