// Shared plumbing of the cloudroute._native extension: argument conversion
// (keys, C strings, bounded integers) and the one cr_status -> exception
// translation. No routing logic lives in the extension: every decision is a
// call into the C API (cloudroute.h).
//
// Threading: every helper here runs with the GIL held. Calls that may take
// long (parsing, router updates, ring builds, large batches) release the GIL
// around the C call only; the Python objects whose memory the C call reads
// are kept alive (and, for buffers, export-locked) by the caller for its
// duration.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cloudroute.h"

namespace crpy {

namespace py = pybind11;

// Batches at least this long release the GIL around the C call; shorter ones
// finish in less time than releasing and re-taking the GIL costs.
constexpr size_t kNoGilBatch = 2048;

// ---- classes --------------------------------------------------------------

// A Python object whose __init__ raised (a native factory that threw, a check
// in a Python subclass before super().__init__()), or that only __new__ made,
// has no C++ value, yet stays reachable (a traceback frame's `self`). Loading
// `self` of such an object, pybind11 would allocate raw, uninitialized memory
// for the value (through the type's operator_new: the lazy allocation that
// old-style placement-new constructors needed, and nothing here uses), and the
// method would read garbage handles and crash. Every native class is bound
// with NativeClass, which makes that allocation raise TypeError ("<class> was
// not initialized: ...") instead: the check sits on pybind11's path for a
// missing value only, so a constructed object's calls cost nothing more.
template <typename T>
void *RefuseUninitialized(size_t) {
  const py::detail::type_info *info = py::detail::get_type_info(typeid(T));
  throw py::type_error(std::string(info->type->tp_name) +
                       " was not initialized: its constructor raised (or only __new__ ran); "
                       "make a new one");
}

template <typename T, typename... Extra>
py::class_<T> NativeClass(py::handle scope, const char *name, const Extra &...extra) {
  py::class_<T> cls(scope, name, extra...);
  py::detail::get_type_info(typeid(T))->operator_new = &RefuseUninitialized<T>;
  return cls;
}

// ---- errors ---------------------------------------------------------------

// Loads the exception classes of cloudroute.errors (called once at import).
void InitErrors(py::module_ &m);

// Sets the Python exception for a failed C call: the class mapped from
// status by cloudroute.errors, with cr_last_error() as its message.
// Returns nullptr so raw CPython functions can `return SetStatusError(st);`.
PyObject *SetStatusError(cr_status status);
PyObject *SetStatusError(cr_status status, const std::string &message);

// Throws (via pybind11) when status is not CR_OK.
inline void Check(cr_status status) {
  if (status != CR_OK) {
    SetStatusError(status);
    throw py::error_already_set();
  }
}

// Raises cloudroute.InvalidArgumentError (a ValueError) for an argument the
// binding refuses before reaching C (out-of-range integer, NUL in a string).
[[noreturn]] void ThrowInvalid(const std::string &message);

// ---- fork -----------------------------------------------------------------

// How many fork()s this process is from the one that loaded the module (a
// pthread_atfork child handler counts them). A live client made in another
// generation belongs to an ancestor: its threads do not exist here and its
// sockets are shared with that process. Such a client refuses every call
// (ThrowForked: InvalidArgumentError saying to make a new client) and is
// never freed — leaked on purpose, since freeing joins threads that are not
// there and could write on the parent's connections.
uint64_t ForkGeneration();
[[noreturn]] void ThrowForked(const char *what);

// ---- signals --------------------------------------------------------------

// A live client's call waits without the GIL; on the main thread (the one
// Python runs signal handlers on) the C library is given an interrupt check
// (cr_thread_set_interrupt_check) that runs them about every 50 ms of a
// wait. A handler that raises (KeyboardInterrupt on Ctrl-C) ends the wait:
// the connection is closed, and the call raises that exception. A command
// already sent may have run (a write applied; an element a blocking pop took
// is lost with its reply). GiveWayToSignals, with the GIL, before releasing
// it for a call (sets the check once per thread); RaiseSignalError, with the
// GIL again, after: raises the pending exception of a failed call.
void GiveWayToSignals();
void RaiseSignalError(cr_status st);
// Whether this is the thread Python runs signal handlers on (a wait the C
// library cannot interrupt — cr_subscription_next — waits there in slices,
// running them in between).
bool OnMainThread();

void InitProcess();  // from the module's init: the fork handler, the main thread

// ---- a client of shard groups ---------------------------------------------

// A C client a Python object owns (cr_sentinel_client, cr_sharded_client):
// freed by the last reference, never in a forked child (see "fork"); Name
// ("the Sentinel client") is what errors call it. Acquire() refuses a closed
// or inherited client; Released(f) runs f(T *) without the GIL, holding a
// reference, and raises a signal handler's exception (see "signals").
template <class T, void (*Free)(T *), const char *Name>
struct OwnedClient {
  struct Handle {
    T *c = nullptr;
    const uint64_t generation = ForkGeneration();
    Handle() = default;
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;
    bool forked() const { return generation != ForkGeneration(); }
    ~Handle() {
      if (!forked()) Free(c);  // else the parent's: leaked on purpose
    }
  };
  std::shared_ptr<Handle> h;  // read and reset with the GIL held only

