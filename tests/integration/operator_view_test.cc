// What an operator sees of a live client (its own cluster, ports 8151-8159):
// log events through the C callback — a node marked down and a read that fell
// back, the refresh events, the level filter, never a password — and the
// statistics as Prometheus text, parsed and checked line by line.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "harness_env.hpp"

namespace operator_view_test {

struct Event {
  cr_log_level level;
  std::string message;
  std::map<std::string, std::string> fields;
};

struct Recorder {
  std::mutex mu;
  std::vector<Event> events;
  std::vector<Event> Take() {
    std::lock_guard<std::mutex> lock(mu);
    return events;
  }
};

void Record(cr_log_level level, const char *message, const cr_log_field *fields, size_t n,
            void *payload) {
  auto *r = static_cast<Recorder *>(payload);
  Event e{level, message, {}};
  for (size_t i = 0; i < n; ++i) e.fields[fields[i].key] = fields[i].value;
  std::lock_guard<std::mutex> lock(r->mu);
  r->events.push_back(std::move(e));
}

const Event *Find(const std::vector<Event> &events, const std::string &message) {
  for (const Event &e : events) {
    if (e.message == message) return &e;
  }
  return nullptr;
}

std::string Metrics(cr_client *c) {
  size_t needed = 0;
  EXPECT_EQ(cr_client_get_metrics_text(nullptr, 0, &needed, c), CR_EBUFS);
  std::string text(needed, '\0');
  EXPECT_EQ(cr_client_get_metrics_text(&text[0], text.size(), &needed, c), CR_OK)
      << cr_last_error();
  text.resize(needed - 1);
  return text;
}

// Text exposition 0.0.4, strictly: HELP then TYPE before a family's samples,
// every sample `name{labels} value` of a declared family, histogram buckets
// cumulative with +Inf equal to _count. Returns sample → value.
std::map<std::string, double> ParseExposition(const std::string &text) {
  static const std::regex kSample(
      R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? (\S+)$)");
  std::map<std::string, std::string> types;
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line, help_for;
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) == 0) {
      help_for = line.substr(7, line.find(' ', 7) - 7);
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream t(line.substr(7));
      std::string name, type;
      t >> name >> type;
      EXPECT_EQ(name, help_for) << "TYPE without its HELP: " << line;
      EXPECT_TRUE(type == "counter" || type == "gauge" || type == "histogram") << line;
      EXPECT_EQ(types.count(name), 0u) << "family declared twice: " << name;
      types[name] = type;
      continue;
    }
    std::smatch m;
    EXPECT_TRUE(std::regex_match(line, m, kSample)) << "not a sample: " << line;
    if (m.empty()) continue;
    std::string family = m[1];
    for (const char *suffix : {"_bucket", "_sum", "_count"}) {
      const std::string s = suffix;
      if (types.count(family) == 0 && family.size() > s.size() &&
          family.compare(family.size() - s.size(), s.size(), s) == 0) {
        family = family.substr(0, family.size() - s.size());
      }
    }
    EXPECT_EQ(types.count(family), 1u) << "sample of an undeclared family: " << line;
    const std::string key = line.substr(0, line.rfind(' '));
    EXPECT_EQ(out.count(key), 0u) << "sample twice: " << key;
    out[key] = std::stod(m[m.size() - 1]);
  }
  return out;
}

class OperatorView : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = crtest::LoadHarnessEnv();
    if (env_.empty()) GTEST_SKIP() << "CR_TEST_CLUSTER_ENV not set (run through ctest)";
  }
  std::string Seeds() { return env_["NODE1_ADDR"]; }
  std::map<std::string, std::string> env_;
};

TEST_F(OperatorView, APasswordNeverReachesTheLog) {
  const std::string password = "cr-ops-Secret-9f2c";
  Recorder rec;
  cr_config *cfg = nullptr;
  ASSERT_EQ(cr_config_new(&cfg), CR_OK);
  ASSERT_EQ(cr_config_set_log_callback(cfg, CR_LOG_LEVEL_DEBUG, &Record, &rec), CR_OK);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.password = password.c_str();  // the harness cluster has none: AUTH fails
  o.username = "ops-user";
  o.refresh_interval_ms = 0;
  cr_client *c = nullptr;
  EXPECT_NE(cr_client_new(&c, cfg, &o, Seeds().c_str()), CR_OK);
  EXPECT_EQ(std::string(cr_last_error()).find(password), std::string::npos);
  cr_client_free(c);
  cr_config_free(cfg);
  const std::vector<Event> events = rec.Take();
  ASSERT_NE(Find(events, "refresh failed"), nullptr) << "the failure was not logged";
  for (const Event &e : events) {
    EXPECT_EQ(e.message.find(password), std::string::npos) << e.message;
    for (const auto &[k, v] : e.fields) EXPECT_EQ(v.find(password), std::string::npos) << k;
  }
}

