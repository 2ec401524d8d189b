// Command arguments of the live clients (Client, SentinelClient): every
// argument as a (pointer, length) pair the C API reads while the GIL is
// released.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "common.hpp"

namespace crpy {

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

// The arguments of a `command(access, key_index, args)` call, checked:
// access 0 (read), 1 (write) or 2 (the server's command table decides), at
// least one argument, key_index below the argument count
// (InvalidArgumentError otherwise).
// access 0, 1 or 2 as a cr_access (InvalidArgumentError otherwise).
inline cr_access AccessOf(py::handle a) {
  static constexpr cr_access kAccess[] = {CR_ACCESS_READ, CR_ACCESS_WRITE, CR_ACCESS_AUTO};
  return kAccess[BoundedInt(a, "access", 0, 2)];
}

struct CommandCall {
  cr_access access;
  size_t key_index;
  Args argv;

  CommandCall(py::handle a, py::handle ki, py::handle args) {
    access = AccessOf(a);
    argv.Set(args, "args");
    if (argv.size() == 0) ThrowInvalid("a command needs at least one argument");
    key_index = static_cast<size_t>(BoundedInt(ki, "key_index", 0, INT32_MAX));
    if (key_index >= argv.size()) {
      ThrowInvalid("key_index " + std::to_string(key_index) + " is not below the argument count " +
                   std::to_string(argv.size()));
    }
  }
};

}  // namespace crpy
