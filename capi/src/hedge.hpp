// Internal to capi/: the hedged-read fields of cr_client_options and
// cr_sentinel_options, checked and mapped to net::HedgeOptions
// (docs/architecture.md, "Hedged reads").
#pragma once

#include <string>

#include "api.hpp"
#include "cloudroute/net/hedge.hpp"

namespace cloudroute {
namespace capi {

// *out from the hedge_* fields of o; CR_EINVAL naming the field when one is
// out of range (only the fields the mode uses are checked: a caller that
// leaves hedging off may leave the others zeroed).
template <typename O>
cr_status HedgeOptionsFrom(const O &o, const char *fn, net::HedgeOptions *out) {
  if (cr_status s = EnumInRange(o.hedge_mode, CR_HEDGE_MODE_ADAPTIVE, fn, "hedge_mode"); s != CR_OK)
    return s;
  *out = net::HedgeOptions{};
  if (RawEnum(o.hedge_mode) == CR_HEDGE_MODE_OFF) return CR_OK;
  const std::string where = std::string(fn) + ": ";
  if (o.hedge_delay_ms == 0 || o.hedge_delay_ms > 60000)
    return Fail(CR_EINVAL, where + "hedge_delay_ms " + std::to_string(o.hedge_delay_ms) +
                               " is not in 1-60000");
  if (o.hedge_budget_percent == 0 || o.hedge_budget_percent > 100)
    return Fail(CR_EINVAL, where + "hedge_budget_percent " +
                               std::to_string(o.hedge_budget_percent) + " is not in 1-100");
  out->mode = net::HedgeMode::kFixed;
  out->delay_ms = o.hedge_delay_ms;
  out->budget_percent = o.hedge_budget_percent;
  if (RawEnum(o.hedge_mode) == CR_HEDGE_MODE_FIXED) return CR_OK;
  if (o.hedge_min_delay_ms > 60000)
    return Fail(CR_EINVAL, where + "hedge_min_delay_ms " + std::to_string(o.hedge_min_delay_ms) +
                               " is above 60000");
  // Written so that NaN fails too.
  if (!(o.hedge_percentile > 0.0 && o.hedge_percentile <= 100.0))
    return Fail(CR_EINVAL, where + "hedge_percentile " + std::to_string(o.hedge_percentile) +
                               " is not in (0, 100]");
  out->mode = net::HedgeMode::kAdaptive;
  out->min_delay_ms = o.hedge_min_delay_ms;
  out->percentile = o.hedge_percentile;
  return CR_OK;
}

}  // namespace capi
}  // namespace cloudroute
