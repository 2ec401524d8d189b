// HashIndex: a set of 32-bit values (indices into a table the caller owns)
// looked up by a hash and a test against the caller's own row, so no key
// (an address, a node id) is copied into the index. Open addressing with
// linear probing, at most half full (or three quarters, for an index that
// lives long and is looked up mostly for keys it holds), erase by backward
// shift: 8 bytes a slot, one allocation, where an
// unordered_map<std::string, uint32_t> costs a node, a key copy and a bucket
// per entry (~100 bytes a node address).
//
// Thread-safety: none; the owner serializes access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace cloudroute {

// A hash of `bytes` and `extra` (a port, or 0) for a HashIndex: the bytes
// eight at a time, each step mixed so that the low 32 bits (all the index
// keeps) depend on every byte. For ids and addresses of a few dozen bytes,
// read a few thousand times per topology.
inline uint64_t HashBytes(std::string_view bytes, uint64_t extra) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  auto mix = [](uint64_t h, uint64_t word) {
    h = (h ^ word) * kMul;
    return h ^ (h >> 32);
  };
  uint64_t h = bytes.size();
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    h = mix(h, word);
  }
  uint64_t tail = 0;
  if (i < bytes.size()) std::memcpy(&tail, bytes.data() + i, bytes.size() - i);
  h = mix(mix(h, tail), extra);
  return h ^ (h >> 29);
}

class HashIndex {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;  // not a storable value

  // How full the table may get. Half: short probes for misses too (an index
  // built once, where most lookups are of new keys). Three quarters: half
  // the bytes for a long-lived index (a registry's thousands of addresses),
  // at ~2.5 probes a hit instead of ~1.5, ~8.5 a miss instead of ~2.5.
  enum class Fill : uint8_t { kHalf, kThreeQuarters };

  HashIndex() = default;
  explicit HashIndex(Fill fill) : fill_(fill) {}

  // Room for n values without growing.
  void Reserve(size_t n) {
    size_t cap = 16;
    while (!Fits(n, cap)) cap *= 2;
    if (cap <= slots_.size()) return;
    std::vector<Slot> old(cap, Slot{0, kNone});
    old.swap(slots_);
    used_ = 0;
    for (const Slot &s : old) {
      if (s.value != kNone) Place(s);
    }
  }

  // The value whose hash is `hash` and for which same(value) is true, or kNone.
  template <typename Same>
  uint32_t Find(uint64_t hash, Same same) const {
    if (slots_.empty()) return kNone;
    const uint32_t h = static_cast<uint32_t>(hash);
    for (size_t i = h & mask(); slots_[i].value != kNone; i = (i + 1) & mask()) {
      if (slots_[i].hash == h && same(slots_[i].value)) return slots_[i].value;
    }
    return kNone;
  }

  // REQUIRES: value != kNone and not already present.
  void Insert(uint64_t hash, uint32_t value) {
    if (!Fits(used_ + 1, slots_.size())) Reserve(used_ + 1);
    Place(Slot{static_cast<uint32_t>(hash), value});
  }

  // Removes `value`, inserted with `hash`; false when it is not there.
  bool Erase(uint64_t hash, uint32_t value) {
    if (slots_.empty()) return false;
    size_t i = static_cast<uint32_t>(hash) & mask();
    while (slots_[i].value != value) {
      if (slots_[i].value == kNone) return false;
      i = (i + 1) & mask();
    }
    // Backward shift: move each later member of the probe run whose home is
    // not between the hole and itself into the hole.
    for (size_t j = (i + 1) & mask(); slots_[j].value != kNone; j = (j + 1) & mask()) {
      const size_t home = slots_[j].hash & mask();
      const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (stays) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i] = Slot{0, kNone};
    --used_;
    return true;
  }

  size_t size() const { return used_; }
  size_t capacity() const { return slots_.size(); }

  void Clear() {
    std::vector<Slot>().swap(slots_);
    used_ = 0;
  }

 private:
  struct Slot {
    uint32_t hash;
    uint32_t value;
  };

  size_t mask() const { return slots_.size() - 1; }
  // Whether n values may live in cap slots.
  bool Fits(size_t n, size_t cap) const {
    return fill_ == Fill::kHalf ? 2 * n <= cap : 4 * n <= 3 * cap;
  }

  void Place(Slot s) {
    size_t i = s.hash & mask();
    while (slots_[i].value != kNone) i = (i + 1) & mask();
    slots_[i] = s;
    ++used_;
  }

  std::vector<Slot> slots_;  // a power of two in size, or empty
  size_t used_ = 0;
  Fill fill_ = Fill::kHalf;
};

}  // namespace cloudroute
