// Per-thread interrupt checks (see interrupt.hpp).
#include "cloudroute/net/interrupt.hpp"

namespace cloudroute {
namespace net {

namespace {
thread_local InterruptFn tl_fn = nullptr;
thread_local void *tl_payload = nullptr;
}  // namespace

void SetInterruptCheck(InterruptFn fn, void *payload) {
  tl_fn = fn;
  tl_payload = fn != nullptr ? payload : nullptr;
}

bool HasInterruptCheck() { return tl_fn != nullptr; }

bool InterruptAsked() { return tl_fn != nullptr && tl_fn(tl_payload) != 0; }

}  // namespace net
}  // namespace cloudroute
