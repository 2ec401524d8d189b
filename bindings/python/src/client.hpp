// Internal to the binding: the live client's handle, argument and reply
// conversion, shared by its sections (client.cpp: the client and its plain
// commands; commands.cpp: per-call timeouts, node-targeted commands, SCAN,
// scripts, pinned connections).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "command_args.hpp"
#include "common.hpp"

namespace crpy {

struct ClientHandle {
  cr_client *c = nullptr;
  const uint64_t generation = ForkGeneration();  // see common.hpp, "fork"
  ClientHandle() = default;
  ClientHandle(const ClientHandle &) = delete;
  ClientHandle &operator=(const ClientHandle &) = delete;
  bool forked() const { return generation != ForkGeneration(); }
  ~ClientHandle() {
    if (forked()) return;  // the parent's: leaked on purpose (common.hpp, "fork")
    // Freeing joins the refresher thread, which may be waiting for the GIL
    // to log an event: never free while holding it.
    WithoutGil([this] { cr_client_free(c); });
  }
};

struct Client {
  std::shared_ptr<ClientHandle> h;  // read and reset with the GIL held only

  std::shared_ptr<ClientHandle> Acquire() const {
    if (!h) ThrowInvalid("the client is closed");
    if (h->forked()) ThrowForked("the client");
    return h;
  }
};

using ReplyPtr = std::unique_ptr<cr_reply, void (*)(cr_reply *)>;

// Runs f(cr_client *) without the GIL, holding a reference to the handle;
// a signal handler that raised meanwhile ends the wait and raises here
// (common.hpp, "signals").
template <class F>
cr_status NoGil(const Client &self, F f) {
  std::shared_ptr<ClientHandle> h = self.Acquire();
  GiveWayToSignals();
  cr_status st;
  {
    py::gil_scoped_release nogil;
    st = f(h->c);
    h.reset();  // the last reference (after close()) frees here, without the GIL
  }
  RaiseSignalError(st);
  return st;
}

// A failed command's (or key's) result: the exception object its status
// maps to (cloudroute.errors), with the message and .status set, not raised.
py::object StatusException(cr_status status, const std::string &message);

// Results by position (cr_pipeline_execute, the Sentinel client's batches):
// replies[i] (owned: freed here) as Python, or — when statuses[i] is not
// CR_OK — the exception object of its ERROR reply's message, not raised.
py::list ResultList(const std::vector<cr_reply *> &replies, const std::vector<cr_status> &statuses);

// Arguments (Args, CommandCall): command_args.hpp, shared with the Sentinel
// client. FromReply and ReplyResult: common.hpp.

// ---- shared with the pre-sharded client (sharded_client.cpp) --------------

// The counters of cr_client_get_stats / cr_sharded_client_get_stats as a
// cloudroute.ClientStats.
py::object ClientStatsRecord(const cr_client_stats &s);

// cr_client_get_node_stats and the Sentinel and pre-sharded clients' as a
// list of cloudroute.NodeStats; fill(out, cap, needed) is the C call (with
// the client held), the hosts copied while it is.
using NodeStatsFn = std::function<cr_status(cr_client_node_stats *, size_t, size_t *)>;
py::list NodeStatsList(const NodeStatsFn &fill);

// A cloudroute._native.Scan: make(out, opts) creates the C scan (no
// network); owner is the client handle it keeps alive (made in this
// process: a Scan after a fork refuses to run).
using MakeScanFn = std::function<cr_status(cr_scan **, const cr_scan_options *)>;
py::object NewScanOf(std::shared_ptr<void> owner, py::handle match, py::handle count,
                     py::handle type, py::handle timeout_ms, const MakeScanFn &make);

// The per-call options of a timeout in ms (None: the tier's).
cr_call_options CallOptions(py::handle timeout_ms);

// The cr_script of a cloudroute._native.Script (TypeError for anything else).
const cr_script *ScriptHandle(py::handle script);

// A cr_node_replies as a list of (address, Role, reply or exception); frees it.
py::list NodeRepliesList(cr_status st, cr_node_replies *raw);

// Runs (access, key_index or (host, port), args) tuples on the pipeline p
// (owned: freed here): a list of results in order, a failed command's
// exception object (not raised) in its place.
py::list RunPipeline(cr_pipeline *p, py::handle commands);

// Turns c's completion queue on (idempotent): before anything is submitted,
// since a callback on the engine thread would wait there for the GIL.
void QueueOn(cr_client *c);

// A submitted call's completion (cr_completion_fn): ud is a heap
// py::object, called (with the GIL) as callback(error, value) — error None
// and the reply's value, or the exception and None — and freed.
void CompleteCall(void *ud, cr_status status, cr_reply *raw);

// completion_fd, submit and run_completions on cls, a client class whose
// handle has a completion queue (the cluster and the Sentinel clients):
// fd, submit and run are its cr_*_completion_fd, cr_*_submit and
// cr_*_run_completions. The queue is on before the first submit (a
// callback on the engine thread would wait there for the GIL), so every
// callback runs in run_completions, with the GIL, on the caller's thread
// — or, cancelled, when the client is freed.
template <typename Cls, typename Handle>
void DefCompletionQueue(Cls &cls, cr_status (*fd)(int *, Handle *),
                        cr_status (*submit)(Handle *, const cr_call_options *, cr_access, size_t,
                                            size_t, const void *const *, const size_t *,
                                            cr_completion_fn, void *),
                        cr_status (*run)(size_t *, Handle *, size_t)) {
  using Self = typename Cls::type;
  cls.def(
         "completion_fd",
         [fd](const Self &self) {
           int out = -1;
           Check(fd(&out, self.Acquire()->c));
           return out;
         },
         "Turns the completion queue on and returns its fd (readable while completions\n"
         "wait; owned by the client). Call it before the first submit.")
      .def(
          "submit",
          [fd, submit](const Self &self, py::handle access, py::handle key_index, py::handle args,
                       uint32_t timeout_ms, py::object callback) {
            const CommandCall call(access, key_index, args);
            auto h = self.Acquire();
            int queue = -1;
            Check(fd(&queue, h->c));
            cr_call_options o = CR_CALL_OPTIONS_INIT;
            o.timeout_ms = timeout_ms;
            auto ud = std::make_unique<py::object>(std::move(callback));
            // Not blocking (the first attempt is handed to the engine
            // thread): the GIL is kept.
            Check(submit(h->c, &o, call.access, call.key_index, call.argv.size(), call.argv.ptrs(),
                         call.argv.lens(), &CompleteCall, ud.get()));
            (void)ud.release();  // CompleteCall owns it now
          },
          py::arg("access"), py::arg("key_index"), py::arg("args"), py::arg("timeout_ms"),
          py::arg("callback"),
          "Submits a command on one key (as command); callback(error, value) runs once, in\n"
          "run_completions (or, cancelled, when the client is freed).")
      .def(
          "run_completions",
          [run](const Self &self, size_t max) {
            size_t ran = 0;
            Check(run(&ran, self.Acquire()->c, max));
            return ran;
          },
          py::arg("max") = 0, "Runs up to max ready completions (0: all): how many ran.");
}

// A client's multi-key submits (cr_*_submit_mget, _mset, _del, _exists)
// and its completion queue's fd.
template <typename Handle>
struct MultiSubmits {
  using Keys = cr_status (*)(Handle *, const void *const *, const size_t *, size_t,
                             cr_completion_fn, void *);
  cr_status (*fd)(int *, Handle *);
  Keys mget;
  cr_status (*mset)(Handle *, const void *const *, const size_t *, const void *const *,
                    const size_t *, size_t, cr_completion_fn, void *);
  Keys del;
  Keys exists;
};

// submit_multi on cls: a multi-key call in any places — kind "mget",
// "mset" (values, one per key), "delete" or "exists" (values empty) —
// copied and handed to the engine thread (the GIL is kept); callback(error,
// value) runs once, in run_completions (or, cancelled, when the client is
// freed).
template <typename Cls, typename Handle>
void DefSubmitMulti(Cls &cls, MultiSubmits<Handle> f) {
  using Self = typename Cls::type;
  cls.def(
      "submit_multi",
      [f](const Self &self, const std::string &kind, py::handle keys, py::handle values,
          py::object callback) {
        Args k, v;
        k.Set(keys, "keys");
        v.Set(values, "values");
        if (k.size() == 0) ThrowInvalid(kind + " needs at least one key");
        if (kind == "mset" ? v.size() != k.size() : v.size() != 0) {
          ThrowInvalid(kind + ": " + std::to_string(k.size()) + " keys but " +
                       std::to_string(v.size()) + " values");
        }
        if (kind != "mget" && kind != "mset" && kind != "delete" && kind != "exists") {
          ThrowInvalid("unknown multi-key call '" + kind + "' (mget, mset, delete, exists)");
        }
        auto h = self.Acquire();
        int queue = -1;
        Check(f.fd(&queue, h->c));
        auto ud = std::make_unique<py::object>(std::move(callback));
        cr_status st;
        if (kind == "mset") {
          st = f.mset(h->c, k.ptrs(), k.lens(), v.ptrs(), v.lens(), k.size(), &CompleteCall,
                      ud.get());
        } else {
          st = (kind == "mget" ? f.mget
                : kind == "delete"
                    ? f.del
                    : f.exists)(h->c, k.ptrs(), k.lens(), k.size(), &CompleteCall, ud.get());
        }
        Check(st);
        (void)ud.release();  // CompleteCall owns it now
      },
      py::arg("kind"), py::arg("keys"), py::arg("values"), py::arg("callback"),
      "Submits a multi-key call in any places — kind 'mget', 'mset' (values, one per\n"
      "key), 'delete' or 'exists' (values empty); callback(error, value) runs once, in\n"
      "run_completions (or, cancelled, when the client is freed).");
}

}  // namespace crpy
