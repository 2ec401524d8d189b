// Shared by the fault tests (faults_proxy_test.cc, stress_test.cc):
// a fault proxy process (scripts/latency-proxy.py with a control file), a live
// client in cloud A built through the C API with short timeouts and optional
// address remaps, and traffic threads that check every answer and record the
// slowest request. Header-only.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cloudroute.h"
#include "harness_env.hpp"

extern char **environ;

namespace crtest {

using FaultClock = std::chrono::steady_clock;

inline int64_t MsFrom(FaultClock::time_point t0, FaultClock::time_point t1 = FaultClock::now()) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t1 - t0).count();
}

// Polls pred every 10 ms for at most ms; true once it holds.
inline bool PollUntil(int64_t ms, const std::function<bool()> &pred) {
  const auto t0 = FaultClock::now();
  while (!pred()) {
    if (MsFrom(t0) > ms) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// scripts/latency-proxy.py (path in $CR_PROXY_SCRIPT) listening on `listen`
// and forwarding to `target` after delay_ms each way (0: none); its mode (forward, stall,
// garbage) is the first word of `control`, a file several proxies may share.
// The proxy exits on SIGTERM (the destructor) or after 300 s on its own.
class FaultProxy {
 public:
  FaultProxy(const std::string &listen, const std::string &target, const std::string &control,
             int delay_ms = 0) {
    const char *script = std::getenv("CR_PROXY_SCRIPT");
    if (script == nullptr) {
      ADD_FAILURE() << "CR_PROXY_SCRIPT is not set";
      return;
    }
    // Two tries of 20 s each for "latency-proxy ready ...": once in a CI run
    // (ASan tests beside a background build) a proxy said nothing for 30 s;
    // a second process started then is the remedy, and what became of the
    // first is reported if it fails too.
    std::string why;
    for (int attempt = 1; attempt <= 2 && !ready_; ++attempt) {
      const std::string failed = Start(script, listen, target, control, delay_ms);
      if (!failed.empty()) why += " [try " + std::to_string(attempt) + ": " + failed + "]";
    }
    EXPECT_TRUE(ready_) << "proxy " << listen << " -> " << target << " did not start:" << why;
  }
  ~FaultProxy() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  FaultProxy(const FaultProxy &) = delete;
  FaultProxy &operator=(const FaultProxy &) = delete;
  bool ready() const { return ready_; }

  // Sets the mode of every proxy reading `control` and waits (at most 5 s)
  // until each has applied it: a proxy writes the mode in force to
  // control.ack.PID (scripts/latency-proxy.py).
  static void SetMode(const std::string &control, const char *mode) {
    const std::string tmp = control + ".tmp";
    std::ofstream(tmp) << mode << "\n";
    std::rename(tmp.c_str(), control.c_str());
    EXPECT_TRUE(PollUntil(5000, [&] { return AllAcked(control, mode); }))
        << "a proxy reading " << control << " did not switch to " << mode;
  }

 private:
  // Whether every control.ack.PID file next to control says mode.
  static bool AllAcked(const std::string &control, const std::string &mode) {
    namespace fs = std::filesystem;
    const fs::path path(control);
    const std::string prefix = path.filename().string() + ".ack.";
    std::error_code ec;
    for (const fs::directory_entry &e : fs::directory_iterator(path.parent_path(), ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(prefix, 0) != 0 || name.find('.', prefix.size()) != std::string::npos)
        continue;  // another file, or an ack being written (PID.tmp)
      std::string word;
      std::ifstream(e.path()) >> word;
      if (word != mode) return false;
    }
    return !ec;
  }

  // Spawns one proxy and waits for its ready line: "" when it came, else
  // what happened (the process is gone then).
  std::string Start(const char *script, const std::string &listen, const std::string &target,
                    const std::string &control, int delay_ms) {
    int fds[2];
    if (pipe(fds) != 0) return "pipe failed";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    std::vector<std::string> args{"python3",   script,  "--listen",     listen,
                                  "--target",  target,  "--delay-ms",   std::to_string(delay_ms),
                                  "--control", control, "--lifetime-s", "300"};
    std::vector<char *> argv;
    for (std::string &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawnp(&pid_, "python3", &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
      close(fds[0]);
      pid_ = -1;
      return std::string("cannot start python3 ") + script;
    }
    std::string out;
    bool eof = false;
    const auto t0 = FaultClock::now();
    while (out.find('\n') == std::string::npos && !eof && MsFrom(t0) < 20000) {
      pollfd p{fds[0], POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char buf[256];
      const ssize_t n = read(fds[0], buf, sizeof buf);
      if (n <= 0) eof = true;
      if (n > 0) out.append(buf, static_cast<size_t>(n));
    }
    close(fds[0]);
    ready_ = out.rfind("latency-proxy ready", 0) == 0;
    if (ready_) return "";
    const int64_t waited = MsFrom(t0);
    int status = 0;
    const bool exited = waitpid(pid_, &status, WNOHANG) == pid_;
    if (!exited) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    std::remove((control + ".ack." + std::to_string(pid_)).c_str());  // it cannot remove it now
    pid_ = -1;
    return (exited ? "exited with status " + std::to_string(status) : "still silent, killed") +
           " after " + std::to_string(waited) + " ms; stdout '" + out + "'";
  }

  pid_t pid_ = -1;
  bool ready_ = false;
};

// The options of the proxy fault clients: 400 ms for a connect and for a
// command on any tier (the handshake of a new connection uses the same), so
// a fault costs a bounded, small time; a refresh every second.
constexpr uint32_t kFaultTimeoutMs = 400;
inline cr_client_options FaultOptions() {
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.client_name = "cr-faults";
  o.connect_timeout_ms = kFaultTimeoutMs;
  for (uint32_t &t : o.command_timeout_ms) t = kFaultTimeoutMs;
  o.refresh_interval_ms = 1000;
  o.refresh_min_gap_ms = 200;
  return o;
}

// A live client "in cloud A" (NewCloudAClient: 127.0.1.0/24 local,
// 127.0.2.0/24 cloud B, the breaker opens on the first failure for
// cooldown_ms), its dials re-pointed by `remaps` ("announced" -> "dial").
class FaultClient {
 public:
  FaultClient(const std::string &seeds, cr_policy policy, const cr_client_options &opts,
              uint32_t cooldown_ms,
              const std::vector<std::pair<std::string, std::string>> &remaps = {})
      : c(NewCloudAClient(seeds, policy, cooldown_ms, opts, &router, 1, remaps)) {}
  ~FaultClient() { cr_client_free(c); }
  FaultClient(const FaultClient &) = delete;
  FaultClient &operator=(const FaultClient &) = delete;

  cr_client_stats Stats() const {
    cr_client_stats st = CR_CLIENT_STATS_INIT;
    EXPECT_EQ(cr_client_get_stats(&st, c), CR_OK);
    return st;
  }
  // Reads the node ("host:port", as announced) has served so far.
  uint64_t NodeReads(const std::string &addr) const {
    std::vector<cr_client_node_stats> v(64, cr_client_node_stats(CR_CLIENT_NODE_STATS_INIT));
    size_t count = 0;
    if (cr_client_get_node_stats(v.data(), v.size(), &count, c) != CR_OK) return 0;
    for (size_t i = 0; i < count; ++i) {
      if (std::string(v[i].host) + ":" + std::to_string(v[i].port) == addr) return v[i].reads;
    }
    return 0;
  }
  std::string WriteNode(const std::string &key) const {
    cr_route r = CR_ROUTE_INIT;
    if (cr_router_route_write(&r, router, key.data(), key.size()) != CR_OK) return "";
    return std::string(r.host) + ":" + std::to_string(r.port);
  }
  cr_status Get(const std::string &key, std::string *value) {
    cr_reply *r = nullptr;
    const cr_status s = cr_client_cmd_get(&r, c, key.data(), key.size());
    if (s == CR_OK) {
      size_t len = 0;
      const char *p = cr_reply_get_string(r, &len);
      *value = p == nullptr ? "(nil)" : std::string(p, len);
    }
    cr_reply_free(r);
    return s;
  }
  cr_status Set(const std::string &key, const std::string &value) {
    return cr_client_cmd_set(c, key.data(), key.size(), value.data(), value.size(), 0);
  }

  // n keys whose slot the master `master` ("host:port") owns.
  std::vector<std::string> KeysOwnedBy(const std::string &master, const std::string &prefix,
                                       size_t n) const {
    std::vector<std::string> keys;
    for (int i = 0; keys.size() < n && i < 100000; ++i) {
      std::string k = prefix + std::to_string(i);
      if (WriteNode(k) == master) keys.push_back(std::move(k));
    }
    return keys;
  }

  cr_router *router = nullptr;  // before c: NewCloudAClient sets it
  cr_client *c = nullptr;
};

// The value every fault test stores under key.
inline std::string ValueOf(const std::string &key) { return "v-" + key; }

// Writes each key's ValueOf and waits until every one reads back through the
// client (replicas acknowledge asynchronously): the writes acknowledged
// before the fault.
inline void StoreAndSettle(FaultClient &cl, const std::vector<std::string> &keys) {
  for (const std::string &k : keys)
    ASSERT_EQ(cl.Set(k, ValueOf(k)), CR_OK) << k << ": " << cr_last_error();
  ASSERT_TRUE(PollUntil(5000, [&] {
    std::string v;
    for (const std::string &k : keys) {
      if (cl.Get(k, &v) != CR_OK || v != ValueOf(k)) return false;
    }
    return true;
  })) << "writes did not become readable";
}

// Every acknowledged write reads back (within 5 s of the call).
inline void ExpectStored(FaultClient &cl, const std::vector<std::string> &keys,
                         const char *scenario) {
  size_t bad = 0;
  std::string first_bad;
  const bool ok = PollUntil(5000, [&] {
    bad = 0;
    std::string v;
    for (const std::string &k : keys) {
      const cr_status s = cl.Get(k, &v);
      if (s != CR_OK || v != ValueOf(k)) {
        if (bad++ == 0) first_bad = k + " -> " + (s == CR_OK ? v : cr_status_str(s));
      }
    }
    return bad == 0;
  });
  EXPECT_TRUE(ok) << scenario << ": " << bad << " acknowledged writes unreadable, e.g. "
                  << first_bad;
}

// One thread sending GETs (checking each value is ValueOf(key)) or SETs of
// ValueOf(key) over keys in a loop, until Stop(). Counts requests, failures
// and wrong values, and records the slowest request and the time of the
// last failure.
class Traffic {
 public:
  enum Kind { kRead, kWrite };
  Traffic(FaultClient &cl, std::vector<std::string> keys, Kind kind)
      : cl_(cl), keys_(std::move(keys)), kind_(kind) {
    thread_ = std::thread([this] { Run(); });
  }
  ~Traffic() { Stop(); }
  Traffic(const Traffic &) = delete;
  Traffic &operator=(const Traffic &) = delete;
  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  uint64_t requests() const { return requests_.load(); }
  uint64_t failed() const { return failed_.load(); }
  uint64_t wrong() const { return wrong_.load(); }
  int64_t slowest_ms() const { return slowest_us_.load() / 1000; }
  // Resets the slowest request (for example after warming up).
  void ResetSlowest() { slowest_us_.store(0); }
  // When the last failure happened; time_point{} when none did.
  FaultClock::time_point last_failure() {
    std::lock_guard<std::mutex> l(mu_);
    return last_failure_;
  }
  std::string first_error() {
    std::lock_guard<std::mutex> l(mu_);
    return first_error_;
  }
  // How many failures had each status.
  std::map<cr_status, uint64_t> failures_by_status() {
    std::lock_guard<std::mutex> l(mu_);
    return by_status_;
  }

 private:
  void Run() {
    size_t i = 0;
    while (!stop_.load()) {
      const std::string &k = keys_[i++ % keys_.size()];
      std::string v;
      const auto t = FaultClock::now();
      const cr_status s = kind_ == kRead ? cl_.Get(k, &v) : cl_.Set(k, ValueOf(k));
      const int64_t us =
          std::chrono::duration_cast<std::chrono::microseconds>(FaultClock::now() - t).count();
      int64_t prev = slowest_us_.load();
      while (us > prev && !slowest_us_.compare_exchange_weak(prev, us)) {
      }
      requests_.fetch_add(1);
      if (s != CR_OK) {
        failed_.fetch_add(1);
        Note(s, k + ": " + cr_status_str(s) + ": " + cr_last_error());
      } else if (kind_ == kRead && v != ValueOf(k)) {
        wrong_.fetch_add(1);
        Note(CR_OK, k + ": read '" + v + "', expected '" + ValueOf(k) + "'");
      }
      if (kind_ == kWrite) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  void Note(cr_status s, const std::string &what) {
    std::lock_guard<std::mutex> l(mu_);
    if (first_error_.empty()) first_error_ = what;
    if (s != CR_OK) {
      ++by_status_[s];
      last_failure_ = FaultClock::now();
    }
  }

  FaultClient &cl_;
  const std::vector<std::string> keys_;
  const Kind kind_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> requests_{0}, failed_{0}, wrong_{0};
  std::atomic<int64_t> slowest_us_{0};
  std::mutex mu_;
  std::string first_error_;
  std::map<cr_status, uint64_t> by_status_;
  FaultClock::time_point last_failure_{};
  std::thread thread_;
};

// What several Traffic threads saw, added up (StopAll stops them first).
struct TrafficTotals {
  uint64_t requests = 0, failed = 0, wrong = 0;
  int64_t slowest_ms = 0;
  std::string first_error;
};
inline TrafficTotals StopAll(std::vector<std::unique_ptr<Traffic>> *threads) {
  TrafficTotals t;
  for (auto &r : *threads) {
    r->Stop();
    t.requests += r->requests();
    t.failed += r->failed();
    t.wrong += r->wrong();
    t.slowest_ms = std::max(t.slowest_ms, r->slowest_ms());
    if (t.first_error.empty()) t.first_error = r->first_error();
  }
  return t;
}

// A test against the cluster whose cluster.env CR_TEST_CLUSTER_ENV names.
class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = LoadHarnessEnv();
    ASSERT_FALSE(env_["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  }
  std::string Node(int n, const char *field) {
    return env_["NODE" + std::to_string(n) + "_" + field];
  }

  // Restarts node n from its config (daemonized, as the harness started it)
  // with the server binary `server` (another version: an upgrade) and
  // records the new process in DIR/pids so `redis-harness.sh stop` ends it
  // ("kind name pid ip port").
  void Restart(int n, const std::string &server = "redis-server") {
    const std::string dir = env_["HARNESS_DIR"];
    const std::string nd = dir + "/cluster/n" + std::to_string(n);
    std::remove((nd + "/redis.pid").c_str());
    ASSERT_EQ(std::system((server + " " + nd + "/redis.conf >/dev/null 2>&1").c_str()), 0);
    std::string pid;
    ASSERT_TRUE(PollUntil(5000, [&] {
      std::ifstream f(nd + "/redis.pid");
      return static_cast<bool>(f >> pid) && !pid.empty();
    }));
    std::ofstream(dir + "/pids", std::ios::app)
        << "cluster n" << n << " " << pid << " " << Node(n, "IP") << " " << Node(n, "PORT") << "\n";
  }

  // SIGKILLs node n (or sends it sig: SIGTERM shuts it down as an operator
  // would), waits until it is gone and starts it again (Restart): with no
  // RDB and no AOF (the harness keeps none) it comes back empty, its
  // nodes.conf kept (the same node of the same cluster).
  void KillAndRestart(int n, const std::string &server = "redis-server", int sig = SIGKILL) {
    const std::string nd = env_["HARNESS_DIR"] + "/cluster/n" + std::to_string(n);
    std::string pid;
    ASSERT_TRUE(static_cast<bool>(std::ifstream(nd + "/redis.pid") >> pid));
    ASSERT_EQ(kill(std::atoi(pid.c_str()), sig), 0);
    ASSERT_TRUE(PollUntil(5000, [&] { return kill(std::atoi(pid.c_str()), 0) != 0; }));
    Restart(n, server);
  }

  std::map<std::string, std::string> env_;
};

}  // namespace crtest
