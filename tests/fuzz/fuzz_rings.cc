// libFuzzer target: rings (any algorithm, hash, naming and key-tag option,
// raw enum values included), their shards and keys, the Jedis hashes, jump
// hash and family keys. Invariants: a located shard is inside the ring; the
// batch call agrees with the single one; a family key is the decimal text of
// a signed 64-bit value that fits CR_FAMILY_KEY_SIZE.
#include <fuzzer/FuzzedDataProvider.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_common.hpp"

namespace {

void CheckRing(FuzzedDataProvider &in) {
  cr_ring_options o = CR_RING_OPTIONS_INIT;
  const int algo = in.ConsumeIntegralInRange<int>(-1, 5);
  const int hash = in.ConsumeIntegralInRange<int>(-1, 4);
  const int naming = in.ConsumeIntegralInRange<int>(-1, 3);
  std::memcpy(&o.algo, &algo, sizeof algo);
  std::memcpy(&o.hash, &hash, sizeof hash);
  std::memcpy(&o.naming, &naming, sizeof naming);
  o.key_tags = in.ConsumeIntegralInRange<int>(-1, 2);
  cr_ring *ring = nullptr;
  const cr_status ns = cr_ring_new(&ring, &o);
  crfuzz::RequireExplained(ns);
  if (ns != CR_OK) return;
  const size_t shards = in.ConsumeIntegralInRange<size_t>(0, 12);
  for (size_t i = 0; i < shards; ++i) {
    const bool named = in.ConsumeBool();
    const std::string name = in.ConsumeRandomLengthString(40);
    // Mostly small weights (a ring of 160 x weight points is built per run),
    // sometimes the bounds and beyond.
    uint32_t weight = in.ConsumeIntegralInRange<uint32_t>(0, 40);
    if (in.ConsumeProbability<float>() < 0.05f) weight = in.ConsumeBool() ? 1000000u : 1000001u;
    crfuzz::RequireExplained(cr_ring_add_shard(ring, named ? name.c_str() : nullptr, weight));
  }
  const cr_status bs = cr_ring_build(ring);
  crfuzz::RequireExplained(bs);
  if (bs == CR_OK) {
    const size_t count = cr_ring_get_shard_count(ring);
    CRFUZZ_REQUIRE(count > 0);
    std::vector<std::string> keys;
    while (keys.size() < 16 && in.remaining_bytes() > 0)
      keys.push_back(in.ConsumeRandomLengthString(48));
    std::vector<const void *> ptrs;
    std::vector<size_t> lens;
    std::vector<uint32_t> single;
    for (const std::string &k : keys) {
      uint32_t shard = 0;
      CRFUZZ_REQUIRE(cr_ring_locate(&shard, ring, k.data(), k.size()) == CR_OK);
      CRFUZZ_REQUIRE(shard < count);
      single.push_back(shard);
      ptrs.push_back(k.data());
      lens.push_back(k.size());
    }
    std::vector<uint32_t> batch(keys.size(), UINT32_MAX);
    CRFUZZ_REQUIRE(
        cr_ring_locate_batch(batch.data(), ring, ptrs.data(), lens.data(), keys.size()) == CR_OK);
    CRFUZZ_REQUIRE(batch == single);
  }
  cr_ring_free(ring);
}

void CheckHashes(FuzzedDataProvider &in) {
  const std::string key = in.ConsumeRandomLengthString(64);
  const int algo = in.ConsumeIntegralInRange<int>(-1, 4);
  cr_hash_algo a;
  std::memcpy(&a, &algo, sizeof algo);
  int64_t h = 0;
  crfuzz::RequireExplained(cr_jedis_hash(&h, a, key.data(), key.size()));

  uint32_t bucket = 0;
  const uint32_t buckets = in.ConsumeIntegral<uint32_t>();
  const cr_status js = cr_jump_hash(&bucket, in.ConsumeIntegral<uint64_t>(), buckets);
  crfuzz::RequireExplained(js);
  if (js == CR_OK) CRFUZZ_REQUIRE(bucket < buckets);

  const std::string family = in.ConsumeRandomLengthString(32);
  char buf[CR_FAMILY_KEY_SIZE + 4];
  size_t needed = 0;
  const size_t cap = in.ConsumeIntegralInRange<size_t>(0, sizeof buf);
  const cr_status fs = cr_family_key(buf, cap, &needed, family.c_str(), key.data(), key.size());
  crfuzz::RequireExplained(fs);
  if (fs == CR_OK) {
    CRFUZZ_REQUIRE(needed <= CR_FAMILY_KEY_SIZE && needed == std::strlen(buf) + 1);
    errno = 0;
    char *end = nullptr;
    (void)std::strtoll(buf, &end, 10);
    CRFUZZ_REQUIRE(errno == 0 && end != buf && *end == '\0');
  } else if (fs == CR_EBUFS) {
    CRFUZZ_REQUIRE(needed > cap && needed <= CR_FAMILY_KEY_SIZE);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  if (in.ConsumeBool()) {
    CheckRing(in);
  } else {
    CheckHashes(in);
  }
  return 0;
}
