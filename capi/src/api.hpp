// Internal to capi/: the one guard every entry point runs in, the thread-
// local error message, the argument checks every section shares, and the one
// rule for versioned structs (docs/c-api.md, "How the ABI evolves").
#pragma once

#include <cstddef>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <type_traits>

#include "cloudroute.h"
#include "cloudroute/core/router.hpp"
#include "cloudroute/core/status.hpp"
#include "handles.hpp"

namespace cloudroute {
namespace capi {

// Every core code is the cr_status of the same name: the C API converts one
// into the other with a cast, so the numbers must never drift apart.
static_assert(static_cast<int>(Code::kOk) == CR_OK);
static_assert(static_cast<int>(Code::kInvalid) == CR_EINVAL);
static_assert(static_cast<int>(Code::kNoMemory) == CR_ENOMEM);
static_assert(static_cast<int>(Code::kBufferTooSmall) == CR_EBUFS);
static_assert(static_cast<int>(Code::kParse) == CR_EPARSE);
static_assert(static_cast<int>(Code::kLimit) == CR_ELIMIT);
static_assert(static_cast<int>(Code::kIncomplete) == CR_EINCOMPLETE);
static_assert(static_cast<int>(Code::kNoTopology) == CR_ENOTOPOLOGY);
static_assert(static_cast<int>(Code::kSlotUncovered) == CR_ESLOT_UNCOVERED);
static_assert(static_cast<int>(Code::kUnavailable) == CR_EUNAVAILABLE);
static_assert(static_cast<int>(Code::kNotFound) == CR_ENOTFOUND);
static_assert(static_cast<int>(Code::kInternal) == CR_EINTERNAL);
static_assert(static_cast<int>(Code::kConnError) == CR_ECONN);
static_assert(static_cast<int>(Code::kTimeout) == CR_ETIMEOUT);
static_assert(static_cast<int>(Code::kServerError) == CR_EREDIS);

const char *LastError();

// Records msg as this thread's last error and returns status.
cr_status Fail(cr_status status, const std::string &msg);
inline cr_status Fail(const Status &s) {
  return Fail(static_cast<cr_status>(s.code()), s.message());
}
inline cr_status Check(const Status &s) { return s.ok() ? CR_OK : Fail(s); }
// Check, with fn ("cr_x_y") before the message.
inline cr_status Prefixed(const Status &s, const char *fn) {
  if (s.ok()) return CR_OK;
  return Fail(static_cast<cr_status>(s.code()), std::string(fn) + ": " + s.message());
}

// Runs an entry point's body: no exception ever crosses the C boundary.
template <typename F>
cr_status Guard(F &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return Fail(CR_ENOMEM, "out of memory");
  } catch (const std::exception &e) {
    return Fail(CR_EINTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return Fail(CR_EINTERNAL, "internal error: unknown exception");
  }
}

// ---------------------------------------------------------------- arguments
// Each check returns CR_OK or records "<fn>: <what> ..." and returns the error,
// so entry points read as a list: if (auto s = NotNull(...); s != CR_OK) ...

// The integer a caller passed for an enum parameter. C callers may pass any
// int; loading it as the C++ enum type would be undefined behaviour when it
// is out of range, so the bits are copied instead.
template <typename E>
int RawEnum(const E &e) {
  int v = 0;
  static_assert(sizeof(E) == sizeof(int), "C enums are int-sized on supported ABIs");
  std::memcpy(&v, &e, sizeof v);
  return v;
}

inline cr_status NotNull(const void *p, const char *fn, const char *what) {
  if (p == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": " + what + " is NULL");
  return CR_OK;
}

// A binary argument (key, value): NULL is allowed only with length 0.
inline cr_status Bytes(const void *p, size_t len, const char *fn, const char *what) {
  if (p == nullptr && len != 0) {
    return Fail(CR_EINVAL, std::string(fn) + ": " + what + " is NULL with a non-zero length");
  }
  return CR_OK;
}

// n binary arguments (keys, argv): the arrays, and each element as Bytes().
inline cr_status BytesArray(const void *const *ptrs, const size_t *lens, size_t n, const char *fn,
                            const char *what) {
  if (n == 0) return CR_OK;
  if (ptrs == nullptr || lens == nullptr) {
    return Fail(CR_EINVAL, std::string(fn) + ": " + what + " or their lengths are NULL");
  }
  for (size_t i = 0; i < n; ++i) {
    if (ptrs[i] == nullptr && lens[i] != 0) {
      return Fail(CR_EINVAL, std::string(fn) + ": " + what + "[" + std::to_string(i) +
                                 "] is NULL with a non-zero length");
    }
  }
  return CR_OK;
}

// An enum argument whose values are 0..max.
template <typename E>
cr_status EnumInRange(const E &e, int max, const char *fn, const char *what) {
  const int v = RawEnum(e);
  if (v < 0 || v > max) {
    return Fail(CR_EINVAL, std::string(fn) + ": " + what + " " + std::to_string(v) +
                               " is not one of 0-" + std::to_string(max));
  }
  return CR_OK;
}

// A boolean argument or field: 0 or 1.
inline cr_status Boolean(int v, const char *fn, const char *what) {
  if (v != 0 && v != 1) {
    return Fail(CR_EINVAL,
                std::string(fn) + ": " + what + " must be 0 or 1, not " + std::to_string(v));
  }
  return CR_OK;
}

inline bool SlotOk(uint32_t slot) { return slot < CR_SLOT_COUNT; }
inline cr_status Slot(uint32_t slot, const char *fn) {
  if (!SlotOk(slot))
    return Fail(CR_EINVAL,
                std::string(fn) + ": slot " + std::to_string(slot) + " is outside 0-16383");
  return CR_OK;
}

// (out, cap, needed) output: needed must be there, and out when cap > 0.
inline cr_status OutBuffer(const void *out, size_t cap, const size_t *needed, const char *fn) {
  if (needed == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": needed is NULL");
  if (out == nullptr && cap > 0)
    return Fail(CR_EINVAL, std::string(fn) + ": out is NULL with cap > 0");
  return CR_OK;
}

inline cr_status TooSmall(size_t needed, size_t cap, const char *fn, const char *what) {
  return Fail(CR_EBUFS, std::string(fn) + ": needs room for " + std::to_string(needed) + " " +
                            what + ", cap is " + std::to_string(cap));
}

// ---------------------------------------------------------- versioned structs
// The end of each struct's first public layout (0.1.0): the smallest
// struct_size any call accepts. These never change as the structs grow.
template <typename T>
struct FirstLayout;
#define CR_FIRST_LAYOUT(T, last_field)                                              \
  template <>                                                                       \
  struct FirstLayout<T> {                                                           \
    static constexpr size_t kEnd = offsetof(T, last_field) + sizeof(T::last_field); \
  }
CR_FIRST_LAYOUT(cr_parse_options, default_host);
CR_FIRST_LAYOUT(cr_router_options, seed);
CR_FIRST_LAYOUT(cr_ring_options, key_tags);
CR_FIRST_LAYOUT(cr_client_options, client_name);
CR_FIRST_LAYOUT(cr_sentinel_options, client_name);
CR_FIRST_LAYOUT(cr_sharded_options, hedge_percentile);
CR_FIRST_LAYOUT(cr_node_info, shard);
CR_FIRST_LAYOUT(cr_route, tier);
CR_FIRST_LAYOUT(cr_candidate, down);
CR_FIRST_LAYOUT(cr_client_stats, connections);
CR_FIRST_LAYOUT(cr_client_node_stats, idle_connections);
CR_FIRST_LAYOUT(cr_sentinel_stats, subscriptions);
CR_FIRST_LAYOUT(cr_call_options, timeout_ms);
CR_FIRST_LAYOUT(cr_scan_options, timeout_ms);
#undef CR_FIRST_LAYOUT

template <typename T>
constexpr size_t kFirstLayout = FirstLayout<T>::kEnd;

template <typename T>
std::string SizeMessage(const char *fn, const char *what, size_t size) {
  return std::string(fn) + ": " + what + "->struct_size " + std::to_string(size) +
         " is below the first layout (" + std::to_string(kFirstLayout<T>) +
         " bytes): set it with the _INIT macro or sizeof";
}

// An input struct: *dst = defaults, overwritten by the caller's first
// in->struct_size bytes. A larger struct (from a newer header) must have
// nothing but zeros past this library's layout: its new fields would be
// silently ignored otherwise. in may be NULL (defaults).
template <typename T>
cr_status ReadInput(T *dst, const T *in, const T &defaults, const char *fn, const char *what) {
  static_assert(std::is_trivially_copyable_v<T>);
  *dst = defaults;
  if (in == nullptr) return CR_OK;
  const size_t size = in->struct_size;
  if (size < kFirstLayout<T>) return Fail(CR_EINVAL, SizeMessage<T>(fn, what, size));
  if (size > sizeof(T)) {
    const unsigned char *tail = reinterpret_cast<const unsigned char *>(in) + sizeof(T);
    for (size_t i = 0; i < size - sizeof(T); ++i) {
      if (tail[i] != 0) {
        return Fail(CR_EVERSION, std::string(fn) + ": " + what + " is " + std::to_string(size) +
                                     " bytes and sets fields past this library's " +
                                     std::to_string(sizeof(T)) +
                                     " (libcloudroute " CR_VERSION_STRING
                                     " is older than the header it was "
                                     "compiled with)");
      }
    }
  }
  std::memcpy(dst, in, size < sizeof(T) ? size : sizeof(T));
  dst->struct_size = static_cast<uint32_t>(sizeof(T));
  return CR_OK;
}

// cr_<x>_options_init(opts, size): the defaults, written only into the
// caller's size; past the library's layout, zeros.
template <typename T>
cr_status InitOptions(T *opts, size_t size, const T &defaults, const char *fn) {
  if (opts == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": opts is NULL");
  if (size < kFirstLayout<T> || size > UINT32_MAX) {
    return Fail(CR_EINVAL, std::string(fn) + ": size " + std::to_string(size) +
                               " is below the first layout (" + std::to_string(kFirstLayout<T>) +
                               " bytes); pass sizeof *opts");
  }
  unsigned char *p = reinterpret_cast<unsigned char *>(opts);
  std::memcpy(p, &defaults, size < sizeof(T) ? size : sizeof(T));
  if (size > sizeof(T)) std::memset(p + sizeof(T), 0, size - sizeof(T));
  const uint32_t size32 = static_cast<uint32_t>(size);
  std::memcpy(p + offsetof(T, struct_size), &size32, sizeof size32);
  return CR_OK;
}

// An output struct the caller sized: at least the first layout.
template <typename T>
bool OutputOk(const T *out) {
  return out != nullptr && out->struct_size >= kFirstLayout<T>;
}

template <typename T>
cr_status CheckOutput(const T *out, const char *fn, const char *what) {
  if (out == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": " + what + " is NULL");
  if (!OutputOk(out)) return Fail(CR_EINVAL, SizeMessage<T>(fn, what, out->struct_size));
  return CR_OK;
}

// Copies v into the caller's struct up to the smaller of the two layouts;
// the caller's struct_size stays. REQUIRES: OutputOk(out).
template <typename T>
void WriteOutput(T *out, const T &v) {
  static_assert(std::is_trivially_copyable_v<T>);
  const uint32_t size = out->struct_size;
  if (size >= sizeof(T)) {
    *out = v;
  } else {
    std::memcpy(out, &v, size);
  }
  out->struct_size = size;
}

// An array of output structs laid out with the caller's stride
// (out[0].struct_size). Element i is written through Write(i, v).
template <typename T>
class OutArray {
 public:
  // REQUIRES: base != NULL when cap > 0.
  OutArray(T *base, size_t cap) : base_(reinterpret_cast<unsigned char *>(base)), cap_(cap) {
    if (cap_ > 0) stride_ = base->struct_size;
  }
  cr_status Check(const char *fn, const char *what) const {
    if (cap_ == 0) return CR_OK;
    if (stride_ < kFirstLayout<T>) return Fail(CR_EINVAL, SizeMessage<T>(fn, what, stride_));
    return CR_OK;
  }
  // Element i with its struct_size set to the stride, for WriteOutput or
  // FillRoute. REQUIRES: Check() == CR_OK, i < cap.
  T *Element(size_t i) const {
    unsigned char *p = base_ + i * stride_;
    std::memcpy(p + offsetof(T, struct_size), &stride_, sizeof stride_);
    return reinterpret_cast<T *>(p);
  }
  void Write(size_t i, const T &v) const { WriteOutput(Element(i), v); }

