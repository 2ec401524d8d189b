// Shared fixtures of the benchmarks: key sets, the classic table CRC16
// baseline, generated CLUSTER SLOTS replies and the routing configuration.
//
// Thread-safety: the generators are pure; fixtures are built once, before
// any benchmark thread reads them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "cloudroute/core/cidr.hpp"
#include "cloudroute/core/locality.hpp"
#include "cloudroute/core/snapshot.hpp"

namespace crbench {

// ---------------------------------------------------------------- keys

enum KeyKind : int { kShort = 0, kLong64 = 1, kTagged = 2 };

inline const char *KeyKindName(int kind) {
  switch (kind) {
    case kShort:
      return "short";
    case kLong64:
      return "long64";
    case kTagged:
      return "tagged";
  }
  return "?";
}

// kKeys keys of one kind, with random digits so nothing can be folded.
struct KeySet {
  static constexpr size_t kKeys = 1024;
  std::vector<std::string> storage;
  std::vector<const void *> ptrs;
  std::vector<size_t> lens;
};

inline KeySet MakeKeys(int kind, uint32_t seed = 12345) {
  KeySet ks;
  std::mt19937 rng(seed + static_cast<uint32_t>(kind));
  std::uniform_int_distribution<uint32_t> digits(0, 999999);
  static const char kAlnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::uniform_int_distribution<int> alnum(0, 61);
  char buf[96];
  for (size_t i = 0; i < KeySet::kKeys; ++i) {
    std::string k;
    switch (kind) {
      case kShort:  // "user:123456" — 11 bytes
        std::snprintf(buf, sizeof buf, "user:%06u", digits(rng));
        k = buf;
        break;
      case kLong64: {  // "session:" + 56 random bytes — 64 bytes
        k = "session:";
        while (k.size() < 64) k.push_back(kAlnum[alnum(rng)]);
        break;
      }
      case kTagged:  // "{user:123456}:cart" — only the tag is hashed
        std::snprintf(buf, sizeof buf, "{user:%06u}:cart", digits(rng));
        k = buf;
        break;
    }
    ks.storage.push_back(std::move(k));
  }
  for (const std::string &k : ks.storage) {
    ks.ptrs.push_back(k.data());
    ks.lens.push_back(k.size());
  }
  return ks;
}

// ---------------------------------------------------------------- baseline

// The classic CRC16/XMODEM: one byte per step through one 256-entry table,
// each step serially dependent on the last (Redis cluster.c / crc16.c,
// hiredis-cluster, libvalkey). The table is generated, not pasted; it is the
// same table as Redis' crc16tab.
struct ClassicTable {
  uint16_t t[256];
  constexpr ClassicTable() : t{} {
    for (uint32_t b = 0; b < 256; ++b) {
      uint16_t crc = static_cast<uint16_t>(b << 8);
      for (int i = 0; i < 8; ++i) {
        crc = static_cast<uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : (crc << 1));
      }
      t[b] = crc;
    }
  }
};
inline constexpr ClassicTable kClassic{};

inline uint16_t TableCrc16(const char *buf, int len) {
  uint16_t crc = 0;
  for (int i = 0; i < len; ++i) {
    crc = static_cast<uint16_t>(
        (crc << 8) ^ kClassic.t[((crc >> 8) ^ static_cast<unsigned char>(*buf++)) & 0x00FF]);
  }
  return crc;
}

// Redis keyHashSlot(), byte loops and all. Out of line, like a library call.
__attribute__((noinline)) inline unsigned TableKeySlot(const char *key, int keylen) {
  int s, e;
  for (s = 0; s < keylen; s++)
    if (key[s] == '{') break;
  if (s == keylen) return TableCrc16(key, keylen) & 0x3FFF;
  for (e = s + 1; e < keylen; e++)
    if (key[e] == '}') break;
  if (e == keylen || e == s + 1) return TableCrc16(key, keylen) & 0x3FFF;
  return TableCrc16(key + s + 1, e - s - 1) & 0x3FFF;
}

// ---------------------------------------------------------------- topology

