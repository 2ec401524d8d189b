// What both live clients (Client, SentinelClient) share in Python: the
// keyword options of the fields their C option structs have in common — TLS
// and hedged reads — converted once for both, and reading their Prometheus
// text.
#pragma once

#include <string>

#include "common.hpp"

namespace crpy {

// hedge_mode: "off", "fixed" or "adaptive".
inline cr_hedge_mode HedgeMode(py::handle v) {
  const std::string m = CString(v, "hedge_mode");
  if (m == "off") return CR_HEDGE_MODE_OFF;
  if (m == "fixed") return CR_HEDGE_MODE_FIXED;
  if (m == "adaptive") return CR_HEDGE_MODE_ADAPTIVE;
  ThrowInvalid("hedge_mode must be 'off', 'fixed' or 'adaptive', not '" + m + "'");
}

// hedge_percentile: an int or a float (the range is checked by the C library).
inline double HedgePercentile(py::handle v) {
  if (PyBool_Check(v.ptr()) || !(PyFloat_Check(v.ptr()) || PyLong_Check(v.ptr())))
    throw py::type_error("hedge_percentile must be a float");
  const double p = PyFloat_AsDouble(v.ptr());
  if (PyErr_Occurred() != nullptr) throw py::error_already_set();
  return p;
}

// Applies keyword k to *o when it is a TLS or hedged-read option; false when
// it is none of them. str(v, name) keeps a string alive for the C call.
template <typename O, typename Str>
bool ApplyEngineOption(O *o, const std::string &k, py::handle v, Str &&str) {
  const char *n = k.c_str();
  if (k == "tls")
    o->tls = py::cast<bool>(v) ? 1 : 0;
  else if (k == "tls_verify")
    o->tls_verify = py::cast<bool>(v) ? 1 : 0;
  else if (k == "tls_ca_file")
    o->tls_ca_file = str(v, n);
  else if (k == "tls_ca_dir")
    o->tls_ca_dir = str(v, n);
  else if (k == "tls_cert_file")
    o->tls_cert_file = str(v, n);
  else if (k == "tls_key_file")
    o->tls_key_file = str(v, n);
  else if (k == "tls_server_name")
    o->tls_server_name = str(v, n);
  else if (k == "hedge_mode")
    o->hedge_mode = HedgeMode(v);
  else if (k == "hedge_delay_ms")
    o->hedge_delay_ms = U32(v, n);
  else if (k == "hedge_min_delay_ms")
    o->hedge_min_delay_ms = U32(v, n);
  else if (k == "hedge_budget_percent")
    o->hedge_budget_percent = U32(v, n);
  else if (k == "hedge_percentile")
    o->hedge_percentile = HedgePercentile(v);
  else
    return false;
  return true;
}

// The text a (buf, cap, needed) call fills: get(buf, cap, &needed) until
// the buffer is big enough (instances may appear between two calls).
template <typename Get>
cr_status TextOf(std::string *text, Get &&get) {
  size_t needed = 0;
  cr_status st = get(nullptr, 0, &needed);
  while (st == CR_EBUFS) {
    text->resize(needed);
    st = get(&(*text)[0], text->size(), &needed);
  }
  if (st == CR_OK) text->resize(needed - 1);
  return st;
}

}  // namespace crpy