 private:
  unsigned char *base_;
  size_t cap_;
  uint32_t stride_ = 0;
};

// ----------------------------------------------------------- shared fillers

// A core routing result as the C struct (all of this library's fields).
inline cr_route RouteValue(const Route &r) {
  cr_route v = CR_ROUTE_INIT;
  v.slot = r.slot;
  v.shard = r.shard;
  v.node_handle = r.node->handle.load(std::memory_order_relaxed);
  v.host = r.node->host.c_str();
  v.port = r.node->port;
  v.role = r.role == Role::kMaster ? CR_ROLE_MASTER : CR_ROLE_REPLICA;
  v.tier = static_cast<cr_tier>(r.tier);
  return v;
}

// A candidate as the C struct: the router's list (with its measured RTT) and
// the shard groups' order (rtt_us 0) fill it the same way.
inline cr_candidate CandidateValue(const Candidate &c, bool down, uint32_t rtt_us) {
  cr_candidate v = CR_CANDIDATE_INIT;
  v.node_handle = c.node->handle.load(std::memory_order_relaxed);
  v.host = c.node->host.c_str();
  v.port = c.node->port;
  v.role = c.role == Role::kMaster ? CR_ROLE_MASTER : CR_ROLE_REPLICA;
  v.tier = static_cast<cr_tier>(c.tier);
  v.rank = c.rank;
  v.weight = c.weight;
  v.rtt_us = rtt_us;
  v.down = down ? 1 : 0;
  return v;
}

// The routing hot path: writes a route into the caller's struct without a
// temporary when the caller's layout is this library's (or larger).
// REQUIRES: OutputOk(out).
inline void FillRoute(cr_route *out, const Route &r) {
  if (out->struct_size >= sizeof(cr_route)) {
    out->slot = r.slot;
    out->shard = r.shard;
    out->node_handle = r.node->handle.load(std::memory_order_relaxed);
    out->host = r.node->host.c_str();
    out->port = r.node->port;
    out->role = r.role == Role::kMaster ? CR_ROLE_MASTER : CR_ROLE_REPLICA;
    out->tier = static_cast<cr_tier>(r.tier);
  } else {
    WriteOutput(out, RouteValue(r));
  }
}

}  // namespace capi
}  // namespace cloudroute
