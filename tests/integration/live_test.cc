// Against real redis-server processes (see tests/integration/CMakeLists.txt):
// our key slots agree with CLUSTER KEYSLOT, and live CLUSTER SLOTS / CLUSTER
// SHARDS replies — raw RESP2 and RESP3 bytes off the socket — parse into the
// topology the harness built. Only the C API is used.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdlib>
#include <random>
#include <set>
#include <string>

#include "cloudroute.h"

namespace live_test {

class Conn {
 public:
  explicit Conn(const std::string &addr) {
    const size_t colon = addr.rfind(':');
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(std::atoi(addr.c_str() + colon + 1)));
    inet_pton(AF_INET, addr.substr(0, colon).c_str(), &sa.sin_addr);
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ok_ = connect(fd_, reinterpret_cast<sockaddr *>(&sa), sizeof sa) == 0;
  }
  ~Conn() { close(fd_); }
  bool ok() const { return ok_; }

  // Sends one command; returns the raw reply bytes, framed by the library's
  // own parser (CR_EINCOMPLETE means: read more).
  std::string Raw(const std::vector<std::string> &argv, cr_topology_format frame_as) {
    std::string cmd = "*" + std::to_string(argv.size()) + "\r\n";
    for (const std::string &a : argv) cmd += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
    EXPECT_EQ(send(fd_, cmd.data(), cmd.size(), 0), static_cast<ssize_t>(cmd.size()));
    std::string buf;
    char chunk[65536];
    for (;;) {
      const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) {
        ADD_FAILURE() << "connection closed or timed out after " << buf.size() << " bytes";
        return buf;
      }
      buf.append(chunk, static_cast<size_t>(n));
      cr_topology *t = nullptr;
      const cr_status s = cr_topology_parse(&t, buf.data(), buf.size(), frame_as, nullptr);
      cr_topology_free(t);
      if (s != CR_EINCOMPLETE) return buf;
    }
  }

  // A reply that is one integer (":N\r\n").
  long long Integer(const std::vector<std::string> &argv) {
    std::string cmd = "*" + std::to_string(argv.size()) + "\r\n";
    for (const std::string &a : argv) cmd += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
    send(fd_, cmd.data(), cmd.size(), 0);
    std::string line;
    char c;
    while (recv(fd_, &c, 1, 0) == 1) {
      line.push_back(c);
      if (line.size() >= 2 && line.compare(line.size() - 2, 2, "\r\n") == 0) break;
    }
    EXPECT_EQ(line[0], ':') << line;
    return std::atoll(line.c_str() + 1);
  }

 private:
  int fd_ = -1;
  bool ok_ = false;
};

const char *Env(const char *name) {
  const char *v = std::getenv(name);
  return v != nullptr ? v : "";
}

TEST(LiveKeyslot, AgreesWithClusterKeyslotOn10000RandomBinaryKeys) {
  Conn c(Env("CR_TEST_SINGLE"));
  ASSERT_TRUE(c.ok()) << "no redis-server at CR_TEST_SINGLE=" << Env("CR_TEST_SINGLE");
  std::mt19937 rng(99);
  const char alphabet[] = "ab{}\0xyz:";
  for (int i = 0; i < 10000; ++i) {
    std::string key(rng() % 40, '\0');
    for (char &ch : key) ch = i % 2 ? static_cast<char>(rng()) : alphabet[rng() % 9];
    ASSERT_EQ(cr_keyslot(key.data(), key.size()), c.Integer({"CLUSTER", "KEYSLOT", key})) << i;
  }
}

void CheckClusterTopology(cr_topology *t) {
  // The harness: 3 shards × 3 nodes, master 1 owns 0-3096 and 4078-5460.
  ASSERT_EQ(cr_topology_get_shard_count(t), 3u);
  ASSERT_EQ(cr_topology_get_node_count(t), 9u);
  std::set<std::string> clouds;
  for (size_t i = 0; i < 9; ++i) {
    cr_node_info n = CR_NODE_INFO_INIT;
    ASSERT_EQ(cr_topology_get_node(&n, t, i), CR_OK);
    clouds.insert(std::string(n.host).substr(0, 8));
  }
  EXPECT_EQ(clouds, (std::set<std::string>{"127.0.1.", "127.0.2."}));
  uint32_t shard = 0;
  ASSERT_EQ(cr_topology_get_slot_shard(&shard, t, 0), CR_OK);
  uint16_t starts[4], ends[4];
  size_t count = 0;
  ASSERT_EQ(cr_topology_get_shard_ranges(starts, ends, 4, &count, t, shard), CR_OK);
  ASSERT_EQ(count, 2u);
  EXPECT_EQ(ends[0], 3096);
  EXPECT_EQ(starts[1], 4078);
  for (uint32_t s = 0; s < CR_SLOT_COUNT; ++s)
    ASSERT_EQ(cr_topology_get_slot_shard(&shard, t, s), CR_OK);
}

TEST(LiveTopology, ClusterSlotsAndShardsInResp2AndResp3) {
  const std::string seed = Env("CR_TEST_CLUSTER_SEED");
  for (int proto : {2, 3}) {
    Conn c(seed);
    ASSERT_TRUE(c.ok()) << "no cluster at CR_TEST_CLUSTER_SEED=" << seed;
    if (proto == 3) {
      const std::string hello = c.Raw({"HELLO", "3"}, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS);
      ASSERT_EQ(hello[0], '%') << "HELLO 3 did not switch to RESP3";
    }
    for (cr_topology_format kind :
         {CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, CR_TOPOLOGY_FORMAT_CLUSTER_SHARDS}) {
      SCOPED_TRACE("RESP" + std::to_string(proto) +
                   (kind == CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS ? " SLOTS" : " SHARDS"));
      const std::string bytes =
          c.Raw({"CLUSTER", kind == CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS ? "SLOTS" : "SHARDS"}, kind);
      if (proto == 3 && kind == CR_TOPOLOGY_FORMAT_CLUSTER_SHARDS) {
        EXPECT_NE(bytes.find('%'), std::string::npos) << "expected RESP3 maps";
      }
      cr_topology *t = nullptr;
      ASSERT_EQ(cr_topology_parse(&t, bytes.data(), bytes.size(), kind, nullptr), CR_OK)
          << cr_last_error();
      CheckClusterTopology(t);

      // And a router on it keeps cloud-A reads in cloud A for every shard.
      cr_config *cfg = nullptr;
      ASSERT_EQ(cr_config_new(&cfg), CR_OK);
      ASSERT_EQ(cr_config_add_local_cidr(cfg, "127.0.1.0/24"), CR_OK);
      cr_router_options o = CR_ROUTER_OPTIONS_INIT;
      o.policy = CR_POLICY_LOCAL_REPLICAS_FIRST;
      ASSERT_EQ(cr_config_set_router_options(cfg, &o), CR_OK);
      cr_router *r = nullptr;
      ASSERT_EQ(cr_router_new(&r, cfg), CR_OK);
      ASSERT_EQ(cr_router_update(r, t), CR_OK);
      for (int k = 0; k < 300; ++k) {
        const std::string key = "key:" + std::to_string(k);
        cr_route out = CR_ROUTE_INIT;
        ASSERT_EQ(cr_router_route_read(&out, r, key.data(), key.size()), CR_OK);
        EXPECT_EQ(std::string(out.host).substr(0, 8), "127.0.1.") << key;
        EXPECT_EQ(out.tier, CR_TIER_LOCAL);
      }
      cr_router_free(r);
      cr_config_free(cfg);
      cr_topology_free(t);
    }
  }
}

}  // namespace live_test
