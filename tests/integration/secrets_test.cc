// Passwords never appear in anything the client or the CLI tells: log
// events (at debug), cr_last_error(), statistics, metrics text, explain, the
// CLI's stdout and stderr — during AUTH failures (a wrong password from the
// start; a password rotated under a live client) and TLS failures (an
// untrusted server certificate; a CA that signed nothing the server shows).
//
// CR_TEST_CLUSTER_ENV: a harness cluster started with requirepass and
// masterauth CR_TEST_PASSWORD (ports 8551-8559); CR_TEST_TLS_ENV: the TLS
// harness (scripts/redis-tls-harness.sh); CR_TEST_CLI: the cloudroute tool.
// CR_TEST_DUMP=1 prints the text each test examined.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "harness_env.hpp"
#include "secrets_capture.hpp"

namespace secrets_test {

// Every password this test gives anything; none may be printed.
constexpr const char *kWrong = "Wr0ng-pw-never-shown-41";
constexpr const char *kAppPassword = "App-pw-never-shown-42";
constexpr const char *kRotated = "Rotated-pw-never-shown-43";

// Fails the test for each secret found in `text`, and when `text` lacks
// `expected` (the failure being examined must have been reported at all).
void ExpectNoSecrets(const std::string &text, const std::string &expected) {
  for (const std::string &secret : {crtest::ClusterPassword(), std::string(kWrong),
                                    std::string(kAppPassword), std::string(kRotated)}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << "password '" << secret << "' in:\n" << text;
  }
  EXPECT_NE(text.find(expected), std::string::npos) << "'" << expected << "' not in:\n" << text;
  if (std::getenv("CR_TEST_DUMP") != nullptr) std::printf("%s\n", text.c_str());
}

class Secrets : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = crtest::LoadHarnessEnv();
    if (env_.empty() || crtest::ClusterPassword().empty()) GTEST_SKIP() << "run through ctest";
  }
  // A client as `user` (NULL: default) with `password`; logs at debug into
  // capture_. CR_OK or the status, with cr_last_error() captured.
  cr_status NewClient(cr_client **out, const char *user, const char *password,
                      const std::string &seeds, const cr_client_options *base = nullptr) {
    cr_config *cfg = nullptr;
    EXPECT_EQ(cr_config_new(&cfg), CR_OK);
    EXPECT_EQ(cr_config_add_local_cidr(cfg, "127.0.1.0/24"), CR_OK);
    EXPECT_EQ(
        cr_config_set_log_callback(cfg, CR_LOG_LEVEL_DEBUG, crtest::Capture::OnLog, &capture_),
        CR_OK);
    cr_client_options o = CR_CLIENT_OPTIONS_INIT;
    if (base != nullptr) o = *base;
    o.username = user;
    o.password = password;
    o.connect_timeout_ms = 500;
    const cr_status s = cr_client_new(out, cfg, &o, seeds.c_str());
    if (s != CR_OK) capture_.Add(std::string("cr_client_new: ") + cr_last_error());
    cr_config_free(cfg);
    return s;
  }
  // The CLI, its password from the environment as documented.
  std::string Cli(const std::string &password, const std::string &args) {
    const char *cli = std::getenv("CR_TEST_CLI");
    if (cli == nullptr) return "";
    return crtest::RunCaptured("CLOUDROUTE_PASSWORD='" + password + "' timeout 20 " + cli + " " +
                               args);
  }
  void AllNodes(const std::string &args) { ASSERT_EQ(crtest::AdminAll(env_, args), ""); }

  std::map<std::string, std::string> env_;
  crtest::Capture capture_;
};

TEST_F(Secrets, WrongPasswordAtStartIsNeverPrinted) {
  cr_client *c = nullptr;
  EXPECT_NE(NewClient(&c, nullptr, kWrong, env_["SEEDS"]), CR_OK);
  EXPECT_EQ(NewClient(&c, "nosuchuser", kWrong, env_["SEEDS"]), CR_EREDIS);
  cr_client_free(c);
  const std::string seeds = env_["SEEDS"];
  capture_.Add(Cli(kWrong, "get --seeds " + seeds + " --stats somekey"));
  capture_.Add(Cli(kWrong, "set --seeds " + seeds + " --user nosuchuser k v"));
  capture_.Add(Cli(kWrong, "stats --seeds " + seeds + " --log debug somekey"));
  capture_.Add(Cli(kWrong, "route --seeds " + seeds + " --explain somekey"));
  capture_.Add(Cli(kWrong, "exec --seeds " + seeds + " --all-nodes -- PING"));
  ExpectNoSecrets(capture_.text(), "WRONGPASS");
}

