// Internal to capi/: what the sections of the live client's commands
// (commands.cpp, scan.cpp, scripts.cpp) share.
#pragma once

#include "api.hpp"
#include "cloudroute/net/call_options.hpp"

namespace cloudroute {
namespace capi {

// opts (may be NULL) as the net layer's options.
cr_status ReadCallOptions(net::CallOptions *out, const cr_call_options *opts, const char *fn);

}  // namespace capi
}  // namespace cloudroute
