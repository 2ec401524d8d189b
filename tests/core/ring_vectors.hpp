// Helpers shared by the ring tests: tests/vectors/rings.json, and building a
// core Ring from one of its cases.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cloudroute/core/ring.hpp"
#include "common/source_dir.hpp"

namespace crtest {

inline const nlohmann::json &RingVectors() {
  static const nlohmann::json v = [] {
    std::ifstream f(SourcePath("tests/vectors/rings.json"));
    EXPECT_TRUE(f.good()) << "tests/vectors/rings.json";
    return nlohmann::json::parse(f);
  }();
  return v;
}

inline std::string Unhex(const std::string &h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
  }
  return out;
}

inline cloudroute::RingOptions RingOptionsOf(const nlohmann::json &c) {
  using namespace cloudroute;
  RingOptions o;
  const std::string algo = c["algo"];
  o.algo = algo == "jedis"    ? RingAlgo::kJedis
           : algo == "ketama" ? RingAlgo::kKetama
           : algo == "jump"   ? RingAlgo::kJump
                              : RingAlgo::kModulo;
  o.hash = c["hash"] == "md5" ? RingHash::kMd5 : RingHash::kMurmur;
  o.naming = c.value("naming", "jedis3") == "jedis2" ? JedisNaming::kJedis2 : JedisNaming::kJedis3;
  o.key_tags = c["key_tags"].get<bool>();
  return o;
}

// The ring of a rings.json case (fails the test on a build error).
inline std::shared_ptr<const cloudroute::Ring> RingOf(const nlohmann::json &c) {
  cloudroute::RingBuilder b(RingOptionsOf(c));
  for (const auto &s : c["shards"]) {
    if (s["name"].is_null()) {
      EXPECT_TRUE(b.AddShard(nullptr, 0, s["weight"].get<int>()).ok());
    } else {
      const std::string name = s["name"];
      cloudroute::Status st = b.AddShard(name.data(), name.size(), s["weight"].get<int>());
      EXPECT_TRUE(st.ok()) << st.message();
    }
  }
  auto r = b.Build();
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.status().message());
  return r.ok() ? *r : nullptr;
}

// Runs every rings.json case of the given algorithm; returns how many.
inline int CheckRingCases(const std::string &algo) {
  int cases = 0;
  for (const auto &c : RingVectors()["rings"]) {
    if (c["algo"] != algo) continue;
    SCOPED_TRACE(c["name"].get<std::string>());
    auto ring = RingOf(c);
    if (ring == nullptr) continue;
    if (c.contains("points")) {
      EXPECT_EQ(ring->point_count(), c["points"].get<size_t>());
    }
    for (const auto &k : c["keys"]) {
      const std::string key = Unhex(k["key_hex"]);
      EXPECT_EQ(ring->Locate(key.data(), key.size()), k["shard"].get<uint32_t>()) << k["key_hex"];
    }
    ++cases;
  }
  return cases;
}

}  // namespace crtest
