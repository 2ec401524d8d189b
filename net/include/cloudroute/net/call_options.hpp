// CallOptions: what one call may change about how its command is run — a
// call-level timeout (instead of the node's tier timeout: for BLPOP, XREAD
// BLOCK, WAIT, a large SCAN) and, for EVALSHA, the script body to load when
// a node answers NOSCRIPT.
//
// Blocking commands: a command that waits on the server by design (BLPOP and
// the other B* list and sorted-set pops, XREAD / XREADGROUP with BLOCK,
// WAIT, WAITAOF) gets, without a call-level timeout, its own wait on top of
// the tier timeout; and its deadline passing is never counted as a failure
// of the node (the node was waiting, as asked), so no breaker opens and no
// other candidate is tried. The same holds for any command run with a
// call-level timeout: the caller chose the deadline.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cloudroute/net/command_rules.hpp"
#include "cloudroute/net/connection.hpp"

namespace cloudroute {
namespace net {

struct CallOptions {
  uint32_t timeout_ms = 0;              // 0: the tier's timeout
  const std::string *script = nullptr;  // EVALSHA: the body SCRIPT LOAD sends on NOSCRIPT
};

// How long the command asks the server to wait, in ms: -1 when it is not a
// blocking command, 0 when it waits without a limit.
int64_t BlockingWaitMs(const Args &args);
// Whether views of a command's arguments name a blocking command (as above).
bool IsBlocking(const std::vector<std::string_view> &args);

// The deadline, in ms from the send, for a command sent to a node whose tier
// timeout is tier_ms: the call's timeout when it set one; else the tier's,
// plus the command's own wait when it blocks for a bounded time.
uint32_t CommandTimeoutMs(const Args &args, const CallOptions &call, uint32_t tier_ms);

// Whether the deadline passing while waiting for this command's reply says
// nothing about the node's health (see above).
inline bool TimeoutIsNotAFailure(const Args &args, const CallOptions &call) {
  return call.timeout_ms != 0 || BlockingWaitMs(args) >= 0;
}

}  // namespace net
}  // namespace cloudroute
