// The live client over TLS against real redis-server processes started with
// --tls-port (scripts/redis-tls-harness.sh: throwaway CA and certificates made
// by the openssl CLI). Only the C API is used.
//
// Verification must refuse a certificate for another IP or name and one
// from a CA we do not trust, with a CR_ECONN whose message names the
// verification failure; a server demanding a client certificate accepts
// ours; a client speaking the wrong protocol to a port fails within its
// deadlines instead of hanging; a tls-cluster is reached on the
// tls-ports CLUSTER SHARDS reports; and a Sentinel group whose sentinel and
// instances speak TLS only is served over TLS, its sentinel's certificate
// verified like a data node's.
//
// CR_TEST_TLS_ENV names the harness's tls.env.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "harness_env.hpp"

namespace tls_test {

std::map<std::string, std::string> &Env() {
  static std::map<std::string, std::string> env = crtest::LoadHarnessEnv("CR_TEST_TLS_ENV");
  return env;
}

class Tls : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Env().empty()) GTEST_SKIP() << "CR_TEST_TLS_ENV not set (run through ctest)";
    o_.tls = 1;
    o_.tls_ca_file = Env()["TLS_CA"].c_str();
    o_.connect_timeout_ms = 1000;
    for (uint32_t &t : o_.command_timeout_ms) t = 1000;
    o_.refresh_interval_ms = 0;
  }
  void TearDown() override { cr_client_free(c_); }

  // cr_client_new against seeds; the status, with the message in why_.
  cr_status Connect(const std::string &seeds) {
    cr_client_free(c_);
    c_ = nullptr;
    const auto t0 = std::chrono::steady_clock::now();
    const cr_status s = cr_client_new(&c_, nullptr, &o_, seeds.c_str());
    elapsed_ms_ =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    why_ = s == CR_OK ? "" : cr_last_error();
    return s;
  }

  void SetGet(const std::string &key) {
    ASSERT_NE(c_, nullptr);
    ASSERT_EQ(cr_client_cmd_set(c_, key.data(), key.size(), "v1", 2, 0), CR_OK) << cr_last_error();
    cr_reply *r = nullptr;
    ASSERT_EQ(cr_client_cmd_get(&r, c_, key.data(), key.size()), CR_OK) << cr_last_error();
    size_t len = 0;
    EXPECT_EQ(std::string(cr_reply_get_string(r, &len)), "v1");
    cr_reply_free(r);
  }

  cr_client_options o_ = CR_CLIENT_OPTIONS_INIT;
  cr_client *c_ = nullptr;
  std::string why_;
  long long elapsed_ms_ = 0;
};

TEST_F(Tls, GoodCertificateConnects) {
  ASSERT_EQ(Connect(Env()["TLS_GOOD"]), CR_OK) << why_;
  SetGet("tls:good");
}

TEST_F(Tls, CertificateForAnotherIpIsRefused) {
  EXPECT_EQ(Connect(Env()["TLS_WRONGNAME"]), CR_ECONN) << why_;
  EXPECT_NE(why_.find("TLS certificate verification failed"), std::string::npos) << why_;
  EXPECT_NE(why_.find("IP address mismatch"), std::string::npos) << why_;
  EXPECT_NE(why_.find("127.0.1.52"), std::string::npos) << why_;
  std::printf("refused: %s\n", why_.c_str());
}

TEST_F(Tls, HostNameIsVerifiedAgainstDnsNames) {
  o_.tls_server_name = "wrong.example";  // the certificate's DNS SAN: accepted
  ASSERT_EQ(Connect(Env()["TLS_WRONGNAME"]), CR_OK) << why_;
  SetGet("tls:dns-name");
  o_.tls_server_name = "other.example";  // signed by our CA, but not this name
  EXPECT_EQ(Connect(Env()["TLS_WRONGNAME"]), CR_ECONN) << why_;
  EXPECT_NE(why_.find("hostname mismatch"), std::string::npos) << why_;
  o_.tls_server_name = "example";  // no partial or suffix matches
  EXPECT_EQ(Connect(Env()["TLS_WRONGNAME"]), CR_ECONN) << why_;
}

TEST_F(Tls, UntrustedCaIsRefused) {
  EXPECT_EQ(Connect(Env()["TLS_UNTRUSTED"]), CR_ECONN) << why_;
  EXPECT_NE(why_.find("TLS certificate verification failed"), std::string::npos) << why_;
  EXPECT_NE(why_.find("local issuer"), std::string::npos) << why_;
  std::printf("refused: %s\n", why_.c_str());
  // Trusting that CA is what makes the same certificate acceptable.
  o_.tls_ca_file = Env()["TLS_EVIL_CA"].c_str();
  ASSERT_EQ(Connect(Env()["TLS_UNTRUSTED"]), CR_OK) << why_;
}

