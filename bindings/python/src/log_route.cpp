// The live client's log events into Python's logging (logger "cloudroute").
// The C callback runs on the thread of the event — a caller's (which has
// released the GIL around the call) or the client's refresher — and takes the
// GIL for the logging call; ClientHandle frees clients without the GIL, so the
// refresher it joins can always get it.
#include "common.hpp"

namespace crpy {

namespace {

PyObject *g_logger = nullptr;  // logging.getLogger("cloudroute"), kept for the process

// logging's numbers for the C levels.
int PyLevel(cr_log_level l) {
  switch (l) {
    case CR_LOG_LEVEL_DEBUG:
      return 10;
    case CR_LOG_LEVEL_INFO:
      return 20;
    case CR_LOG_LEVEL_WARN:
      return 30;
    default:
      return 40;
  }
}

void ToLogging(cr_log_level level, const char *message, const cr_log_field *fields, size_t n,
               void *) {
  if (!Py_IsInitialized() || Finalizing()) return;
  py::gil_scoped_acquire gil;
  try {
    // "node marked down node=127.0.1.2:7002 failures=3": readable as is;
    // the fields also go to the record as `cloudroute` (a dict).
    std::string text = message;
    py::dict extra_fields;
    for (size_t i = 0; i < n; ++i) {
      text += std::string(" ") + fields[i].key + "=" + fields[i].value;
      extra_fields[py::str(fields[i].key)] = py::str(fields[i].value);
    }
    py::dict extra;
    extra["cloudroute"] = extra_fields;
    py::handle(g_logger).attr("log")(PyLevel(level), text, py::arg("extra") = extra);
  } catch (py::error_already_set &e) {
    e.discard_as_unraisable("cloudroute log callback");
  }
}

}  // namespace

void RouteLogsToLogging(cr_config *cfg) {
  if (g_logger == nullptr) {
    g_logger = py::module_::import("logging").attr("getLogger")("cloudroute").release().ptr();
  }
  // The logger's level when the client starts decides what the library sends.
  const int eff = py::handle(g_logger).attr("getEffectiveLevel")().cast<int>();
  const cr_log_level min = eff <= 10   ? CR_LOG_LEVEL_DEBUG
                           : eff <= 20 ? CR_LOG_LEVEL_INFO
                           : eff <= 30 ? CR_LOG_LEVEL_WARN
                                       : CR_LOG_LEVEL_ERROR;
  Check(cr_config_set_log_callback(cfg, min, &ToLogging, nullptr));
}

}  // namespace crpy
