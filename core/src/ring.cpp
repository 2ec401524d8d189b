#include "cloudroute/core/ring.hpp"

#include <cstring>

#include "cloudroute/core/jump.hpp"
#include "cloudroute/core/ketama.hpp"
#include "cloudroute/core/md5.hpp"
#include "cloudroute/core/murmur64a.hpp"

namespace cloudroute {

namespace {

// Java's signed order of longs is the unsigned order of their bits with the
// sign bit flipped.
constexpr uint64_t kSignBit = uint64_t{1} << 63;

RingHash Resolve(const RingOptions &o) {
  if (o.hash != RingHash::kDefault) return o.hash;
  return o.algo == RingAlgo::kKetama ? RingHash::kMd5 : RingHash::kMurmur;
}

std::string Quote(const std::string &name) { return "'" + name + "'"; }

size_t Digits(uint64_t v) {
  size_t d = 1;
  while (v >= 10) {
    v /= 10;
    ++d;
  }
  return d;
}

}  // namespace

const char *RingAlgoName(RingAlgo a) {
  switch (a) {
    case RingAlgo::kJedis:
      return "jedis";
    case RingAlgo::kKetama:
      return "ketama";
    case RingAlgo::kJump:
      return "jump";
    case RingAlgo::kModulo:
      return "modulo";
  }
  return "?";
}

int64_t Ring::KeyHash(const void *key, size_t len) const {
  const auto *k = static_cast<const unsigned char *>(key);
  size_t n = len;
  if (opts_.key_tags) JedisKeyTag(k, len, &k, &n);
  if (opts_.hash == RingHash::kMd5) return static_cast<int64_t>(Md5Word(Md5Of(k, n), 0));
  return JedisMurmurHash(k, n);
}

uint32_t Ring::Locate(const void *key, size_t len) const { return LocateHash(KeyHash(key, len)); }

uint32_t Ring::LocateHash(int64_t h) const {
  switch (opts_.algo) {
    case RingAlgo::kJedis:
    case RingAlgo::kKetama:
      if (wide_) return p64_.Lookup(static_cast<uint64_t>(h) ^ kSignBit);
      return p32_.Lookup(static_cast<uint32_t>(h));  // MD5 hashes are in 0..2^32-1
    case RingAlgo::kJump:
      return static_cast<uint32_t>(
          JumpConsistentHash(static_cast<uint64_t>(h), static_cast<int32_t>(shards_.size())));
    case RingAlgo::kModulo:
      return static_cast<uint32_t>(static_cast<uint64_t>(h) % shards_.size());
  }
  return 0;
}

Status ValidateRingOptions(const RingOptions &o) {
  const int algo = static_cast<int>(o.algo);
  if (algo < 0 || algo >= kRingAlgoCount) {
    return Error(Code::kInvalid, "unknown ring algorithm " + std::to_string(algo) +
                                     " (want jedis, ketama, jump or modulo)");
  }
  const int hash = static_cast<int>(o.hash);
  if (hash < 0 || hash >= kRingHashCount) {
    return Error(Code::kInvalid, "unknown hash algorithm " + std::to_string(hash) +
                                     " (want default, murmur or md5)");
  }
  const int naming = static_cast<int>(o.naming);
  if (naming != static_cast<int>(JedisNaming::kJedis3) &&
      naming != static_cast<int>(JedisNaming::kJedis2)) {
    return Error(Code::kInvalid,
                 "unknown Jedis naming " + std::to_string(naming) + " (want jedis3 or jedis2)");
  }
  if (o.algo == RingAlgo::kKetama && o.hash == RingHash::kMurmur) {
    return Error(Code::kInvalid, "ketama hashes with MD5 only (libmemcached and twemproxy ketama)");
  }
  return Status::Ok();
}

RingBuilder::RingBuilder(RingOptions opts) : opts_(opts) { opts_.hash = Resolve(opts); }

Status RingBuilder::AddShard(const char *name, size_t name_len, int64_t weight) {
  const size_t index = shards_.size();
  const std::string which = "shard " + std::to_string(index);
  if (index >= kRingMaxShards) {
    return Error(Code::kLimit,
                 "a ring holds at most " + std::to_string(kRingMaxShards) + " shards");
  }
  if (weight < 1) {
    return Error(Code::kInvalid, which + ": weight " + std::to_string(weight) +
                                     " must be at least 1 (a shard of weight 0 would own no key)");
  }
  if (weight > kRingMaxWeight) {
    return Error(Code::kInvalid, which + ": weight " + std::to_string(weight) +
                                     " is above the maximum of " + std::to_string(kRingMaxWeight));
  }
  if ((opts_.algo == RingAlgo::kJump || opts_.algo == RingAlgo::kModulo) && weight != 1) {
    return Error(Code::kInvalid, which + ": " + RingAlgoName(opts_.algo) +
                                     " has no weights (every shard's weight must be 1)");
  }
  RingShard s;
  s.weight = static_cast<int32_t>(weight);
  if (name == nullptr) {
    if (opts_.algo == RingAlgo::kKetama) {
      return Error(Code::kInvalid, which +
                                       ": a ketama shard needs a name (its twemproxy name, or "
                                       "\"host:port\", or \"host\" when the port is 11211)");
    }
  } else {
    if (name_len == 0) {
      return Error(Code::kInvalid, which + ": empty name (pass no name for an unnamed shard)");
    }
    if (const void *nul = std::memchr(name, '\0', name_len)) {
      return Error(Code::kInvalid, which + ": name has a NUL byte at offset " +
                                       std::to_string(static_cast<const char *>(nul) - name));
    }
    s.named = true;
    s.name.assign(name, name_len);
    auto dup = names_.find(s.name);
    if (dup != names_.end()) {
      return Error(Code::kInvalid, which + ": duplicate name " + Quote(s.name) + " (also shard " +
                                       std::to_string(dup->second) + ")");
    }
  }
  if (opts_.algo == RingAlgo::kKetama &&
      total_weight_ + static_cast<uint64_t>(weight) > UINT32_MAX) {
    return Error(Code::kLimit,
                 which + ": ketama weights must sum to less than 2^32 (twemproxy sums in 32 bits)");
  }
  if (s.named) names_.emplace(s.name, index);
  total_weight_ += static_cast<uint64_t>(weight);
  shards_.push_back(std::move(s));
  return Status::Ok();
}

Result<std::shared_ptr<const Ring>> RingBuilder::Build() const {
  if (shards_.empty()) {
    return Error(Code::kInvalid, "empty ring: add at least one shard before building");
  }
  std::shared_ptr<Ring> ring(new Ring());
  ring->opts_ = opts_;
  ring->shards_ = shards_;
  const uint32_t n = static_cast<uint32_t>(shards_.size());

  if (opts_.algo == RingAlgo::kJedis) {
    const uint64_t points = total_weight_ * kJedisPointsPerWeight;
    if (points > kRingMaxPoints) {
      return Error(Code::kLimit, "the ring would have " + std::to_string(points) +
                                     " points (160 x total weight); the maximum is " +
                                     std::to_string(kRingMaxPoints));
    }
    const JedisHash algo = opts_.hash == RingHash::kMd5 ? JedisHash::kMd5 : JedisHash::kMurmur;
    ring->wide_ = algo == JedisHash::kMurmur;
    std::vector<PointRing<uint64_t>::Point> wide;
    std::vector<PointRing<uint32_t>::Point> narrow;
    if (ring->wide_) {
      wide.reserve(points);
    } else {
      narrow.reserve(points);
    }
    for (uint32_t i = 0; i < n; ++i) {
      const RingShard &s = shards_[i];
      const uint32_t count = kJedisPointsPerWeight * static_cast<uint32_t>(s.weight);
      for (uint32_t v = 0; v < count; ++v) {
        const std::string point =
            JedisPointName(opts_.naming, i, s.named ? &s.name : nullptr, s.weight, v);
        const int64_t h = JedisHashOf(algo, point.data(), point.size());
        if (ring->wide_) {
          wide.push_back({static_cast<uint64_t>(h) ^ kSignBit, i});
        } else {
          narrow.push_back({static_cast<uint32_t>(h), i});
        }
      }
    }
    // TreeMap.put: a later shard takes over a point an earlier one hashed to.
    if (ring->wide_) {
      ring->p64_.Build(std::move(wide), PointRing<uint64_t>::Ties::kLastWins);
    } else {
      ring->p32_.Build(std::move(narrow), PointRing<uint32_t>::Ties::kLastWins);
    }
  } else if (opts_.algo == RingAlgo::kKetama) {
    std::vector<PointRing<uint32_t>::Point> points;
    points.reserve(static_cast<size_t>(n) * kKetamaPointsPerServer + 4 * kKetamaPointsPerHash);
    for (uint32_t i = 0; i < n; ++i) {
      const RingShard &s = shards_[i];
      const uint32_t groups =
          KetamaPoints(static_cast<uint64_t>(s.weight), total_weight_, n) / kKetamaPointsPerHash;
      if (groups > 0 && s.name.size() + 1 + Digits(groups - 1) > kKetamaMaxPointName) {
        return Error(Code::kInvalid, "shard " + std::to_string(i) + ": ketama name " +
                                         Quote(s.name) + " is too long: its point names " +
                                         "would pass " + std::to_string(kKetamaMaxPointName) +
                                         " bytes, where twemproxy cuts them");
      }
      if (points.size() + static_cast<size_t>(groups) * kKetamaPointsPerHash > kRingMaxPoints) {
        return Error(Code::kLimit,
                     "the ring would have more than " + std::to_string(kRingMaxPoints) + " points");
      }
      for (uint32_t k = 0; k < groups; ++k) {
        const std::string point = s.name + "-" + std::to_string(k);
        const Md5Digest d = Md5Of(point.data(), point.size());
        for (int w = 0; w < static_cast<int>(kKetamaPointsPerHash); ++w) {
          points.push_back({Md5Word(d, w), i});
        }
      }
    }
    if (points.empty()) return Error(Code::kInternal, "ketama produced no point");
    ring->p32_.Build(std::move(points), PointRing<uint32_t>::Ties::kFirstWins);
  }
  return std::shared_ptr<const Ring>(std::move(ring));
}

}  // namespace cloudroute
