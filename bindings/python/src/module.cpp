// cloudroute._native: the pybind11 extension over libcloudroute's C API
// (linked statically: the same cr_* functions as libcloudroute.so). The
// package cloudroute re-exports it with Pythonic conveniences.
#include "common.hpp"
#include "option_defaults.hpp"

PYBIND11_MODULE(_native, m) {
  m.doc() = "libcloudroute's C API for Python (private: use the cloudroute package).";
  crpy::InitErrors(m);
  crpy::InitProcess();
  crpy::InitRecords(m);
  crpy::InitKeyslot(m);
  crpy::InitTopology(m);
  crpy::InitConfig(m);
  crpy::InitRouter(m);
  crpy::InitRing(m);
  crpy::InitShardGroups(m);
  crpy::InitClient(m);
  crpy::InitSentinelClient(m);
  crpy::InitClientCommands(m);
  crpy::InitClientAsync(m);
  crpy::InitPubSub(m);
  crpy::InitPipeline(m);
  m.def("_option_defaults", &crpy::OptionDefaults,
        "What the linked library's *_options_init functions write: {C struct: {field: value}}\n"
        "(for the tests that hold every binding's defaults to cloudroute.h's).");
  crpy::InitShardedClient(m);
  m.attr("VERSION") = cr_version();              // the linked library
  m.attr("HEADER_VERSION") = CR_VERSION_STRING;  // the header compiled against
  m.attr("VERSION_NUMBER") = cr_version_number();
}