  std::shared_ptr<Handle> Acquire() const {
    if (!h) ThrowInvalid(std::string(Name) + " is closed");
    if (h->forked()) ThrowForked(Name);
    return h;
  }

  template <class F>
  cr_status Released(F f) const {
    std::shared_ptr<Handle> ref = Acquire();
    GiveWayToSignals();
    cr_status st;
    {
      py::gil_scoped_release nogil;
      st = f(ref->c);
      ref.reset();  // the last reference (after close()) frees here, without the GIL
    }
    RaiseSignalError(st);
    return st;
  }
};

// Runs f() without the GIL, releasing it when this thread holds it: for
// frees that join a library thread, which may be waiting for the GIL to log
// an event.
template <class F>
void WithoutGil(F f) {
  if (PyGILState_Check() != 0) {
    py::gil_scoped_release nogil;
    f();
  } else {
    f();
  }
}

// Whether the interpreter is shutting down (no Python call may be made from
// a library thread then).
bool Finalizing();

// ---- keys -----------------------------------------------------------------

// A borrowed view of a key: bytes (any subclass), str (its UTF-8 bytes,
// cached inside the str object), or any C-contiguous buffer (bytearray,
// memoryview, array...). Buffer exports are released by the destructor.
class KeyArg {
 public:
  KeyArg() = default;
  KeyArg(const KeyArg &) = delete;
  KeyArg &operator=(const KeyArg &) = delete;
  ~KeyArg() {
    if (has_buffer_) PyBuffer_Release(&buffer_);
  }
  // Returns false with a Python exception set (TypeError or
  // UnicodeEncodeError). what names the argument in messages.
  bool Set(PyObject *obj, const char *what);
  const char *data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const char *data_ = "";
  size_t size_ = 0;
  Py_buffer buffer_{};
  bool has_buffer_ = false;
};

// The key of obj without a KeyArg when it is bytes or str (the common
// case). Returns 1 on success, 0 when obj is neither (use KeyArg), -1 with
// a Python exception set (a str with lone surrogates).
inline int FastKey(PyObject *obj, const char **data, Py_ssize_t *len) {
  if (PyBytes_Check(obj)) {
    *data = PyBytes_AS_STRING(obj);
    *len = PyBytes_GET_SIZE(obj);
    return 1;
  }
  if (PyUnicode_Check(obj)) {
    *data = PyUnicode_AsUTF8AndSize(obj, len);
    return *data != nullptr ? 1 : -1;
  }
  return 0;
}

// Many keys for the batch calls. Set() takes an owned tuple of the keys
// (a list could be mutated by another thread while the GIL is released, a
// generator is consumed once); Load() then fills pointers and lengths for a
// range of them, valid until the next Load() or the destructor. Callers
// load everything at once (one C call on one snapshot) or chunk by chunk
// (the keys' bytes are still in cache when C reads them).
class KeyBatch {
 public:
  KeyBatch() = default;
  KeyBatch(const KeyBatch &) = delete;
  KeyBatch &operator=(const KeyBatch &) = delete;
  ~KeyBatch();
  // Accepts any iterable of keys. Returns false with a Python exception set.
  bool Set(PyObject *iterable, const char *what);
  size_t size() const { return size_; }
  // Keys [begin, begin + count). Returns false with a Python exception set.
  bool Load(size_t begin, size_t count);
  // Set() then Load() of every key.
  bool SetAll(PyObject *iterable, const char *what) {
    return Set(iterable, what) && Load(0, size_);
  }
  const void *const *ptrs() const { return ptrs_.data(); }
  const size_t *lens() const { return lens_.data(); }

