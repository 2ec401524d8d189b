// Key slots: keyslot(key), keyslots(keys), crc16(data). These are the
// per-key hot path, so they are plain METH_O functions (one type check and
// one C call per key, no pybind11 dispatch) over cr_keyslot / cr_keyslot_batch.
#include "common.hpp"

namespace crpy {

namespace {

PyObject *Keyslot(PyObject *, PyObject *key) {
  const char *data = nullptr;
  Py_ssize_t len = 0;
  const int fast = FastKey(key, &data, &len);
  if (fast > 0) return PyLong_FromLong(cr_keyslot(data, static_cast<size_t>(len)));
  if (fast < 0) return nullptr;
  KeyArg k;
  if (!k.Set(key, "key")) return nullptr;
  return PyLong_FromLong(cr_keyslot(k.data(), k.size()));
}

// Keys are hashed chunk by chunk: each chunk's bytes are still in cache
// when cr_keyslot_batch reads them, which matters for batches beyond the L2 cache.
constexpr size_t kChunk = 256;

PyObject *Keyslots(PyObject *, PyObject *keys) {
  KeyBatch batch;
  if (!batch.Set(keys, "keys")) return nullptr;
  const size_t n = batch.size();
  const bool nogil = n >= kNoGilBatch;
  PyObject *list = PyList_New(static_cast<Py_ssize_t>(n));
  if (list == nullptr) return nullptr;
  uint16_t slots[kChunk];
  for (size_t base = 0; base < n; base += kChunk) {
    const size_t m = n - base < kChunk ? n - base : kChunk;
    if (!batch.Load(base, m)) {
      Py_DECREF(list);
      return nullptr;
    }
    cr_status st;
    if (nogil) {
      Py_BEGIN_ALLOW_THREADS st = cr_keyslot_batch(slots, batch.ptrs(), batch.lens(), m);
      Py_END_ALLOW_THREADS
    } else {
      st = cr_keyslot_batch(slots, batch.ptrs(), batch.lens(), m);
    }
    if (st != CR_OK) {
      Py_DECREF(list);
      return SetStatusError(st);
    }
    for (size_t i = 0; i < m; ++i) {
      PyObject *v = PyLong_FromLong(slots[i]);
      if (v == nullptr) {
        Py_DECREF(list);
        return nullptr;
      }
      PyList_SET_ITEM(list, static_cast<Py_ssize_t>(base + i), v);
    }
  }
  return list;
}

PyObject *Crc16(PyObject *, PyObject *data) {
  KeyArg k;
  if (!k.Set(data, "data")) return nullptr;
  return PyLong_FromLong(cr_crc16(k.data(), k.size()));
}

PyMethodDef kMethods[] = {
    {"keyslot", Keyslot, METH_O,
     "keyslot($module, key, /)\n--\n\n"
     "The Redis Cluster slot (0-16383) of a key: CRC16/XMODEM of the key, or of\n"
     "its {hash tag}, mod 16384 -- what CLUSTER KEYSLOT answers.\n\n"
     "key is bytes, str (hashed as UTF-8) or any bytes-like object."},
    {"keyslots", Keyslots, METH_O,
     "keyslots($module, keys, /)\n--\n\n"
     "The slots of many keys in one call into the library: a list of ints,\n"
     "one per key, in order. keys is any iterable of bytes, str or bytes-like\n"
     "objects. The GIL is released while large batches are hashed."},
    {"crc16", Crc16, METH_O,
     "crc16($module, data, /)\n--\n\n"
     "CRC16/XMODEM (poly 0x1021, init 0) of bytes or str (UTF-8):\n"
     "crc16(b'123456789') == 0x31C3."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void InitKeyslot(py::module_ &m) {
  if (PyModule_AddFunctions(m.ptr(), kMethods) < 0) throw py::error_already_set();
  m.attr("SLOT_COUNT") = CR_SLOT_COUNT;
}

}  // namespace crpy
