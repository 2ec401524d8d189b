#include "cloudroute/core/random_streams.hpp"

namespace cloudroute {

RandomStreams::RandomStreams(uint64_t seed) : shared_(SplitMix64Mix(seed)) {
  for (int i = 0; i < kThreadSlots; ++i) {
    streams_[i].state = SplitMix64Mix(seed ^ (static_cast<uint64_t>(i) + 1) * kGoldenGamma);
  }
}

}  // namespace cloudroute
