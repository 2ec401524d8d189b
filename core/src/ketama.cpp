#include "cloudroute/core/ketama.hpp"

#include <cmath>

namespace cloudroute {

uint32_t KetamaPoints(uint64_t weight, uint64_t total_weight, uint32_t servers) {
  // Step by step in float, as libmemcached and twemproxy evaluate
  //   floorf((float)(pct * 160 / 4 * (float)servers + 0.0000000001)) * 4
  // on x86-64 and ARM64 (FLT_EVAL_METHOD 0, no excess precision). The result
  // is often one group short of the ideal (39.99999 -> 39); that quirk is
  // part of where keys land, so it is kept.
  const float pct = static_cast<float>(weight) / static_cast<float>(total_weight);
  float x = pct * static_cast<float>(kKetamaPointsPerServer);
  x = x / 4.0f;
  x = x * static_cast<float>(servers);
  const float groups = std::floor(static_cast<float>(static_cast<double>(x) + 0.0000000001));
  return static_cast<uint32_t>(groups) * kKetamaPointsPerHash;
}

}  // namespace cloudroute
