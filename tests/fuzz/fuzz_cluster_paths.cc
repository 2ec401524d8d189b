// libFuzzer target: the two paths of the CLUSTER SLOTS and SHARDS parsers
// (the direct walk of the bytes, which hands what it does not accept to the
// general path, and the general path alone: frame, then walk) must agree on
// every input: the same refusal (code, contradiction flag, message) or the
// same topology. Each input goes through both parsers, with and without a
// default host; its length picks the limits (the defaults, or one cap set
// near what real replies use). Corpus: the seeds and regressions of
// cluster_slots and cluster_shards (tests/fuzz/run.sh).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/cluster_outcome.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char *>(data), size);
  cloudroute::RespLimits limits;
  switch (size % 8) {
    case 1:
      limits.max_elements = 14;  // a Redis 7 CLUSTER SHARDS node map's keys and values
      break;
    case 3:
      limits.max_bulk_len = 40;  // a node id
      break;
    case 5:
      limits.max_depth = 5;  // the direct walk's deepest value
      break;
    case 7:
      limits.max_total_bytes = size - 1;
      break;
    default:
      break;
  }
  for (const crtest::ClusterParser &p : crtest::kClusterParsers) {
    for (const char *host : {"", "10.9.8.7"}) {
      cloudroute::ClusterReplyOptions opts;
      opts.limits = limits;
      opts.default_host = host;
      const std::string framed = crtest::Outcome(p.framed(bytes, opts));
      const std::string direct = crtest::Outcome(p.direct(bytes, opts));
      if (direct != framed) {
        std::fprintf(stderr, "%s, default host '%s': the paths differ\nframed: %s\ndirect: %s\n",
                     p.name, host, framed.c_str(), direct.c_str());
        std::abort();
      }
    }
  }
  return 0;
}
