// Internal to capi/: the one guard every entry point runs in, the thread-
// local error message, and the handle structs behind the opaque typedefs.
#pragma once

#include <atomic>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "cloudroute.h"
#include "cloudroute/core/router.hpp"
#include "cloudroute/core/status.hpp"
#include "cloudroute/core/topology.hpp"

struct cr_topology {
  std::atomic<int> refs{1};
  std::shared_ptr<const cloudroute::Topology> t;
};

struct cr_config {
  cloudroute::RouterConfig cfg;
};

struct cr_router {
  explicit cr_router(cloudroute::RouterConfig cfg) : router(std::move(cfg)) {}
  cloudroute::Router router;
};

struct cr_snapshot {
  std::shared_ptr<const cloudroute::Snapshot> s;
};

namespace cloudroute {
namespace capi {

const char *LastError();

// Records msg as this thread's last error and returns status.
cr_status Fail(cr_status status, const std::string &msg);
inline cr_status Fail(const Status &s) { return Fail(static_cast<cr_status>(s.code()), s.message()); }
inline cr_status Check(const Status &s) { return s.ok() ? CR_OK : Fail(s); }

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

// Copies a core routing result into the C struct (never past its v1 fields).
inline void FillRoute(cr_route *out, const Route &r) {
  out->slot = r.slot;
  out->shard = r.shard;
  out->node = r.node->handle;
  out->host = r.node->host.c_str();
  out->port = r.node->port;
  out->role = r.role == Role::kMaster ? CR_ROLE_MASTER : CR_ROLE_REPLICA;
  out->tier = static_cast<cr_tier>(r.tier);
}

// A NUL-terminated C string argument, refused when NULL.
inline cr_status NeedString(const char *s, const char *what) {
  if (s == nullptr) return Fail(CR_EINVAL, std::string(what) + " is NULL");
  return CR_OK;
}

// Output structs carry their size; a caller built against an older header
// passes a smaller one, a newer caller a larger one. We never write past it.
template <typename T>
bool SizeOk(const T *out) {
  return out != nullptr && out->struct_size >= sizeof(T);
}

}  // namespace capi
}  // namespace cloudroute
