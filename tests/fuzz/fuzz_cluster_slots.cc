// libFuzzer target: the cluster_slots parser of the C API, then routing with the
// invariants of topology_check.hpp. Corpus: tests/fuzz/seeds/cluster_slots and
// tests/fuzz/regressions/cluster_slots (tests/fuzz/run.sh).
#include "topology_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  crfuzz::CheckTopology(data, size, crfuzz::Format::kClusterSlots);
  return 0;
}
