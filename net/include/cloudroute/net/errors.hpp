// Short names in the net namespace for the live-cluster codes of core's Code
// (CR_ECONN, CR_ETIMEOUT, CR_EREDIS in the C API).
//
// Thread-safety: constants.
#pragma once

#include "cloudroute/core/status.hpp"

namespace cloudroute {
namespace net {

constexpr Code kConnError = Code::kConnError;
constexpr Code kTimeout = Code::kTimeout;
constexpr Code kServerError = Code::kServerError;

// The failure of a write whose connection failed after the command was
// written (or while it was): it may have been applied, and it is not
// re-sent — the caller learns both.
inline Status MaySentWrite(const Status &s) {
  return Error(s.code(),
               s.message() + "; the command may have reached the server and was not re-sent");
}

}  // namespace net
}  // namespace cloudroute
