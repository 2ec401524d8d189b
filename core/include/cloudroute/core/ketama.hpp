// Ketama as libmemcached (MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED) and twemproxy
// (distribution: ketama, hash: md5) build it, so a key lands on the server
// they would pick.
//
// Each server has an identity string S — twemproxy's server name, else
// "host:port", or just "host" when the port is 11211 — and
//   points(S) = floor(w / W * 160 / 4 * N) * 4     (single-precision float, as C computes it)
// for weight w, total weight W and N servers. Point group k (k = 0,1,...)
// hashes "S-k" with MD5 and yields four points: digest bytes 0-3, 4-7, 8-11
// and 12-15, each read little-endian. A key hashes to MD5 bytes 0-3 of the
// key; its server owns the first point >= that value, wrapping to the first.
// Equal points keep the server listed first (glibc's merge-sort qsort is
// stable).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cloudroute {

constexpr uint32_t kKetamaPointsPerServer = 160;
constexpr uint32_t kKetamaPointsPerHash = 4;
// twemproxy formats "S-k" into an 86-byte buffer (KETAMA_MAX_HOSTLEN): a
// longer point name would be cut there, so such names are refused.
constexpr size_t kKetamaMaxPointName = 85;

// Points of one server. REQUIRES: 0 < weight <= total_weight, servers > 0.
uint32_t KetamaPoints(uint64_t weight, uint64_t total_weight, uint32_t servers);

}  // namespace cloudroute