 private:
  void ReleaseBuffers();
  const char *what_ = "keys";
  PyObject *tuple_ = nullptr;
  size_t size_ = 0;
  std::vector<const void *> ptrs_;
  std::vector<size_t> lens_;
  std::vector<Py_buffer> buffers_;
};

// ---- strings and integers ------------------------------------------------

// A str argument as a NUL-terminated UTF-8 C string (the C API copies it).
// TypeError for a non-str, UnicodeEncodeError for lone surrogates,
// InvalidArgumentError for an embedded NUL.
std::string CString(py::handle obj, const char *what);

// An int argument (anything with __index__, not bool) in [lo, hi].
// TypeError for other types; InvalidArgumentError when out of range.
int64_t BoundedInt(py::handle obj, const char *what, int64_t lo, int64_t hi);
uint32_t U32(py::handle obj, const char *what);
uint16_t Port(py::handle obj, const char *what = "port");
// An unsigned 64-bit argument: 0 .. 2**64-1, and with allow_negative also
// a negative Java long (-2**63 ..), taken as its two's-complement bits.
uint64_t U64OrLong(py::handle obj, const char *what, bool allow_negative);

// ---- records (cloudroute.Route, Candidate, Node, Shard) ----------------

// Creates the struct-sequence types and loads the enum members of
// cloudroute._types (Role, Tier, Health) they carry.
void InitRecords(py::module_ &m);
py::object MakeRoute(const cr_route &r);
py::object MakeCandidate(const cr_candidate &c);

// Runs fill(buf, cap, &count) until the buffer is large enough (the
// topology may change between two calls), then makes the records.
template <class Fill>
inline py::list Candidates(Fill fill) {
  std::vector<cr_candidate> buf(16);
  for (;;) {
    for (cr_candidate &c : buf) c.struct_size = sizeof(cr_candidate);
    size_t count = 0;
    const cr_status st = fill(buf.data(), buf.size(), &count);
    if (st == CR_EBUFS && count > buf.size()) {
      buf.resize(count);
      continue;
    }
    Check(st);
    py::list out;
    for (size_t i = 0; i < count; ++i) out.append(MakeCandidate(buf[i]));
    return out;
  }
}

py::object MakeNode(const cr_node_info &n);
// The Tier member for a C tier value (an int for a value newer than this binding).
py::object TierMember(int tier);
py::object MakeShard(size_t index, const char *id, py::object ranges, py::object nodes);

// ---- sections ---------------------------------------------------------------

void InitKeyslot(py::module_ &m);
void InitTopology(py::module_ &m);
void InitConfig(py::module_ &m);
void InitRouter(py::module_ &m);
void InitRing(py::module_ &m);
void InitShardGroups(py::module_ &m);
void InitClient(py::module_ &m);
void InitSentinelClient(py::module_ &m);
void InitClientCommands(py::module_ &m);  // after InitClient: adds to its Client
void InitClientAsync(py::module_ &m);     // after InitClient: submit, completions
// Sends the events of clients made from cfg to logging.getLogger("cloudroute").
void RouteLogsToLogging(cr_config *cfg);
void InitPipeline(py::module_ &m);
void InitShardedClient(py::module_ &m);  // after InitClientCommands and InitPipeline
void InitPubSub(py::module_ &m);         // after InitClient: subscriptions, publish

// Wrapped handles, shared between sections.
struct Topology {
  cr_topology *t = nullptr;
  explicit Topology(cr_topology *topo) : t(topo) {}
  Topology(const Topology &) = delete;
  Topology &operator=(const Topology &) = delete;
  ~Topology() { cr_topology_free(t); }
};

struct Config {
  cr_config *cfg = nullptr;
  Config() { Check(cr_config_new(&cfg)); }
  Config(const Config &) = delete;
  Config &operator=(const Config &) = delete;
  ~Config() { cr_config_free(cfg); }
};

// A router: owned (freed with the object), or borrowed from a live client
// (owner keeps the client's handle alive, and with it the router, for as
// long as the Python object lives).
struct Router {
  cr_router *r = nullptr;
  std::shared_ptr<void> owner;
  Router() = default;
  Router(const Router &) = delete;
  Router &operator=(const Router &) = delete;
  ~Router() {
    if (!owner) cr_router_free(r);
  }
};

// A cloudroute.Router over a client's borrowed router.
py::object BorrowedRouter(cr_router *r, std::shared_ptr<void> owner);

struct Ring {
  cr_ring *ring = nullptr;
  Ring() = default;
  Ring(const Ring &) = delete;
  Ring &operator=(const Ring &) = delete;
  ~Ring() { cr_ring_free(ring); }
};

// The cr_config of an optional Config argument (None -> NULL: defaults).
const cr_config *ConfigOrNull(py::handle cfg);

// A shard-group table: owned, or borrowed from a Sentinel client (owner
// keeps the client's handle, and with it the table, alive), as Router.
struct ShardGroups {
  cr_shard_groups *g = nullptr;
  std::shared_ptr<void> owner;
  ShardGroups() = default;
  ShardGroups(const ShardGroups &) = delete;
  ShardGroups &operator=(const ShardGroups &) = delete;
  ~ShardGroups() {
    if (!owner) cr_shard_groups_free(g);
  }
};

// A cloudroute.ShardGroups over a Sentinel client's borrowed table.
py::object BorrowedShardGroups(cr_shard_groups *g, std::shared_ptr<void> owner);

// ---- live clients (client.cpp, shared with sentinel_client.cpp) -----------

// A reply as a Python value (bytes, str, int, None, list, dict, ...).
py::object FromReply(const cr_reply *r);
// Frees raw, raises for a failed status, else converts the reply.
py::object ReplyResult(cr_status st, cr_reply *raw);
// command_timeout_ms as one int for every tier or a sequence of 5 (by Tier).
void TierTimeouts(py::handle v, uint32_t (&out)[CR_TIER_COUNT]);

}  // namespace crpy
