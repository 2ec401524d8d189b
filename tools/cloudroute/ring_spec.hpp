// Internal to the CLI: a client-side sharding ring described by the options
// of `cloudroute ring` (--algo, --naming, --hash, --shards, --key-tags),
// shared by `ring` and `sentinel`.
#pragma once

#include <string>

#include "cloudroute.h"

namespace cli {

struct RingSpec {
  std::string algo;               // murmur|md5 (Jedis), ketama, jump, modulo
  std::string naming = "jedis3";  // jedis3|jedis2, for murmur and md5
  std::string hash;               // murmur|md5, for jump and modulo
  std::string shards;             // NAME=WEIGHT,… (=WEIGHT unnamed), or N for jump/modulo
  bool key_tags = false;
};

// A built ring (free with cr_ring_free). Returns 0, or an exit code after
// printing what is wrong with the spec.
int BuildRing(const RingSpec &spec, cr_ring **out);

}  // namespace cli
