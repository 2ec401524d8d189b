// Pipelines: cloudroute._native.execute_pipeline over cr_pipeline_*.
// Conversion only: routing, grouping per node, redirects and retries all
// happen in the C library. The Python Pipeline class (cloudroute/
// pipeline.py) queues the commands and calls this once per execute().
//
// Threading: the queued arguments are borrowed by the C pipeline (it copies
// nothing until the wire), so every Args stays alive, with its buffers
// export-locked, until cr_pipeline_execute has returned; the GIL is released
// around that call only.
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "client.hpp"

namespace crpy {

namespace {

using PipelinePtr = std::unique_ptr<cr_pipeline, void (*)(cr_pipeline *)>;

// Queues one (access, target, args) tuple: target is a key index or a
// (host, port) node.
void Queue(cr_pipeline *p, py::handle command, Args *argv) {
  if (!PyTuple_Check(command.ptr()) || PyTuple_GET_SIZE(command.ptr()) != 3) {
    ThrowInvalid("each pipeline command must be a tuple (access, key_index or (host, port), args)");
  }
  const py::tuple t = py::reinterpret_borrow<py::tuple>(command);
  const cr_access access = AccessOf(t[0]);
  argv->Set(t[2], "args");
  if (argv->size() == 0) ThrowInvalid("a command needs at least one argument");
  if (PyTuple_Check(t[1].ptr())) {
    const py::tuple node = py::reinterpret_borrow<py::tuple>(t[1]);
    if (node.size() != 2) ThrowInvalid("a node is a (host, port) tuple");
    const std::string host = CString(node[0], "host");
    const auto port = static_cast<uint16_t>(BoundedInt(node[1], "port", 1, 65535));
    Check(cr_pipeline_add_node(p, access, host.c_str(), port, argv->size(), argv->ptrs(),
                               argv->lens()));
    return;
  }
  const auto ki = static_cast<size_t>(BoundedInt(t[1], "key_index", 0, INT32_MAX));
  if (ki >= argv->size()) {
    ThrowInvalid("key_index " + std::to_string(ki) + " is not below the argument count " +
                 std::to_string(argv->size()));
  }
  Check(cr_pipeline_add(p, access, ki, argv->size(), argv->ptrs(), argv->lens()));
}

py::list ExecutePipeline(const Client &self, py::handle commands) {
  std::shared_ptr<ClientHandle> h = self.Acquire();
  cr_pipeline *raw = nullptr;
  Check(cr_pipeline_new(&raw, h->c));
  return RunPipeline(raw, commands);
}

// Queues every command on p; *argv keeps their arguments (the C pipeline
// borrows them until it runs, or until its submit returns). How many.
size_t QueueAll(cr_pipeline *p, py::handle commands, std::deque<Args> *argv) {
  const py::tuple cmds = py::reinterpret_steal<py::tuple>([&] {
    PyObject *t = PySequence_Tuple(commands.ptr());
    if (t == nullptr) throw py::error_already_set();
    return t;
  }());
  for (size_t i = 0; i < cmds.size(); ++i) {
    argv->emplace_back();  // stable addresses: a deque
    Queue(p, cmds[i], &argv->back());
  }
  return cmds.size();
}

// A submitted pipeline's completion (cr_pipeline_completion_fn), run with
// the GIL taken: callback(None, results) as execute_pipeline's list, or
// callback(exception, None) when no result could be made.
void PipelineDone(void *ud, cr_status status, size_t n, cr_reply *const *replies,
                  const cr_status *statuses) {
  std::vector<cr_reply *> owned(replies, replies + n);
  const std::vector<cr_status> codes(statuses, statuses + n);
  py::gil_scoped_acquire gil;
  std::unique_ptr<py::object> callback(static_cast<py::object *>(ud));
  if (Finalizing()) {
    (void)callback.release();  // the interpreter is going: leak, never touch it
    for (cr_reply *r : owned) cr_reply_free(r);
    return;
  }
  try {
    if (n > 0 && owned[0] == nullptr) {
      (*callback)(StatusException(status, cr_last_error()), py::none());
    } else {
      (*callback)(py::none(), ResultList(owned, codes));
    }
  } catch (py::error_already_set &e) {
    e.restore();
    PyErr_WriteUnraisable(callback->ptr());
  }
}

// Queues the commands on a new pipeline of client and submits it: callback
// runs once, in the client's run_completions (or, cancelled, when it is
// freed). The pipeline copies the commands: it is freed on return.
void SubmitPipeline(const Client &self, py::handle commands, py::object callback) {
  std::shared_ptr<ClientHandle> h = self.Acquire();
  QueueOn(h->c);
  cr_pipeline *raw = nullptr;
  Check(cr_pipeline_new(&raw, h->c));
  PipelinePtr p(raw, cr_pipeline_free);
  std::deque<Args> argv;
  QueueAll(p.get(), commands, &argv);
  auto ud = std::make_unique<py::object>(std::move(callback));
  // Not blocking (the legs are handed to the engine thread): the GIL is kept.
  Check(cr_pipeline_submit(p.get(), &PipelineDone, ud.get()));
  (void)ud.release();  // PipelineDone owns it now
}

}  // namespace

py::list RunPipeline(cr_pipeline *raw, py::handle commands) {
  PipelinePtr p(raw, cr_pipeline_free);
  std::deque<Args> argv;
  const size_t n = QueueAll(p.get(), commands, &argv);
  std::vector<cr_reply *> replies(n, nullptr);
  std::vector<cr_status> statuses(n, CR_OK);
  size_t needed = 0;
  cr_status st;
  {
    py::gil_scoped_release nogil;
    st = cr_pipeline_execute(replies.data(), statuses.data(), n, &needed, p.get());
  }
  // A status with no results in place is the call's own failure.
  if (n > 0 && replies[0] == nullptr) Check(st);
  return ResultList(replies, statuses);
}

py::object StatusException(cr_status status, const std::string &message) {
  SetStatusError(status, message);
  py::error_already_set e;  // takes the exception just set
  return e.value();
}

py::list ResultList(const std::vector<cr_reply *> &replies,
                    const std::vector<cr_status> &statuses) {
  std::vector<ReplyPtr> owned;
  owned.reserve(replies.size());
  for (cr_reply *r : replies) owned.emplace_back(r, cr_reply_free);
  py::list out(replies.size());
  for (size_t i = 0; i < replies.size(); ++i) {
    if (statuses[i] == CR_OK) {
      out[i] = FromReply(owned[i].get());
    } else {
      size_t len = 0;
      const char *msg = cr_reply_get_string(owned[i].get(), &len);
      out[i] = StatusException(statuses[i], std::string(msg, len));
    }
  }
  return out;
}

void InitPipeline(py::module_ &m) {
  m.def("execute_pipeline", &ExecutePipeline, py::arg("client"), py::arg("commands"),
        "Runs commands — (access, key_index or (host, port), args) tuples — at once on\n"
        "client: grouped per node, every node in flight together. A list in order; a\n"
        "failed command's place holds its exception object (not raised).");
  m.def("submit_pipeline", &SubmitPipeline, py::arg("client"), py::arg("commands"),
        py::arg("callback"),
        "Submits commands as execute_pipeline runs them, without waiting: callback(error,\n"
        "results) runs once, in the client's run_completions (results as\n"
        "execute_pipeline's list; or, cancelled, when the client is freed).");
}

}  // namespace crpy
