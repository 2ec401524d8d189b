// Shared by the asynchronous-call tests (async_test.cc, async_fanout_test.cc):
// a cloud-A client through the C API, and running its completions until the
// calls under test are done. Header-only.
#pragma once

#include <poll.h>

#include <cstdint>
#include <functional>
#include <string>

#include "cloudroute.h"
#include "fault_kit.hpp"

namespace crtest {

// A client in cloud A with the fault tests' options, named name;
// command_timeout_ms: each tier's (0 keeps the fault tests' short one).
inline cr_client *NewAsyncClient(const std::string &seeds, cr_policy policy, const char *name,
                                 uint32_t command_timeout_ms) {
  cr_client_options o = FaultOptions();
  o.client_name = name;
  if (command_timeout_ms > 0) {
    for (uint32_t &t : o.command_timeout_ms) t = command_timeout_ms;
  }
  cr_router *router = nullptr;
  return NewCloudAClient(seeds, policy, 1000, o, &router);
}

// Runs the client's completions (queue_fd >= 0: the completion queue's, run
// here when it is readable; -1: the client's threads run them) until done()
// holds or ms passed; whether it holds.
inline bool RunCompletionsUntil(cr_client *cl, int queue_fd, int64_t ms,
                                const std::function<bool()> &done) {
  return PollUntil(ms, [&] {
    if (queue_fd >= 0) {
      pollfd p{queue_fd, POLLIN, 0};
      if (poll(&p, 1, 5) > 0) {
        EXPECT_EQ(cr_client_run_completions(nullptr, cl, 0), CR_OK);
      }
    }
    return done();
  });
}

}  // namespace crtest
