// Internal to capi/: cr_client_options' hedged-read fields, checked and
// mapped to net::HedgeOptions (docs/architecture.md, "Hedged reads").
#pragma once

#include "api.hpp"
#include "cloudroute/net/hedge.hpp"

namespace cloudroute {
namespace capi {

// *out from the hedge_* fields of o; CR_EINVAL naming the field when one is
// out of range (only the fields the mode uses are checked: a caller that
// leaves hedging off may leave the others zeroed).
cr_status HedgeOptionsFrom(const cr_client_options &o, const char *fn, net::HedgeOptions *out);

}  // namespace capi
}  // namespace cloudroute
