// Bounded polling for tests that wait on something another thread, process
// or server does: instead of sleeping a fixed time and then asserting (too
// short on a loaded machine, too long everywhere else), poll the condition
// until it holds or a deadline passes, and assert on the result:
//
//   ASSERT_TRUE(crtest::WaitUntil([&] { return stats().refreshes >= 2; },
//                                 std::chrono::seconds(10)));
//
// Header-only; any test directory includes it as "common/wait_until.hpp".
#pragma once

#include <chrono>
#include <thread>

namespace crtest {

// Calls pred() until it returns true (then true) or `timeout` has passed (then
// false, after one last call), sleeping `every` in between.
template <typename Pred>
bool WaitUntil(Pred pred, std::chrono::milliseconds timeout,
               std::chrono::milliseconds every = std::chrono::milliseconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= deadline) return pred();
    std::this_thread::sleep_for(every);
  }
  return true;
}

}  // namespace crtest