TEST_F(OperatorView, ADeadReplicaIsLoggedAndCountedAndTheScrapeParses) {
  // A shard with a replica in cloud A (127.0.1.x), dialed at a port nothing
  // listens on: its first read fails over to the next candidate.
  std::string key, dead;
  for (int s = 1; s <= 3 && dead.empty(); ++s) {
    std::istringstream reps(env_["SHARD" + std::to_string(s) + "_REPLICAS"]);
    for (std::string r; std::getline(reps, r, ',');) {
      if (r.rfind("127.0.1.", 0) == 0) {
        dead = r;
        key = env_["SHARD" + std::to_string(s) + "_KEY"];
        break;
      }
    }
  }
  ASSERT_FALSE(dead.empty()) << "no shard has a replica in cloud A";

  Recorder rec;
  cr_config *cfg = nullptr;
  ASSERT_EQ(cr_config_new(&cfg), CR_OK);
  ASSERT_EQ(cr_config_add_local_cidr(cfg, "127.0.1.0/24"), CR_OK);
  ASSERT_EQ(cr_config_add_address_remap(cfg, dead.c_str(), "127.0.0.1:8198"), CR_OK);
  cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
  ro.policy = CR_POLICY_REPLICA_ONLY;
  ro.failure_threshold = 1;
  ro.down_cooldown_ms = 60000;
  ASSERT_EQ(cr_config_set_router_options(cfg, &ro), CR_OK);
  ASSERT_EQ(cr_config_set_log_callback(cfg, CR_LOG_LEVEL_INFO, &Record, &rec), CR_OK);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.refresh_interval_ms = 0;
  cr_client *c = nullptr;
  ASSERT_EQ(cr_client_new(&c, cfg, &o, Seeds().c_str()), CR_OK) << cr_last_error();
  cr_config_free(cfg);

  const int reads = 20;
  for (int i = 0; i < reads; ++i) {
    cr_reply *r = nullptr;
    ASSERT_EQ(cr_client_cmd_get(&r, c, key.data(), key.size()), CR_OK) << cr_last_error();
    cr_reply_free(r);
  }
  const std::vector<Event> events = rec.Take();
  const Event *down = Find(events, "node marked down");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->level, CR_LOG_LEVEL_WARN);
  EXPECT_EQ(down->fields.at("node"), dead);
  EXPECT_EQ(down->fields.at("failures"), "1");
  const Event *fallback = Find(events, "read fell back to a later candidate");
  ASSERT_NE(fallback, nullptr);
  EXPECT_NE(fallback->fields.at("node"), dead);
  EXPECT_EQ(fallback->fields.count("slot"), 1u);
  EXPECT_EQ(Find(events, "refresh started"), nullptr) << "a debug event passed an info filter";

  const std::map<std::string, double> m = ParseExposition(Metrics(c));
  double by_tier = 0;
  for (const char *t : {"local", "same-region", "same-cloud", "other-cloud", "unknown"}) {
    by_tier += m.at(std::string("cloudroute_reads_total{tier=\"") + t + "\"}");
  }
  EXPECT_EQ(by_tier, reads);
  EXPECT_EQ(m.at("cloudroute_read_fallbacks_total"), 1);
  EXPECT_GE(m.at("cloudroute_refreshes_total{result=\"ok\"}"), 1);
  EXPECT_EQ(m.at("cloudroute_node_up{node=\"" + dead + "\"}"), 0);
  EXPECT_GE(m.at("cloudroute_connection_errors_total"), 1);
  // Every node's histogram: cumulative buckets, +Inf == _count.
  int histograms = 0;
  for (const auto &[sample, value] : m) {
    if (sample.rfind("cloudroute_node_latency_seconds_count{", 0) != 0) continue;
    const std::string labels = sample.substr(sample.find('{') + 1);  // node="…"}
    const std::string node = labels.substr(0, labels.size() - 1);
    double prev = 0;
    for (const auto &[s2, v2] : m) {
      if (s2.rfind("cloudroute_node_latency_seconds_bucket{" + node + ",", 0) == 0) {
        EXPECT_GE(v2, 0);
        prev = std::max(prev, v2);
      }
    }
    EXPECT_EQ(m.at("cloudroute_node_latency_seconds_bucket{" + node + ",le=\"+Inf\"}"), value);
    EXPECT_EQ(prev, value);
    ++histograms;
  }
  EXPECT_GE(histograms, 1);
  cr_client_free(c);
}

TEST(OperatorViewApi, ArgumentsAndNames) {
  cr_config *cfg = nullptr;
  ASSERT_EQ(cr_config_new(&cfg), CR_OK);
  EXPECT_EQ(cr_config_set_log_callback(nullptr, CR_LOG_LEVEL_INFO, &Record, nullptr), CR_EINVAL);
  EXPECT_EQ(cr_config_set_log_callback(cfg, static_cast<cr_log_level>(4), &Record, nullptr),
            CR_EINVAL);
  EXPECT_EQ(cr_config_set_log_callback(cfg, CR_LOG_LEVEL_DEBUG, nullptr, nullptr), CR_OK);
  cr_config_free(cfg);
  EXPECT_STREQ(cr_log_level_name(CR_LOG_LEVEL_WARN), "warn");
  EXPECT_STREQ(cr_log_level_name(static_cast<cr_log_level>(9)), "?");
  size_t needed = 0;
  EXPECT_EQ(cr_client_get_metrics_text(nullptr, 0, &needed, nullptr), CR_EINVAL);
}

}  // namespace operator_view_test
