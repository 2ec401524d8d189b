// RecentWrites: read-your-writes across calls (ClientOptions::
// read_your_writes_ms). After this client writes to a slot, its reads of
// that slot go to the slot's master for the window: a replica may not have
// applied the write yet (replication is asynchronous), the master has.
//
// One deadline per slot (16384 atomics, 128 KiB, allocated only when the
// window is on): a write stores now + window after it completed (or
// failed: it may have arrived), a read loads one value and compares it with
// the clock. Off (window 0), a read costs one branch and no clock read.
//
// Why a time bound and not the replicas' acknowledged offsets: an offset
// check needs the write's replication offset (not in a write's reply; WAIT
// or INFO per write: another round trip on the write path) and each
// replica's acknowledged offset fresh enough to compare (INFO replication
// per read, or polled: then stale by its period). The window costs nothing
// on either path; the caller sizes it above the replicas' usual lag
// (replica_max_lag_* bounds a replica that falls further behind).
//
// Thread-safety: safe for concurrent use; the window is fixed at creation.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace cloudroute {
namespace net {

class RecentWrites {
 public:
  explicit RecentWrites(uint32_t window_ms);

  bool enabled() const { return window_ns_ > 0; }
  // A write to slot completed (or failed) now. A no-op when off.
  void NoteWrite(uint16_t slot);
  // Whether reads of slot go to its master now: a write to it ended less
  // than the window ago. False when off.
  bool MasterOnly(uint16_t slot) const { return window_ns_ > 0 && MasterOnlySlow(slot); }

 private:
  bool MasterOnlySlow(uint16_t slot) const;

  const int64_t window_ns_;
  // Per slot: the steady-clock instant (ns) until which reads go to the master.
  std::unique_ptr<std::atomic<int64_t>[]> until_ns_;
};

}  // namespace net
}  // namespace cloudroute
