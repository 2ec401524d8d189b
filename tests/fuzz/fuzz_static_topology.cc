// libFuzzer target: the static_topology parser of the C API, then routing with the
// invariants of topology_check.hpp. Corpus: tests/fuzz/seeds/static_topology and
// tests/fuzz/regressions/static_topology (tests/fuzz/run.sh).
#include "topology_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  crfuzz::CheckTopology(data, size, crfuzz::Format::kStatic);
  return 0;
}