// A live client whose user's password is changed and whose connections are
// killed: every later connection's AUTH fails.
TEST_F(Secrets, RotatedPasswordUnderALiveClientIsNeverPrinted) {
  AllNodes(std::string("ACL SETUSER app reset on '>") + kAppPassword + "' '~*' '&*' +@all");
  cr_client *c = nullptr;
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.refresh_interval_ms = 200;
  o.refresh_min_gap_ms = 100;
  ASSERT_EQ(NewClient(&c, "app", kAppPassword, env_["SEEDS"], &o), CR_OK) << capture_.text();
  ASSERT_EQ(cr_client_cmd_set(c, "secrets:k", 9, "v", 1, 0), CR_OK) << cr_last_error();
  AllNodes(std::string("ACL SETUSER app resetpass '>") + kRotated + "'");
  AllNodes("CLIENT KILL USER app");
  for (int i = 0; i < 20; ++i) {
    cr_reply *r = nullptr;
    const std::string key = "secrets:" + std::to_string(i);
    if (cr_client_cmd_get(&r, c, key.data(), key.size()) != CR_OK) {
      capture_.Add(std::string("get: ") + cr_last_error());
    }
    cr_reply_free(r);
    if (cr_client_cmd_set(c, key.data(), key.size(), "v", 1, 0) != CR_OK) {
      capture_.Add(std::string("set: ") + cr_last_error());
    }
    capture_.AddExplain(c, key);
  }
  if (cr_client_refresh(c) != CR_OK) capture_.Add(std::string("refresh: ") + cr_last_error());
  // Background refreshes (every 200 ms) fail too: two of them are logged.
  auto refresh_failures = [&] {
    cr_client_stats st = CR_CLIENT_STATS_INIT;
    EXPECT_EQ(cr_client_get_stats(&st, c), CR_OK) << cr_last_error();
    return st.refresh_failures;
  };
  const uint64_t failures_before = refresh_failures();
  EXPECT_TRUE(crtest::WaitUntil([&] { return refresh_failures() >= failures_before + 2; },
                                std::chrono::seconds(10)))
      << "no background refresh failed";
  capture_.AddClientViews(c);
  cr_client_free(c);
  const std::string seeds = env_["SEEDS"];
  capture_.Add(Cli(kAppPassword, "get --seeds " + seeds + " --user app --stats somekey"));
  capture_.Add(Cli(kAppPassword, "stats --seeds " + seeds + " --user app --log debug somekey"));
  AllNodes("ACL DELUSER app");
  ExpectNoSecrets(capture_.text(), "WRONGPASS");
}

// TLS failures with a password set: it is never sent, and never printed.
TEST_F(Secrets, TlsFailuresNeverPrintThePassword) {
  const auto tls = crtest::LoadHarnessEnv("CR_TEST_TLS_ENV");
  if (tls.empty()) GTEST_SKIP() << "CR_TEST_TLS_ENV not set";
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.tls = 1;
  const std::string ca = tls.at("TLS_CA"), evil_ca = tls.at("TLS_EVIL_CA");
  cr_client *c = nullptr;
  o.tls_ca_file = ca.c_str();
  EXPECT_EQ(NewClient(&c, "app", kAppPassword, tls.at("TLS_UNTRUSTED"), &o), CR_ECONN);
  o.tls_ca_file = evil_ca.c_str();  // the wrong CA for a good server
  EXPECT_EQ(NewClient(&c, nullptr, kAppPassword, tls.at("TLS_GOOD"), &o), CR_ECONN);
  o.tls_ca_file = ca.c_str();  // no client certificate where one is required
  EXPECT_NE(NewClient(&c, nullptr, kAppPassword, tls.at("TLS_CLIENTAUTH"), &o), CR_OK);
  cr_client_free(c);
  // The CLI with its TLS options: the same three failures, and plaintext to a
  // TLS-only port.
  capture_.Add(Cli(kAppPassword, "get --seeds " + tls.at("TLS_UNTRUSTED") +
                                     " --user app --cacert " + ca + " somekey"));
  capture_.Add(Cli(kAppPassword, "stats --seeds " + tls.at("TLS_GOOD") + " --cacert " + evil_ca +
                                     " --log debug somekey"));
  capture_.Add(Cli(kAppPassword,
                   "exec --seeds " + tls.at("TLS_CLIENTAUTH") + " --cacert " + ca + " -- GET k"));
  capture_.Add(Cli(kAppPassword, "get --seeds " + tls.at("TLS_GOOD") + " somekey"));
  ExpectNoSecrets(capture_.text(), "certificate verification failed");
}

}  // namespace secrets_test
