// Argument conversion: keys, C strings and bounded integers.
#include <climits>
#include <cstring>

#include "common.hpp"

namespace crpy {

namespace {

bool SetTypeError(const char *what, PyObject *obj, const char *expected) {
  PyErr_Format(PyExc_TypeError, "%s must be %s, not %.100s", what, expected, Py_TYPE(obj)->tp_name);
  return false;
}

constexpr const char *kKeyTypes = "bytes, str or a bytes-like object";

}  // namespace

bool KeyArg::Set(PyObject *obj, const char *what) {
  Py_ssize_t len = 0;
  const int fast = FastKey(obj, &data_, &len);
  if (fast != 0) {
    size_ = static_cast<size_t>(len);
    return fast > 0;
  }
  if (!PyObject_CheckBuffer(obj)) return SetTypeError(what, obj, kKeyTypes);
  if (PyObject_GetBuffer(obj, &buffer_, PyBUF_SIMPLE) < 0) return false;
  has_buffer_ = true;
  data_ = static_cast<const char *>(buffer_.buf);
  size_ = static_cast<size_t>(buffer_.len);
  return true;
}

void KeyBatch::ReleaseBuffers() {
  for (Py_buffer &b : buffers_) PyBuffer_Release(&b);
  buffers_.clear();
}

KeyBatch::~KeyBatch() {
  ReleaseBuffers();
  Py_XDECREF(tuple_);
}

bool KeyBatch::Set(PyObject *iterable, const char *what) {
  what_ = what;
  if (PyBytes_Check(iterable) || PyUnicode_Check(iterable)) {
    // A single key is iterable too (by byte or character): almost surely a bug.
    PyErr_Format(PyExc_TypeError, "%s must be an iterable of keys, not a single %.100s", what,
                 Py_TYPE(iterable)->tp_name);
    return false;
  }
  if (Py_TYPE(iterable)->tp_iter == nullptr && !PySequence_Check(iterable)) {
    return SetTypeError(what, iterable, "an iterable of keys");
  }
  tuple_ = PySequence_Tuple(iterable);  // a tuple argument is returned as is
  if (tuple_ == nullptr) return false;
  size_ = static_cast<size_t>(PyTuple_GET_SIZE(tuple_));
  return true;
}

bool KeyBatch::Load(size_t begin, size_t count) {
  ReleaseBuffers();
  ptrs_.resize(count);
  lens_.resize(count);
  for (size_t j = 0; j < count; ++j) {
    const Py_ssize_t i = static_cast<Py_ssize_t>(begin + j);
    PyObject *key = PyTuple_GET_ITEM(tuple_, i);
    const char *data = nullptr;
    Py_ssize_t len = 0;
    const int fast = FastKey(key, &data, &len);
    if (fast < 0) return false;
    if (fast == 0) {
      if (!PyObject_CheckBuffer(key)) {
        PyErr_Format(PyExc_TypeError, "%s[%zd] must be %s, not %.100s", what_, i, kKeyTypes,
                     Py_TYPE(key)->tp_name);
        return false;
      }
      buffers_.emplace_back();
      if (PyObject_GetBuffer(key, &buffers_.back(), PyBUF_SIMPLE) < 0) {
        buffers_.pop_back();
        return false;
      }
      data = static_cast<const char *>(buffers_.back().buf);
      len = buffers_.back().len;
    }
    ptrs_[j] = data;
    lens_[j] = static_cast<size_t>(len);
  }
  return true;
}

std::string CString(py::handle obj, const char *what) {
  if (!PyUnicode_Check(obj.ptr())) {
    SetTypeError(what, obj.ptr(), "str");
    throw py::error_already_set();
  }
  Py_ssize_t len = 0;
  const char *data = PyUnicode_AsUTF8AndSize(obj.ptr(), &len);
  if (data == nullptr) throw py::error_already_set();
  if (std::memchr(data, '\0', static_cast<size_t>(len)) != nullptr) {
    ThrowInvalid(std::string(what) + " must not contain a NUL character");
  }
  return std::string(data, static_cast<size_t>(len));
}

int64_t BoundedInt(py::handle obj, const char *what, int64_t lo, int64_t hi) {
  PyObject *o = obj.ptr();
  if (PyBool_Check(o) || !PyIndex_Check(o)) {
    SetTypeError(what, o, "an int");
    throw py::error_already_set();
  }
  PyObject *index = PyNumber_Index(o);
  if (index == nullptr) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
  Py_DECREF(index);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  if (overflow != 0) {
    ThrowInvalid(std::string(what) + " must be in " + range +
                 ", not a number of more than 64 bits");
  }
  if (v < lo || v > hi) {
    ThrowInvalid(std::string(what) + " must be in " + range + ", not " + std::to_string(v));
  }
  return v;
}

uint32_t U32(py::handle obj, const char *what) {
  return static_cast<uint32_t>(BoundedInt(obj, what, 0, UINT32_MAX));
}

uint16_t Port(py::handle obj, const char *what) {
  return static_cast<uint16_t>(BoundedInt(obj, what, 0, UINT16_MAX));
}

uint64_t U64OrLong(py::handle obj, const char *what, bool allow_negative) {
  PyObject *o = obj.ptr();
  if (PyBool_Check(o) || !PyIndex_Check(o)) {
    SetTypeError(what, o, "an int");
    throw py::error_already_set();
  }
  PyObject *index = PyNumber_Index(o);
  if (index == nullptr) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
  if (v == -1 && PyErr_Occurred()) {
    Py_DECREF(index);
    throw py::error_already_set();
  }
  if (overflow == 0 && (v >= 0 || allow_negative)) {
    Py_DECREF(index);
    return static_cast<uint64_t>(v);  // negative: the Java long's bit pattern
  }
  if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(index);
    Py_DECREF(index);
    if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
      PyErr_Clear();
    } else {
      return u;
    }
  } else {
    Py_DECREF(index);
  }
  ThrowInvalid(std::string(what) +
               (allow_negative ? " must be in -2**63 .. 2**64-1" : " must be in 0 .. 2**64-1"));
}

const cr_config *ConfigOrNull(py::handle cfg) {
  if (cfg.is_none()) return nullptr;
  if (!py::isinstance<Config>(cfg)) {
    SetTypeError("config", cfg.ptr(), "a cloudroute.Config or None");
    throw py::error_already_set();
  }
  return cfg.cast<Config &>().cfg;
}

}  // namespace crpy
