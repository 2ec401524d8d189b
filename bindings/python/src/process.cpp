// The live clients and the process: clients across fork() and calls that
// give way to signals (see common.hpp, "fork" and "signals").
#include <pthread.h>

#include <atomic>
#include <stdexcept>
#include <string>

#include "common.hpp"

namespace crpy {

namespace {

std::atomic<uint64_t> g_forks{0};
unsigned long g_main_thread = 0;  // threading.main_thread().ident at import

// Runs in the child of every fork(), os.fork() and multiprocessing's "fork"
// start method included, before any Python code of the child.
void InChild() { g_forks.fetch_add(1, std::memory_order_relaxed); }

// The C library's interrupt check (cr_thread_set_interrupt_check): called
// without the GIL between the slices of a wait. Runs Python's signal
// handlers; one that raised (KeyboardInterrupt) ends the wait, its exception
// staying set for the call to raise.
int CheckSignals(void *) {
  if (!Py_IsInitialized() || Finalizing()) return 0;
  py::gil_scoped_acquire gil;
  if (PyErr_Occurred() != nullptr) return 1;
  return PyErr_CheckSignals() != 0 ? 1 : 0;
}

}  // namespace

bool Finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

uint64_t ForkGeneration() { return g_forks.load(std::memory_order_relaxed); }

void ThrowForked(const char *what) {
  ThrowInvalid(std::string(what) +
               " was created before os.fork() and cannot be used in the child process (its "
               "threads and connections belong to the parent): create a new one in the child");
}

bool OnMainThread() { return PyThread_get_thread_ident() == g_main_thread; }

void GiveWayToSignals() {
  thread_local bool asked = false;
  if (asked) return;
  asked = true;
  if (OnMainThread()) {
    Check(cr_thread_set_interrupt_check(&CheckSignals, nullptr));
  }
}

void RaiseSignalError(cr_status st) {
  if (st != CR_OK && PyErr_Occurred() != nullptr) throw py::error_already_set();
}

void InitProcess() {
  if (pthread_atfork(nullptr, nullptr, &InChild) != 0) {
    throw std::runtime_error("cloudroute: pthread_atfork failed");
  }
  g_main_thread =
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
}

}  // namespace crpy