// A CLUSTER SLOTS reply (RESP2) for `shards` shards with contiguous ranges.
// Per shard s (n = s + 1):
//   master   127.0.1.n:7000   aws   (other cloud)
//   replica  127.0.1.n:7001   aws   (other cloud)
//   replica  127.0.2.n:7000   gcp   local CIDR 127.0.2.0/25 (tier local)
//   replica  127.0.2.n:7001   gcp   local CIDR            (tier local)
//   replica  127.0.2.(128+n):7000  gcp/us-central1/zone-c (same region)
// With `failover`, the same-region gcp node is the master instead (the master
// moved clouds; the two local replicas still share rank 0, so reads keep
// drawing a random number) — the alternate topology of the update loops.
inline std::string MakeClusterSlots(int shards, bool failover = false) {
  auto bulk = [](const std::string &s) {
    return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
  };
  auto integer = [](long v) { return ":" + std::to_string(v) + "\r\n"; };
  auto node = [&](const std::string &ip, int port, int shard, int idx) {
    char id[41];
    std::snprintf(id, sizeof id, "%08x%08x%024x", 0xc0ffee00u + static_cast<unsigned>(shard),
                  static_cast<unsigned>(idx), 0u);
    return "*3\r\n" + bulk(ip) + integer(port) + bulk(id);
  };
  std::string out = "*" + std::to_string(shards) + "\r\n";
  for (int s = 0; s < shards; ++s) {
    const int n = s + 1;
    const long start = static_cast<long>(s) * 16384 / shards;
    const long end = static_cast<long>(s + 1) * 16384 / shards - 1;
    std::string a0 = node("127.0.1." + std::to_string(n), 7000, s, 0);
    std::string a1 = node("127.0.1." + std::to_string(n), 7001, s, 1);
    std::string g0 = node("127.0.2." + std::to_string(n), 7000, s, 2);
    std::string g1 = node("127.0.2." + std::to_string(n), 7001, s, 3);
    std::string g2 = node("127.0.2." + std::to_string(128 + n), 7000, s, 4);
    out += "*7\r\n" + integer(start) + integer(end);  // start, end, master, 4 replicas
    if (failover) {
      out += g2 + a0 + a1 + g0 + g1;
    } else {
      out += a0 + a1 + g0 + g1 + g2;
    }
  }
  return out;
}

inline const char kClientLocation[] = "gcp/us-central1/zone-b";

inline cloudroute::RouterConfig MakeCoreConfig(cloudroute::Policy policy) {
  using namespace cloudroute;
  RouterConfig c;
  c.locality.client = *ParseLocation(kClientLocation);
  c.locality.rules.push_back(LocationRule{*Cidr::Parse("127.0.2.0/25"), Location{}, true});
  c.locality.rules.push_back(LocationRule{*Cidr::Parse("127.0.2.128/25"),
                                          *ParseLocation("gcp/us-central1/zone-c"), false});
  c.locality.rules.push_back(
      LocationRule{*Cidr::Parse("127.0.1.0/24"), *ParseLocation("aws/us-east-1/use1-az1"), false});
  c.policy = policy;
  c.seed = 42;
  return c;
}

inline void Must(cr_status s, const char *what) {
  if (s != CR_OK) {
    std::fprintf(stderr, "%s failed: %s (%s)\n", what, cr_status_str(s), cr_last_error());
    std::abort();
  }
}

inline cr_config *MakeCConfig(cr_policy policy) {
  cr_config *cfg = nullptr;
  Must(cr_config_new(&cfg), "cr_config_new");
  Must(cr_config_set_client_location(cfg, kClientLocation), "set_client_location");
  Must(cr_config_add_local_cidr(cfg, "127.0.2.0/25"), "add_local_cidr");
  Must(cr_config_add_location_rule(cfg, "127.0.2.128/25", "gcp/us-central1/zone-c"), "rule");
  Must(cr_config_add_location_rule(cfg, "127.0.1.0/24", "aws/us-east-1/use1-az1"), "rule");
  cr_router_options o = CR_ROUTER_OPTIONS_INIT;
  o.policy = policy;
  o.seed = 42;
  Must(cr_config_set_router_options(cfg, &o), "set_router_options");
  return cfg;
}

}  // namespace crbench
