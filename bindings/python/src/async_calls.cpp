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

void CompleteCall(void *ud, cr_status status, cr_reply *raw) {
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

// The client's completion queue, on before anything is submitted: a
// callback on the engine thread would wait there for the GIL.
void QueueOn(cr_client *c) {
  int fd = -1;
  Check(cr_client_completion_fd(&fd, c));
}

void InitClientAsync(py::module_ &m) {
  auto client = py::reinterpret_borrow<py::class_<Client>>(m.attr("Client"));
  DefCompletionQueue(client, &cr_client_completion_fd, &cr_client_submit,
                     &cr_client_run_completions);
  DefSubmitMulti(client, MultiSubmits<cr_client>{&cr_client_completion_fd, &cr_client_submit_mget,
                                                 &cr_client_submit_mset, &cr_client_submit_del,
                                                 &cr_client_submit_exists});
}

}  // namespace crpy
