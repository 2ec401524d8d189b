// Status text, the thread-local last error, and the version.
#include "api.hpp"

namespace cloudroute {
namespace capi {

namespace {
thread_local std::string t_last_error;
}

const char *LastError() { return t_last_error.c_str(); }

cr_status Fail(cr_status status, const std::string &msg) {
  try {
    t_last_error = msg;
  } catch (...) {
    // Out of memory while recording an error: keep the status, drop the text.
  }
  return status;
}

}  // namespace capi
}  // namespace cloudroute

extern "C" {

const char *cr_status_str(cr_status status) {
  switch (cloudroute::capi::RawEnum(status)) {
    case CR_OK:
      return "CR_OK: success";
    case CR_EINVAL:
      return "CR_EINVAL: invalid argument";
    case CR_ENOMEM:
      return "CR_ENOMEM: out of memory";
    case CR_EBUFS:
      return "CR_EBUFS: buffer too small";
    case CR_EPARSE:
      return "CR_EPARSE: malformed input";
    case CR_ELIMIT:
      return "CR_ELIMIT: input exceeds a safety limit";
    case CR_EINCOMPLETE:
      return "CR_EINCOMPLETE: input ends early";
    case CR_ENOTOPOLOGY:
      return "CR_ENOTOPOLOGY: no topology installed";
    case CR_ESLOT_UNCOVERED:
      return "CR_ESLOT_UNCOVERED: slot served by no shard";
    case CR_EUNAVAILABLE:
      return "CR_EUNAVAILABLE: no reachable node";
    case CR_ENOTFOUND:
      return "CR_ENOTFOUND: not found";
    case CR_EINTERNAL:
      return "CR_EINTERNAL: internal error";
    case CR_ECONN:
      return "CR_ECONN: connection failed";
    case CR_ETIMEOUT:
      return "CR_ETIMEOUT: timed out";
    case CR_EREDIS:
      return "CR_EREDIS: the server answered with an error";
    case CR_EVERSION:
      return "CR_EVERSION: a struct from a newer header than this library";
  }
  return "CR_?: unknown status";
}

const char *cr_last_error(void) { return cloudroute::capi::LastError(); }

const char *cr_version(void) { return CR_VERSION_STRING; }
uint32_t cr_version_number(void) { return CR_VERSION_NUMBER; }

}  // extern "C"
