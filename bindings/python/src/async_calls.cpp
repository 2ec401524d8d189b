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

namespace {

// The multi-key submits, by name ("mget", "mset", "delete", "exists").
cr_status SubmitMulti(cr_client *c, const std::string &kind, const Args &k, const Args &v,
                      void *ud) {
  if (kind == "mget")
    return cr_client_submit_mget(c, k.ptrs(), k.lens(), k.size(), &CompleteCall, ud);
  if (kind == "delete")
    return cr_client_submit_del(c, k.ptrs(), k.lens(), k.size(), &CompleteCall, ud);
  if (kind == "exists") {
    return cr_client_submit_exists(c, k.ptrs(), k.lens(), k.size(), &CompleteCall, ud);
  }
  if (kind == "mset") {
    return cr_client_submit_mset(c, k.ptrs(), k.lens(), v.ptrs(), v.lens(), k.size(), &CompleteCall,
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
  DefCompletionQueue(client, &cr_client_completion_fd, &cr_client_submit,
                     &cr_client_run_completions);
  client.def(
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
        (void)ud.release();  // CompleteCall owns it now
      },
      py::arg("kind"), py::arg("keys"), py::arg("values"), py::arg("callback"),
      "Submits a multi-key call in any slots — kind 'mget', 'mset' (values, one per\n"
      "key), 'delete' or 'exists' (values empty); callback(error, value) runs once, in\n"
      "run_completions (or, cancelled, when the client is freed).");
}

}  // namespace crpy
