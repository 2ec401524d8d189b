// Shared by the tests of commands classed by the server's COMMAND table
// (server_commands_test.cc, command_table_upgrade_test.cc): the client's
// "command table" log events, the client they both start, a command sent
// with CR_ACCESS_AUTO and its reply as text, and what the client sent to
// each node. Header-only.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cloudroute.h"
#include "harness_env.hpp"

namespace crtest {

// The client's log events about its command table, in order.
struct TableLog {
  std::mutex mu;
  std::vector<std::string> table_events;
  static void Callback(cr_log_level, const char *message, const cr_log_field *, size_t,
                       void *payload) {
    if (std::strstr(message, "command table") == nullptr) return;
    auto *self = static_cast<TableLog *>(payload);
    std::lock_guard<std::mutex> lock(self->mu);
    self->table_events.push_back(message);
  }
  std::vector<std::string> Events() {
    std::lock_guard<std::mutex> lock(mu);
    return table_events;
  }
};

// A client of the harness's cluster at seeds in cloud A (NewCloudAConfig),
// local-replicas-first, with opts; its command table events go to *log. NULL
// (a test failure recorded) when it cannot start; free it with
// cr_client_free.
inline cr_client *NewTableClient(const std::string &seeds, TableLog *log,
                                 const cr_client_options &opts) {
  cr_config *cfg = NewCloudAConfig();
  cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
  ro.policy = CR_POLICY_LOCAL_REPLICAS_FIRST;
  EXPECT_EQ(cr_config_set_router_options(cfg, &ro), CR_OK);
  EXPECT_EQ(cr_config_set_log_callback(cfg, CR_LOG_LEVEL_INFO, TableLog::Callback, log), CR_OK);
  cr_client *c = nullptr;
  EXPECT_EQ(cr_client_new(&c, cfg, &opts, seeds.c_str()), CR_OK) << cr_last_error();
  cr_config_free(cfg);
  return c;
}

// The command argv with CR_ACCESS_AUTO (the server's key specs find the
// key): the reply, or "(error) …" / "(status) …" for a failure. An array
// is "[n]", followed for one element that is an integer by ":+" (positive)
// or ":value".
inline std::string Auto(cr_client *c, const std::vector<std::string> &argv) {
  std::vector<const void *> p;
  std::vector<size_t> l;
  for (const std::string &a : argv) {
    p.push_back(a.data());
    l.push_back(a.size());
  }
  cr_reply *r = nullptr;
  const cr_status s = cr_client_command(&r, c, CR_ACCESS_AUTO, 0, p.size(), p.data(), l.data());
  if (s != CR_OK) return std::string("(error) ") + cr_status_str(s) + ": " + cr_last_error();
  std::string out;
  size_t len = 0;
  if (const char *str = cr_reply_get_string(r, &len); str != nullptr) {
    out.assign(str, len);
  } else if (cr_reply_get_type(r) == CR_REPLY_TYPE_INTEGER) {
    out = std::to_string(cr_reply_get_integer(r));
  } else if (cr_reply_get_type(r) == CR_REPLY_TYPE_ARRAY) {
    out = "[" + std::to_string(cr_reply_get_count(r)) + "]";
    const cr_reply *e = cr_reply_get_element(r, 0);
    if (cr_reply_get_count(r) == 1 && cr_reply_get_type(e) == CR_REPLY_TYPE_INTEGER) {
      const int64_t v = cr_reply_get_integer(e);
      out += v > 0 ? std::string(":+") : ":" + std::to_string(v);
    }
  }
  cr_reply_free(r);
  return out;
}

// What the client sent to each node ("host:port"): {reads, writes}.
inline std::map<std::string, std::pair<uint64_t, uint64_t>> Sent(cr_client *c) {
  std::vector<cr_client_node_stats> st(32);
  for (auto &e : st) e.struct_size = sizeof e;
  size_t n = 0;
  EXPECT_EQ(cr_client_get_node_stats(st.data(), st.size(), &n, c), CR_OK) << cr_last_error();
  std::map<std::string, std::pair<uint64_t, uint64_t>> out;
  for (size_t i = 0; i < n && i < st.size(); ++i) {
    out[std::string(st[i].host) + ":" + std::to_string(st[i].port)] = {st[i].reads, st[i].writes};
  }
  return out;
}

}  // namespace crtest
