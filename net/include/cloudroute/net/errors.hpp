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

}  // namespace net
}  // namespace cloudroute
