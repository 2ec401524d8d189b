// Interrupt checks: a function a thread hands in so that its calls, while
// they wait on the network, can be ended early — a binding's way back to
// its interpreter for a signal (Python's KeyboardInterrupt) without waiting
// for the server's reply.
//
// While a check is set, a wait for a socket (Connection's reads, writes and
// TLS handshakes) sleeps in slices of kInterruptSliceMs and calls the check
// between them; a nonzero answer ends the wait as a connection error
// (ECANCELED): the connection is closed, never reused, so no later call can
// read the abandoned reply. A command already sent may have run on the
// server (a write applied; an element a blocking pop took is lost with the
// reply). The command executor does not count such a failure against the
// node and tries no other candidate (InterruptAsked()). A start's wait
// before asking disagreeing seeds again (discovery.hpp) ends the same way.
// Dialing a new
// connection (the connect timeout bounds it) and a hedged read's wait on two
// sockets or a hedged fan-out's on its legs' (hedged_read.cpp, fan_out.cpp;
// their deadlines bound them) are not interrupted.
//
// Thread-safety: the check is per thread (thread_local), called on the
// thread that set it only.
#pragma once

#include <cstdint>

namespace cloudroute {
namespace net {

using InterruptFn = int (*)(void *payload);

constexpr uint32_t kInterruptSliceMs = 50;

// Sets (fn non-null) or clears (fn null) this thread's check.
void SetInterruptCheck(InterruptFn fn, void *payload);
// Whether this thread has a check set.
bool HasInterruptCheck();
// Calls this thread's check: true when it asks to stop (false without one).
bool InterruptAsked();

}  // namespace net
}  // namespace cloudroute
