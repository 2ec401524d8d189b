// Per-call options and blocking commands (see call_options.hpp).
#include "cloudroute/net/call_options.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace cloudroute {
namespace net {

namespace {

// A timeout argument in seconds (BLPOP accepts decimals) or milliseconds, as
// ms; 0 (wait forever) for a value that does not parse: the server refuses
// it, and until it does nothing bounds the wait.
int64_t WaitArg(std::string_view arg, double scale) {
  const std::string text(arg);  // strtod wants the terminating NUL
  char *end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(v) || v <= 0) return 0;
  return static_cast<int64_t>(std::min(std::ceil(v * scale), 1e15));
}

// XREAD / XREADGROUP: BLOCK ms among the options before STREAMS.
template <typename Seq>
int64_t StreamBlockMs(const Seq &args) {
  for (size_t i = 1; i + 1 < args.size(); ++i) {
    if (ArgIs(args[i], "STREAMS")) break;
    if (ArgIs(args[i], "BLOCK")) return WaitArg(args[i + 1], 1);
  }
  return -1;
}

// BlockingWaitMs over Args or views of a command's arguments.
template <typename Seq>
int64_t WaitMsOf(const Seq &args) {
  if (args.size() < 2) return -1;
  const std::string_view cmd = args[0];
  if (ArgIs(cmd, "BLPOP") || ArgIs(cmd, "BRPOP") || ArgIs(cmd, "BZPOPMIN") ||
      ArgIs(cmd, "BZPOPMAX") || ArgIs(cmd, "BRPOPLPUSH") || ArgIs(cmd, "BLMOVE")) {
    return WaitArg(args.back(), 1000);
  }
  if (ArgIs(cmd, "BLMPOP") || ArgIs(cmd, "BZMPOP")) return WaitArg(args[1], 1000);
  if (ArgIs(cmd, "XREAD") || ArgIs(cmd, "XREADGROUP")) return StreamBlockMs(args);
  if (ArgIs(cmd, "WAIT") && args.size() >= 3) return WaitArg(args[2], 1);
  if (ArgIs(cmd, "WAITAOF") && args.size() >= 4) return WaitArg(args[3], 1);
  return -1;
}

}  // namespace

int64_t BlockingWaitMs(const Args &args) { return WaitMsOf(args); }

bool IsBlocking(const std::vector<std::string_view> &args) { return WaitMsOf(args) >= 0; }

uint32_t CommandTimeoutMs(const Args &args, const CallOptions &call, uint32_t tier_ms) {
  if (call.timeout_ms != 0) return call.timeout_ms;
  const int64_t wait = BlockingWaitMs(args);
  if (wait <= 0) return tier_ms;
  return static_cast<uint32_t>(std::min<int64_t>(wait + tier_ms, UINT32_MAX));
}

}  // namespace net
}  // namespace cloudroute
