// Asynchronous calls of the live client for cloudroute.asyncio: submit,
// the completion queue's fd, and running the ready completions
// (cr_client_submit, cr_client_completion_fd, cr_client_run_completions).
// The client's queue is on before the first submit, so every callback runs
// in run_completions (with the GIL, on the event loop's thread) or, when
// the client is freed with calls in flight, in cr_client_free (cancelled;
// the GIL is taken for it).
#include <memory>

#include "client.hpp"

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

}  // namespace

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
            // The queue first (idempotent): a callback on the engine thread
            // would wait there for the GIL.
            int fd = -1;
            Check(cr_client_completion_fd(&fd, h->c));
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
          "run_completions",
          [](const Client &self, size_t max) {
            size_t ran = 0;
            Check(cr_client_run_completions(&ran, self.Acquire()->c, max));
            return ran;
          },
          py::arg("max") = 0, "Runs up to max ready completions (0: all): how many ran.");
}

}  // namespace crpy
