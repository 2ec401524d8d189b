// For secrets_test.cc and acl_test.cc: everything a client tells (log
// events, last errors, statistics, metrics text, explain) gathered as text,
// admin commands through redis-cli with the password in its environment, and
// a command's combined stdout and stderr. Header-only.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cloudroute.h"

namespace crtest {

// Text the client produced; Add from any thread.
class Capture {
 public:
  static void OnLog(cr_log_level level, const char *message, const cr_log_field *fields,
                    size_t count, void *payload) {
    auto *self = static_cast<Capture *>(payload);
    std::string line = std::string("[") + cr_log_level_name(level) + "] " + message;
    for (size_t i = 0; i < count; ++i) {
      line += std::string(" ") + fields[i].key + "=" + fields[i].value;
    }
    self->Add(line);
  }
  void Add(const std::string &text) {
    std::lock_guard<std::mutex> lock(mu_);
    text_ += text + "\n";
  }
  // The client's statistics, metrics text and per-node statistics.
  void AddClientViews(cr_client *c) {
    cr_client_stats st = CR_CLIENT_STATS_INIT;
    if (cr_client_get_stats(&st, c) == CR_OK) {
      Add("stats: conn_errors=" + std::to_string(st.conn_errors) +
          " server_errors=" + std::to_string(st.server_errors) +
          " refresh_failures=" + std::to_string(st.refresh_failures));
    }
    size_t needed = 0;
    (void)cr_client_get_metrics_text(nullptr, 0, &needed, c);
    std::string metrics(needed, '\0');
    if (cr_client_get_metrics_text(&metrics[0], metrics.size(), &needed, c) == CR_OK) {
      Add(metrics.c_str());
    }
    std::vector<cr_client_node_stats> nodes(64);
    for (auto &n : nodes) n = CR_CLIENT_NODE_STATS_INIT;
    size_t count = 0;
    if (cr_client_get_node_stats(nodes.data(), nodes.size(), &count, c) == CR_OK) {
      for (size_t i = 0; i < count && i < nodes.size(); ++i) {
        Add(std::string("node ") + nodes[i].host + ":" + std::to_string(nodes[i].port) +
            " errors=" + std::to_string(nodes[i].errors));
      }
    }
  }
  void AddExplain(cr_client *c, const std::string &key) {
    const cr_router *r = cr_client_get_router(c);
    size_t needed = 0;
    (void)cr_router_explain(nullptr, 0, &needed, r, key.data(), key.size());
    std::string out(needed, '\0');
    if (cr_router_explain(&out[0], out.size(), &needed, r, key.data(), key.size()) == CR_OK) {
      Add(out.c_str());
    }
  }
  std::string text() {
    std::lock_guard<std::mutex> lock(mu_);
    return text_;
  }

 private:
  std::mutex mu_;
  std::string text_;
};

// A shell command's stdout and stderr together (the command must bound
// itself); its exit status in *status.
inline std::string RunCaptured(const std::string &command, int *status = nullptr) {
  std::string out;
  FILE *p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  if (status != nullptr) *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

// redis-cli against host:port as the default user with `password` (given
// through REDISCLI_AUTH, never on the command line); args are shell words.
inline std::string Admin(const std::string &address, const std::string &password,
                         const std::string &args) {
  const size_t colon = address.rfind(':');
  return RunCaptured("REDISCLI_AUTH='" + password + "' timeout 5 redis-cli -h " +
                     address.substr(0, colon) + " -p " + address.substr(colon + 1) + " --raw " +
                     args);
}

// The password of the cluster the fixture started (CR_TEST_PASSWORD); "".
inline std::string ClusterPassword() {
  const char *p = std::getenv("CR_TEST_PASSWORD");
  return p != nullptr ? p : "";
}

// Admin(args) on every node of a harness cluster.env ("NODE1_ADDR" ...) as
// the default user; "" when each answered without an error, else the first
// error with its node.
inline std::string AdminAll(const std::map<std::string, std::string> &env,
                            const std::string &args) {
  for (int i = 1; env.count("NODE" + std::to_string(i) + "_ADDR") != 0; ++i) {
    const std::string node = env.at("NODE" + std::to_string(i) + "_ADDR");
    const std::string out = Admin(node, ClusterPassword(), args);
    if (out.find("ERR") != std::string::npos) return node + ": " + out;
  }
  return "";
}

}  // namespace crtest
