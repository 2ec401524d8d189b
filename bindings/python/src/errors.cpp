// The one cr_status -> exception translation of the Python binding. The
// mapping itself is data in cloudroute/errors.py (_BY_STATUS); this file
// only raises the class found there with the C library's message.
#include <climits>

#include "common.hpp"

namespace crpy {

namespace {
// Owned for the life of the process (extension modules are never unloaded).
PyObject *g_by_status = nullptr;  // dict: int status -> exception class
PyObject *g_error = nullptr;      // cloudroute.errors.Error
}  // namespace

void InitErrors(py::module_ &m) {
  py::module_ errors = py::module_::import("cloudroute.errors");
  g_by_status = py::object(errors.attr("_BY_STATUS")).release().ptr();
  g_error = py::object(errors.attr("Error")).release().ptr();
  m.def(
      "status_str",
      [](py::handle status) {
        return std::string(cr_status_str(
            static_cast<cr_status>(BoundedInt(status, "status", INT32_MIN, INT32_MAX))));
      },
      py::arg("status"), "The C library's static text for a status code (cr_status_str).");
}

PyObject *SetStatusError(cr_status status, const std::string &message) {
  PyObject *key = PyLong_FromLong(static_cast<long>(status));
  if (key == nullptr) return nullptr;
  PyObject *cls = PyDict_GetItemWithError(g_by_status, key);  // borrowed
  Py_DECREF(key);
  if (cls == nullptr) {
    if (PyErr_Occurred()) return nullptr;
    cls = g_error;  // a status newer than this binding
  }
  const std::string text = message.empty() ? std::string(cr_status_str(status)) : message;
  // Messages may quote input bytes: never fail on invalid UTF-8.
  PyObject *msg =
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "backslashreplace");
  if (msg == nullptr) return nullptr;
  PyObject *exc = PyObject_CallOneArg(cls, msg);
  Py_DECREF(msg);
  if (exc == nullptr) return nullptr;
  PyObject *code = PyLong_FromLong(static_cast<long>(status));
  if (code == nullptr || PyObject_SetAttrString(exc, "status", code) < 0) {
    Py_XDECREF(code);
    Py_DECREF(exc);
    return nullptr;
  }
  Py_DECREF(code);
  PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(exc)), exc);
  Py_DECREF(exc);
  return nullptr;
}

PyObject *SetStatusError(cr_status status) { return SetStatusError(status, cr_last_error()); }

void ThrowInvalid(const std::string &message) {
  SetStatusError(CR_EINVAL, message);
  throw py::error_already_set();
}

}  // namespace crpy