TEST_F(Tls, CaDirectoryIsAccepted) {
  o_.tls_ca_file = nullptr;
  o_.tls_ca_dir = Env()["TLS_CA_DIR"].c_str();  // hashed (openssl rehash), holds our CA
  ASSERT_EQ(Connect(Env()["TLS_GOOD"]), CR_OK) << why_;
  EXPECT_EQ(Connect(Env()["TLS_UNTRUSTED"]), CR_ECONN) << why_;
  o_.tls_ca_dir = Env()["TLS_CERTS"].c_str();  // CA files, but no hash links
  EXPECT_EQ(Connect(Env()["TLS_GOOD"]), CR_ECONN) << why_;
  EXPECT_NE(why_.find("verification failed"), std::string::npos) << why_;
}

TEST_F(Tls, VerifyOffAcceptsAnything) {
  o_.tls_verify = 0;
  ASSERT_EQ(Connect(Env()["TLS_WRONGNAME"]), CR_OK) << why_;
  ASSERT_EQ(Connect(Env()["TLS_UNTRUSTED"]), CR_OK) << why_;
}

TEST_F(Tls, ClientCertificateRequiredByTheServer) {
  EXPECT_NE(Connect(Env()["TLS_CLIENTAUTH"]), CR_OK);  // no client certificate
  EXPECT_NE(why_.find("client certificate"), std::string::npos) << why_;
  std::printf("without a client certificate: %s\n", why_.c_str());
  const std::string cert = Env()["TLS_CLIENT_CERT"], key = Env()["TLS_CLIENT_KEY"];
  o_.tls_cert_file = cert.c_str();
  o_.tls_key_file = key.c_str();
  ASSERT_EQ(Connect(Env()["TLS_CLIENTAUTH"]), CR_OK) << why_;
  SetGet("tls:client-auth");
}

TEST_F(Tls, PlaintextClientToTlsPortFailsWithinItsDeadline) {
  o_.tls = 0;
  const cr_status s = Connect(Env()["TLS_GOOD"]);
  EXPECT_TRUE(s == CR_ECONN || s == CR_ETIMEOUT) << cr_status_str(s) << ": " << why_;
  EXPECT_LT(elapsed_ms_, 3000) << why_;
  std::printf("plaintext to TLS port: %s after %lld ms\n", cr_status_str(s), elapsed_ms_);
}

TEST_F(Tls, TlsClientToPlaintextPortFailsWithinItsDeadline) {
  const cr_status s = Connect(Env()["TLS_CLUSTER_PLAIN_SEED"]);
  EXPECT_TRUE(s == CR_ECONN || s == CR_ETIMEOUT) << cr_status_str(s) << ": " << why_;
  EXPECT_LT(elapsed_ms_, 3000) << why_;
  std::printf("TLS to plaintext port: %s after %lld ms: %s\n", cr_status_str(s), elapsed_ms_,
              why_.c_str());
}

TEST_F(Tls, ClusterIsReachedOnItsTlsPorts) {
  ASSERT_EQ(Connect(Env()["TLS_CLUSTER_SEED"]), CR_OK) << why_;
  std::set<std::string> tls_nodes, plain_nodes;
  for (int i = 1; i <= 4; ++i) {
    tls_nodes.insert(Env()["TLS_CLUSTER_NODE" + std::to_string(i)]);
    plain_nodes.insert(Env()["TLS_CLUSTER_NODE" + std::to_string(i) + "_PLAIN"]);
  }
  // Every node the topology names is a TLS endpoint.
  cr_router *router = nullptr;
  router = cr_client_get_router(c_);
  ASSERT_NE(router, nullptr);
  for (int i = 0; i < 200; ++i) {
    const std::string key = "tls:cluster:" + std::to_string(i);
    ASSERT_EQ(cr_client_cmd_set(c_, key.data(), key.size(), "x", 1, 0), CR_OK) << cr_last_error();
    cr_route r = CR_ROUTE_INIT;
    ASSERT_EQ(cr_router_route_write(&r, router, key.data(), key.size()), CR_OK);
    EXPECT_EQ(tls_nodes.count(std::string(r.host) + ":" + std::to_string(r.port)), 1u)
        << r.host << ":" << r.port;
  }
  std::vector<const void *> keys;
  std::vector<size_t> lens;
  std::vector<std::string> names;
  for (int i = 0; i < 200; ++i) names.push_back("tls:cluster:" + std::to_string(i));
  for (const std::string &k : names) {
    keys.push_back(k.data());
    lens.push_back(k.size());
  }
  cr_reply *r = nullptr;
  ASSERT_EQ(cr_client_cmd_mget(&r, c_, keys.data(), lens.data(), keys.size()), CR_OK)
      << cr_last_error();
  EXPECT_EQ(cr_reply_get_count(r), 200u);
  cr_reply_free(r);

  std::vector<cr_client_node_stats> nodes(16);
  for (auto &n : nodes) n = CR_CLIENT_NODE_STATS_INIT;
  size_t count = 0;
  ASSERT_EQ(cr_client_get_node_stats(nodes.data(), nodes.size(), &count, c_), CR_OK);
  ASSERT_GE(count, 2u);
  for (size_t i = 0; i < count; ++i) {
    const std::string addr = std::string(nodes[i].host) + ":" + std::to_string(nodes[i].port);
    EXPECT_EQ(tls_nodes.count(addr), 1u) << addr << " is not a TLS port";
    EXPECT_EQ(plain_nodes.count(addr), 0u) << addr;
  }
}

