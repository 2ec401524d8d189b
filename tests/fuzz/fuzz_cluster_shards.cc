// libFuzzer target: the cluster_shards parser of the C API, then routing with the
// invariants of topology_check.hpp. Corpus: tests/fuzz/seeds/cluster_shards and
// tests/fuzz/regressions/cluster_shards (tests/fuzz/run.sh).
#include "topology_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  crfuzz::CheckTopology(data, size, crfuzz::Format::kClusterShards);
  return 0;
}
