// Key slots: our slicing-by-8 CRC16 (core KeySlot, C API cr_keyslot and the
// batch cr_keyslot_batch) against the classic one-byte-per-step table CRC16 with
// Redis' keyHashSlot() hash-tag loops, on the same keys.
//
// Every benchmark walks the same 1024 keys per iteration; items/s is keys/s,
// so ns/key = 1e9 / items_per_second (run.sh prints it).
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "bench_util.hpp"
#include "cloudroute.h"
#include "cloudroute/core/keyslot.hpp"

namespace {

using crbench::KeySet;

const KeySet &Keys(int kind) {
  static const KeySet sets[3] = {crbench::MakeKeys(crbench::kShort),
                                 crbench::MakeKeys(crbench::kLong64),
                                 crbench::MakeKeys(crbench::kTagged)};
  return sets[kind];
}

// The baseline must compute the same slots, or the comparison is void.
void CheckSameSlots(const KeySet &ks) {
  for (size_t i = 0; i < ks.ptrs.size(); ++i) {
    const auto *k = static_cast<const char *>(ks.ptrs[i]);
    const unsigned ours = cloudroute::KeySlot(k, ks.lens[i]);
    const unsigned theirs = crbench::TableKeySlot(k, static_cast<int>(ks.lens[i]));
    if (ours != theirs || ours != cr_keyslot(k, ks.lens[i])) {
      std::fprintf(stderr, "slot mismatch on key %zu: ours %u table %u\n", i, ours, theirs);
      std::abort();
    }
  }
}

void Finish(benchmark::State &state, int kind) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * KeySet::kKeys);
  state.SetLabel(crbench::KeyKindName(kind));
}

void BM_KeySlot_Table(benchmark::State &state) {
  const int kind = static_cast<int>(state.range(0));
  const KeySet &ks = Keys(kind);
  CheckSameSlots(ks);
  const void *const *p = ks.ptrs.data();
  const size_t *l = ks.lens.data();
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      benchmark::DoNotOptimize(
          crbench::TableKeySlot(static_cast<const char *>(p[i]), static_cast<int>(l[i])));
    }
  }
  Finish(state, kind);
}

void BM_KeySlot_Core(benchmark::State &state) {
  const int kind = static_cast<int>(state.range(0));
  const KeySet &ks = Keys(kind);
  const void *const *p = ks.ptrs.data();
  const size_t *l = ks.lens.data();
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      benchmark::DoNotOptimize(cloudroute::KeySlot(p[i], l[i]));
    }
  }
  Finish(state, kind);
}

void BM_KeySlot_CApi(benchmark::State &state) {
  const int kind = static_cast<int>(state.range(0));
  const KeySet &ks = Keys(kind);
  const void *const *p = ks.ptrs.data();
  const size_t *l = ks.lens.data();
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      benchmark::DoNotOptimize(cr_keyslot(p[i], l[i]));
    }
  }
  Finish(state, kind);
}

void BM_KeySlots_CApiBatch(benchmark::State &state) {
  const int kind = static_cast<int>(state.range(0));
  const KeySet &ks = Keys(kind);
  uint16_t out[KeySet::kKeys];
  for (auto _ : state) {
    cr_status s = cr_keyslot_batch(out, ks.ptrs.data(), ks.lens.data(), KeySet::kKeys);
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  Finish(state, kind);
}

// The raw CRC over the whole key (no hash-tag scan), for reference.
void BM_Crc16_Table(benchmark::State &state) {
  const int kind = static_cast<int>(state.range(0));
  const KeySet &ks = Keys(kind);
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      benchmark::DoNotOptimize(
          crbench::TableCrc16(static_cast<const char *>(ks.ptrs[i]), static_cast<int>(ks.lens[i])));
    }
  }
  Finish(state, kind);
}

void BM_Crc16_Core(benchmark::State &state) {
  const int kind = static_cast<int>(state.range(0));
  const KeySet &ks = Keys(kind);
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      benchmark::DoNotOptimize(cloudroute::Crc16(ks.ptrs[i], ks.lens[i]));
    }
  }
  Finish(state, kind);
}

#define KEY_KINDS \
  ArgName("keys")->Arg(crbench::kShort)->Arg(crbench::kLong64)->Arg(crbench::kTagged)

BENCHMARK(BM_KeySlot_Table)->KEY_KINDS;
BENCHMARK(BM_KeySlot_Core)->KEY_KINDS;
BENCHMARK(BM_KeySlot_CApi)->KEY_KINDS;
BENCHMARK(BM_KeySlots_CApiBatch)->KEY_KINDS;
BENCHMARK(BM_Crc16_Table)->ArgName("keys")->Arg(crbench::kShort)->Arg(crbench::kLong64);
BENCHMARK(BM_Crc16_Core)->ArgName("keys")->Arg(crbench::kShort)->Arg(crbench::kLong64);

}  // namespace
