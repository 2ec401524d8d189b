// The KEY=value file scripts/redis-harness.sh (and redis-tls-harness.sh)
// writes for each setup, read by the integration tests. Header-only; shared
// by every integration test binary.
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

namespace crtest {

// The harness env file named by the environment variable `var` (e.g.
// CR_TEST_CLUSTER_ENV); empty when unset or unreadable.
inline std::map<std::string, std::string> LoadHarnessEnv(const char *var = "CR_TEST_CLUSTER_ENV") {
  std::map<std::string, std::string> env;
  const char *path = std::getenv(var);
  if (path == nullptr) return env;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    env[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return env;
}

}  // namespace crtest
