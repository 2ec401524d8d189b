// What the live client's Python classes share (client.cpp, pipeline.cpp):
// the handle of a cr_client, calls without the GIL, command arguments as
// (pointer, length) pairs, and replies as Python objects.
//
// Threading: as common.hpp; a Client is shared between threads.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "common.hpp"

namespace crpy {

struct ClientHandle {
  cr_client *c = nullptr;
  ClientHandle() = default;
  ClientHandle(const ClientHandle &) = delete;
  ClientHandle &operator=(const ClientHandle &) = delete;
  ~ClientHandle() { cr_client_free(c); }
};

struct Client {
  std::shared_ptr<ClientHandle> h;  // read and reset with the GIL held only

  std::shared_ptr<ClientHandle> Acquire() const {
    if (!h) ThrowInvalid("the client is closed");
    return h;
  }
};

using ReplyPtr = std::unique_ptr<cr_reply, void (*)(cr_reply *)>;

// Runs f(cr_client *) without the GIL, holding a reference to the handle.
template <class F>
cr_status NoGil(const Client &self, F f) {
  std::shared_ptr<ClientHandle> h = self.Acquire();
  cr_status st;
  {
    py::gil_scoped_release nogil;
    st = f(h->c);
    h.reset();  // the last reference (after close()) frees here, without the GIL
  }
  return st;
}

// ---- arguments ----------------------------------------------------------

// Command arguments as (pointer, length) pairs, kept valid while the GIL is
// released: bytes/str are immutable and held by an owned tuple; other
// buffers are export-locked (a bytearray cannot be resized); int and float
// are formatted as redis-py does (str(int), repr(float)).
class Args {
 public:
  Args() = default;
  Args(const Args &) = delete;
  Args &operator=(const Args &) = delete;
  ~Args() {
    for (Py_buffer &b : buffers_) PyBuffer_Release(&b);
    Py_XDECREF(tuple_);
  }

  // Takes every item of iterable (a single str/bytes is refused).
  void Set(py::handle iterable, const char *what) {
    PyObject *it = iterable.ptr();
    if (PyBytes_Check(it) || PyUnicode_Check(it)) {
      PyErr_Format(PyExc_TypeError, "%s must be an iterable, not a single %.100s", what,
                   Py_TYPE(it)->tp_name);
      throw py::error_already_set();
    }
    tuple_ = PySequence_Tuple(it);
    if (tuple_ == nullptr) throw py::error_already_set();
    const Py_ssize_t n = PyTuple_GET_SIZE(tuple_);
    ptrs_.reserve(static_cast<size_t>(n));
    lens_.reserve(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) Add(PyTuple_GET_ITEM(tuple_, i), what, i);
  }

  size_t size() const { return ptrs_.size(); }
  const void *const *ptrs() const { return ptrs_.data(); }
  const size_t *lens() const { return lens_.data(); }

 private:
  void Add(PyObject *o, const char *what, Py_ssize_t i) {
    const char *data = nullptr;
    Py_ssize_t len = 0;
    const int fast = FastKey(o, &data, &len);
    if (fast < 0) throw py::error_already_set();
    if (fast > 0) {
      Push(data, static_cast<size_t>(len));
      return;
    }
    if (PyBool_Check(o) || o == Py_None) {
      PyErr_Format(
          PyExc_TypeError,
          "%s[%zd]: invalid input of type %.100s; convert to bytes, str, int or float first", what,
          i, Py_TYPE(o)->tp_name);
      throw py::error_already_set();
    }
    if (PyLong_Check(o) || PyFloat_Check(o)) {
      PyObject *text = PyLong_Check(o) ? PyObject_Str(o) : PyObject_Repr(o);
      if (text == nullptr) throw py::error_already_set();
      const char *t = PyUnicode_AsUTF8AndSize(text, &len);
      if (t == nullptr) {
        Py_DECREF(text);
        throw py::error_already_set();
      }
      owned_.emplace_back(t, static_cast<size_t>(len));
      Py_DECREF(text);
      Push(owned_.back().data(), owned_.back().size());
      return;
    }
    if (!PyObject_CheckBuffer(o)) {
      PyErr_Format(PyExc_TypeError,
                   "%s[%zd] must be bytes, str, int, float or a bytes-like object, not %.100s",
                   what, i, Py_TYPE(o)->tp_name);
      throw py::error_already_set();
    }
    buffers_.emplace_back();
    if (PyObject_GetBuffer(o, &buffers_.back(), PyBUF_SIMPLE) < 0) {
      buffers_.pop_back();
      throw py::error_already_set();
    }
    Push(buffers_.back().buf, static_cast<size_t>(buffers_.back().len));
  }

  void Push(const void *p, size_t n) {
    ptrs_.push_back(p);
    lens_.push_back(n);
  }

  PyObject *tuple_ = nullptr;
  std::vector<const void *> ptrs_;
  std::vector<size_t> lens_;
  std::deque<std::string> owned_;  // stable addresses
  std::deque<Py_buffer> buffers_;  // stable addresses
};

// cloudroute.errors.ResponseError (set by InitClient).
extern PyObject *g_response_error;

// A reply as a Python object (bytes, str, int, None, list, dict, …); an
// error inside an array comes back as a ResponseError object, not raised.
py::object FromReply(const cr_reply *r);

}  // namespace crpy
