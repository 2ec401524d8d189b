// C API: read selection (random, steady weighted round-robin, or load-aware).
#include "api.hpp"
#include "cloudroute/core/read_policy.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary

extern "C" {

cr_status cr_config_set_selection(cr_config *cfg, cr_selection selection) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_config_set_selection";
    if (cr_status s = NotNull(cfg, fn, "config"); s != CR_OK) return s;
    if (cr_status s = EnumInRange(selection, cloudroute::kSelectionCount - 1, fn, "selection");
        s != CR_OK)
      return s;
    cfg->cfg.selection = static_cast<cloudroute::Selection>(RawEnum(selection));
    return CR_OK;
  });
}

cr_status cr_selection_from_name(cr_selection *out, const char *name) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(out, "cr_selection_from_name", "out"); s != CR_OK) return s;
    if (cr_status s = NotNull(name, "cr_selection_from_name", "name"); s != CR_OK) return s;
    cloudroute::Selection sel;
    if (!cloudroute::SelectionFromName(name, &sel)) {
      return Fail(CR_EINVAL, std::string("unknown selection '") + name +
                                 "' (want random, round-robin or least-loaded)");
    }
    *out = static_cast<cr_selection>(sel);
    return CR_OK;
  });
}

const char *cr_selection_name(cr_selection selection) {
  const int s = RawEnum(selection);
  if (s < 0 || s >= cloudroute::kSelectionCount) return "?";
  return cloudroute::SelectionName(static_cast<cloudroute::Selection>(s));
}

}  // extern "C"
