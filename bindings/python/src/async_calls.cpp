// Asynchronous calls of the live client for cloudroute.asyncio: submit,
// the completion queue's fd, and running the ready completions
// (cr_client_submit, cr_client_completion_fd, cr_client_run_completions).
// The client's queue is on before the first submit, so every callback runs
// in run_completions (with the GIL, on the event loop's thread) or, when
// the client is freed with calls in flight, in cr_client_free (cancelled;
// the GIL is taken for it).
#include <memory>
#include <string>

#include "client.hpp"
#include "command_args.hpp"

namespace crpy {

namespace {

// A call's Python callback, called as callback(error, value): error None
// and the reply's value, or the exception and None.
void Complete(void *ud, cr_status status, cr_reply *raw) {
  ReplyPtr reply(raw, cr_reply_free);
  py::gil_scoped_acquire gil;
  std::unique_ptr<py::object> callback(static_cast<py::object *>(ud));
  if (Finalizing()) {
    (void)callback.release();  // the interpreter is going: leak, never touch it
    return;
  }
  PyObject *value = nullptr;
  PyObject *error = nullptr;
  if (status == CR_OK) {
    try {
      value = FromReply(reply.get()).release().ptr();
    } catch (py::error_already_set &e) {
      e.restore();
    }
  } else {
    SetStatusError(status);
  }
  if (value == nullptr) {
    PyObject *type = nullptr, *tb = nullptr;
    PyErr_Fetch(&type, &error, &tb);
    PyErr_NormalizeException(&type, &error, &tb);
    if (error != nullptr && tb != nullptr) PyException_SetTraceback(error, tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
  }
  PyObject *r = PyObject_CallFunctionObjArgs(callback->ptr(), error != nullptr ? error : Py_None,
                                             value != nullptr ? value : Py_None, nullptr);
  if (r == nullptr) PyErr_WriteUnraisable(callback->ptr());
  Py_XDECREF(r);
  Py_XDECREF(value);
  Py_XDECREF(error);
}

// The multi-key submits, by name ("mget", "mset", "delete", "exists").
cr_status SubmitMulti(cr_client *c, const std::string &kind, const Args &k, const Args &v,
                      void *ud) {
  if (kind == "mget") return cr_client_submit_mget(c, k.ptrs(), k.lens(), k.size(), &Complete, ud);
  if (kind == "delete") return cr_client_submit_del(c, k.ptrs(), k.lens(), k.size(), &Complete, ud);
  if (kind == "exists") {
    return cr_client_submit_exists(c, k.ptrs(), k.lens(), k.size(), &Complete, ud);
  }
  if (kind == "mset") {
    return cr_client_submit_mset(c, k.ptrs(), k.lens(), v.ptrs(), v.lens(), k.size(), &Complete,
                                 ud);
  }
  ThrowInvalid("unknown multi-key call '" + kind + "' (mget, mset, delete, exists)");
}

}  // namespace

// The client's completion queue, on before anything is submitted: a
// callback on the engine thread would wait there for the GIL.
void QueueOn(cr_client *c) {
  int fd = -1;
  Check(cr_client_completion_fd(&fd, c));
}

void InitClientAsync(py::module_ &m) {
  auto client = py::reinterpret_borrow<py::class_<Client>>(m.attr("Client"));
  client
      .def(
          "completion_fd",
          [](const Client &self) {
            int fd = -1;
            Check(cr_client_completion_fd(&fd, self.Acquire()->c));
            return fd;
          },
          "Turns the completion queue on and returns its fd (readable while completions\n"
          "wait; owned by the client). Call it before the first submit.")
      .def(
          "submit",
          [](const Client &self, py::handle access, py::handle key_index, py::handle args,
             uint32_t timeout_ms, py::object callback) {
            const CommandCall call(access, key_index, args);
            std::shared_ptr<ClientHandle> h = self.Acquire();
            QueueOn(h->c);
            cr_call_options o = CR_CALL_OPTIONS_INIT;
            o.timeout_ms = timeout_ms;
            auto ud = std::make_unique<py::object>(std::move(callback));
            // Not blocking (the first attempt is handed to the engine
            // thread): the GIL is kept.
            Check(cr_client_submit(h->c, &o, call.access, call.key_index, call.argv.size(),
                                   call.argv.ptrs(), call.argv.lens(), &Complete, ud.get()));
            (void)ud.release();  // Complete owns it now
          },
          py::arg("access"), py::arg("key_index"), py::arg("args"), py::arg("timeout_ms"),
          py::arg("callback"),
          "Submits a command on one key (as command); callback(error, value) runs once, in\n"
          "run_completions (or, cancelled, when the client is freed).")
      .def(
          "submit_multi",
          [](const Client &self, const std::string &kind, py::handle keys, py::handle values,
             py::object callback) {
            Args k, v;
            k.Set(keys, "keys");
            v.Set(values, "values");
            if (k.size() == 0) ThrowInvalid(kind + " needs at least one key");
            if (kind == "mset" ? v.size() != k.size() : v.size() != 0) {
              ThrowInvalid(kind + ": " + std::to_string(k.size()) + " keys but " +
                           std::to_string(v.size()) + " values");
            }
            std::shared_ptr<ClientHandle> h = self.Acquire();
            QueueOn(h->c);
            auto ud = std::make_unique<py::object>(std::move(callback));
            // Copied and handed to the engine thread: the GIL is kept.
            Check(SubmitMulti(h->c, kind, k, v, ud.get()));
            (void)ud.release();  // Complete owns it now
          },
          py::arg("kind"), py::arg("keys"), py::arg("values"), py::arg("callback"),
          "Submits a multi-key call in any slots — kind 'mget', 'mset' (values, one per\n"
          "key), 'delete' or 'exists' (values empty); callback(error, value) runs once, in\n"
          "run_completions (or, cancelled, when the client is freed).")
      .def(
          "run_completions",
          [](const Client &self, size_t max) {
            size_t ran = 0;
            Check(cr_client_run_completions(&ran, self.Acquire()->c, max));
            return ran;
          },
          py::arg("max") = 0, "Runs up to max ready completions (0: all): how many ran.");
}

}  // namespace crpy
