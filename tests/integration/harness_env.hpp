// Shared by the integration tests: the KEY=value file scripts/redis-harness.sh (and
// redis-tls-harness.sh) writes for each setup, read by the integration tests. Header-only; shared
// by every integration test binary.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace crtest {

// The stdout of a shell command (popen), trailing newlines trimmed; "" when
// it cannot run. Bound the command itself (`timeout N …`).
inline std::string CommandOutput(const std::string &cmd) {
  std::string out;
  FILE *p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// redis-cli against one node "host:port", `args` split into words by the
// shell (quote what must stay one word), bounded by `timeout`: its stdout and
// stderr, trimmed.
inline std::string CliLine(const std::string &addr, const std::string &args) {
  const size_t colon = addr.rfind(':');
  return CommandOutput("timeout 10 redis-cli -h " + addr.substr(0, colon) + " -p " +
                       addr.substr(colon + 1) + " " + args + " 2>&1");
}

// The same with each of args as one word (quoted for the shell).
inline std::string Cli(const std::string &addr, const std::vector<std::string> &args) {
  std::string line;
  for (const std::string &a : args) {
    line += " '";
    for (char ch : a) line += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    line += "'";
  }
  return CliLine(addr, line);
}

// The "calls" of cmdstat_<cmd> (lower case: "mget") in the text of an INFO
// commandstats; 0 when the command never ran (or the text is not one).
inline uint64_t CommandCalls(const std::string &info, const std::string &cmd) {
  const std::string tag = "cmdstat_" + cmd + ":calls=";
  const size_t at = info.find(tag);
  return at == std::string::npos ? 0 : std::strtoull(info.c_str() + at + tag.size(), nullptr, 10);
}

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

#include <gtest/gtest.h>

#include "cloudroute.h"

namespace crtest {

// A config "in cloud A" of the harness layout: nodes in 127.0.1.0/24 are
// local, 127.0.2.0/24 is another cloud (cloud-b). The caller frees it with
// cr_config_free.
inline cr_config *NewCloudAConfig() {
  cr_config *cfg = nullptr;
  EXPECT_EQ(cr_config_new(&cfg), CR_OK);
  EXPECT_EQ(cr_config_add_local_cidr(cfg, "127.0.1.0/24"), CR_OK);
  EXPECT_EQ(cr_config_add_location_rule(cfg, "127.0.2.0/24", "cloud-b"), CR_OK);
  EXPECT_EQ(cr_config_set_client_location(cfg, "cloud-a"), CR_OK);
  return cfg;
}

// A live client "in cloud A" (NewCloudAConfig's layout); the breaker opens after
// failure_threshold failures (a timeout opens it at once) and stays open for
// cooldown_ms; remaps ("announced", "dial") re-point its dials. *router gets
// the client's borrowed router. NULL (with a test failure recorded) when the
// client cannot start.
inline cr_client *NewCloudAClient(
    const std::string &seeds, cr_policy policy, uint32_t cooldown_ms, const cr_client_options &opts,
    cr_router **router, uint32_t failure_threshold = 1,
    const std::vector<std::pair<std::string, std::string>> &remaps = {}) {
  cr_config *cfg = NewCloudAConfig();
  for (const auto &r : remaps) {
    EXPECT_EQ(cr_config_add_address_remap(cfg, r.first.c_str(), r.second.c_str()), CR_OK)
        << cr_last_error();
  }
  cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
  ro.policy = policy;
  ro.down_cooldown_ms = cooldown_ms;
  ro.failure_threshold = failure_threshold;
  EXPECT_EQ(cr_config_set_router_options(cfg, &ro), CR_OK);
  cr_client *c = nullptr;
  const cr_status s = cr_client_new(&c, cfg, &opts, seeds.c_str());
  EXPECT_EQ(s, CR_OK) << cr_last_error();
  cr_config_free(cfg);
  *router = nullptr;
  if (c != nullptr) {
    *router = cr_client_get_router(c);
    EXPECT_NE(*router, nullptr);
  }
  return c;
}

}  // namespace crtest