// A Sentinel client with tls=1: the sentinel (TLS-only) is asked over TLS,
// the master and the replica it names are dialed over TLS; writes and reads
// are served, and the client's node statistics name only the group's TLS
// endpoints. A CA that did not sign the sentinel's certificate is refused
// before anything is served, naming the verification failure.
cr_status NewSentinelClient(cr_sentinel_client **out, const char *ca) {
  cr_ring *ring = nullptr;
  cr_ring_options ro = CR_RING_OPTIONS_INIT;
  EXPECT_EQ(cr_ring_new(&ring, &ro), CR_OK);
  const std::string group = Env()["TLS_SENTINEL_GROUP"];
  EXPECT_EQ(cr_ring_add_shard(ring, group.c_str(), 1), CR_OK);
  EXPECT_EQ(cr_ring_build(ring), CR_OK);
  cr_sentinel_options o = CR_SENTINEL_OPTIONS_INIT;
  o.tls = 1;
  o.tls_ca_file = ca;
  o.connect_timeout_ms = 1000;
  o.sentinel_timeout_ms = 1000;
  for (uint32_t &t : o.command_timeout_ms) t = 1000;
  const char *names[] = {group.c_str()};
  const cr_status s =
      cr_sentinel_client_new(out, nullptr, &o, ring, names, 1, Env()["TLS_SENTINEL"].c_str());
  cr_ring_free(ring);
  return s;
}

TEST_F(Tls, SentinelGroupIsServedOverTls) {
  cr_sentinel_client *sc = nullptr;
  ASSERT_EQ(NewSentinelClient(&sc, Env()["TLS_CA"].c_str()), CR_OK) << cr_last_error();
  const std::string key = "tls:sentinel:k";
  auto run = [&](cr_access access, const std::vector<std::string> &argv, std::string *out) {
    std::vector<const void *> p;
    std::vector<size_t> l;
    for (const std::string &a : argv) {
      p.push_back(a.data());
      l.push_back(a.size());
    }
    cr_reply *r = nullptr;
    const cr_status st =
        cr_sentinel_client_command(&r, sc, access, 1, argv.size(), p.data(), l.data());
    if (st == CR_OK && out != nullptr) {
      size_t len = 0;
      const char *str = cr_reply_get_string(r, &len);
      out->assign(str == nullptr ? "" : str, len);
    }
    cr_reply_free(r);
    return st;
  };
  std::string v;
  ASSERT_EQ(run(CR_ACCESS_WRITE, {"SET", key, "over-tls"}, nullptr), CR_OK) << cr_last_error();
  ASSERT_EQ(run(CR_ACCESS_WRITE, {"GET", key}, &v), CR_OK) << cr_last_error();
  EXPECT_EQ(v, "over-tls");
  // Reads go to either instance (one locality tier): 50 of them reach both,
  // once the replica holds the value.
  for (int i = 0; i < 50; ++i) {
    v.clear();
    const auto t0 = std::chrono::steady_clock::now();
    while (run(CR_ACCESS_READ, {"GET", key}, &v) == CR_OK && v != "over-tls" &&
           std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5)) {
    }
    EXPECT_EQ(v, "over-tls") << cr_last_error();
  }
  const std::set<std::string> group = {Env()["TLS_SENTINEL_MASTER"], Env()["TLS_SENTINEL_REPLICA"]};
  std::vector<cr_client_node_stats> nodes(8);
  for (auto &n : nodes) n = CR_CLIENT_NODE_STATS_INIT;
  size_t count = 0;
  ASSERT_EQ(cr_sentinel_client_get_node_stats(nodes.data(), nodes.size(), &count, sc), CR_OK)
      << cr_last_error();
  EXPECT_EQ(count, 2u);
  uint64_t reads = 0;
  for (size_t i = 0; i < count && i < nodes.size(); ++i) {
    const std::string addr = std::string(nodes[i].host) + ":" + std::to_string(nodes[i].port);
    EXPECT_EQ(group.count(addr), 1u) << addr << " is not one of the group's TLS endpoints";
    EXPECT_GT(nodes[i].reads, 0u) << addr << " served no read";
    reads += nodes[i].reads;
  }
  EXPECT_GE(reads, 50u);
  cr_sentinel_client_free(sc);

  // The sentinel's certificate checked against a CA that did not sign it.
  sc = nullptr;
  EXPECT_EQ(NewSentinelClient(&sc, Env()["TLS_EVIL_CA"].c_str()), CR_ECONN);
  EXPECT_EQ(sc, nullptr);
  const std::string why = cr_last_error();
  EXPECT_NE(why.find("certificate"), std::string::npos) << why;
  EXPECT_NE(why.find(Env()["TLS_SENTINEL"]), std::string::npos) << why;
  cr_sentinel_client_free(sc);
}

}  // namespace tls_test
