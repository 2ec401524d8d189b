// Jump consistent hash (Lamping & Veach, "A Fast, Minimal Memory, Consistent
// Hash Algorithm", 2014): a 64-bit key to one of n buckets with no state at
// all; growing n to n + 1 moves 1/(n + 1) of the keys, all to the new bucket.
// Buckets can only be added or removed at the end.
//
// Same results as the paper's C++ and Guava's Hashing.consistentHash(long, int).
//
// Thread-safety: pure function.
#pragma once

#include <cstdint>

namespace cloudroute {

// REQUIRES: num_buckets >= 1.
int32_t JumpConsistentHash(uint64_t key, int32_t num_buckets);

}  // namespace cloudroute
