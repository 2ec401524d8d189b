#include "cloudroute/core/info_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace cloudroute {
namespace info_text_test {

// What a Redis 7.2 master prints for INFO replication (CRLF, as sent).
const char kMaster[] =
    "# Replication\r\n"
    "role:master\r\n"
    "connected_slaves:2\r\n"
    "slave0:ip=127.0.1.2,port=7002,state=online,offset=3962,lag=0\r\n"
    "slave1:ip=::1,port=7003,state=wait_bgsave,offset=0,lag=12\r\n"
    "master_failover_state:no-failover\r\n"
    "master_replid:0f0c5cbd4e8eb4b8d8b1d2c3e1f3a7a0a6c9b1d2\r\n"
    "master_repl_offset:3962\r\n"
    "slave_read_only:1\r\n"
    "repl_backlog_active:1\r\n";

TEST(InfoText, FieldsSectionsAndValuesWithColons) {
  const InfoText info = InfoText::Parse(
      "# Server\r\nredis_version:7.2.4\r\nexecutable:/usr/bin/redis-server\r\n"
      "config_file:\r\n\r\n# Replication\r\nrole:slave\r\nmaster_host:::1\r\n");
  ASSERT_EQ(info.fields().size(), 5u);
  EXPECT_EQ(info.fields()[0].section, "Server");
  EXPECT_EQ(info.fields()[4].section, "Replication");
  ASSERT_NE(info.Find("master_host"), nullptr);
  EXPECT_EQ(*info.Find("master_host"), "::1");
  ASSERT_NE(info.Find("config_file"), nullptr);
  EXPECT_EQ(*info.Find("config_file"), "");
  EXPECT_EQ(*info.Find("redis_version"), "7.2.4");
  EXPECT_EQ(info.Find("redis_ver"), nullptr);
  EXPECT_EQ(info.Find("7.2.4"), nullptr);
}

TEST(InfoText, CrlfAndLfGiveTheSameFields) {
  std::string lf = kMaster;
  for (size_t at = lf.find('\r'); at != std::string::npos; at = lf.find('\r')) lf.erase(at, 1);
  const InfoText a = InfoText::Parse(kMaster), b = InfoText::Parse(lf);
  ASSERT_EQ(a.fields().size(), b.fields().size());
  for (size_t i = 0; i < a.fields().size(); ++i) {
    EXPECT_EQ(a.fields()[i].key, b.fields()[i].key);
    EXPECT_EQ(a.fields()[i].value, b.fields()[i].value);
  }
  // No final newline: the last line still counts.
  EXPECT_EQ(*InfoText::Parse("a:1\r\nb:2").Find("b"), "2");
}

TEST(InfoText, GarbageYieldsNoFields) {
  EXPECT_TRUE(InfoText::Parse("").fields().empty());
  EXPECT_TRUE(InfoText::Parse("\r\n\n\r\n").fields().empty());
  EXPECT_TRUE(InfoText::Parse("no colon here\nnor here\r\n:leading colon\n#").fields().empty());
  EXPECT_TRUE(InfoText::Parse(std::string("\0\0\0", 3)).fields().empty());
  const InfoText mixed = InfoText::Parse("junk\nrole:master\n###\n");
  ASSERT_EQ(mixed.fields().size(), 1u);
  EXPECT_EQ(mixed.fields()[0].section, "");
}

TEST(InfoText, IntegersAreWholeAndInRange) {
  const InfoText info = InfoText::Parse(
      "a:42\nb:-7\nc:9223372036854775807\nd:9223372036854775808\ne:12abc\nf:\ng: 5\nh:0x10\n");
  EXPECT_EQ(info.FindInt("a"), 42);
  EXPECT_EQ(info.FindInt("b"), -7);
  EXPECT_EQ(info.FindInt("c"), INT64_MAX);
  EXPECT_EQ(info.FindInt("d"), std::nullopt);  // overflows
  EXPECT_EQ(info.FindInt("e"), std::nullopt);
  EXPECT_EQ(info.FindInt("f"), std::nullopt);
  EXPECT_EQ(info.FindInt("g"), std::nullopt);
  EXPECT_EQ(info.FindInt("h"), std::nullopt);
  EXPECT_EQ(info.FindInt("missing"), std::nullopt);
}

TEST(InfoText, ReplicationOfAMaster) {
  const ReplicationInfo r = ParseReplicationInfo(kMaster);
  EXPECT_EQ(r.role, "master");
  EXPECT_EQ(r.master_repl_offset, 3962);
  EXPECT_EQ(r.master_link_status, "");
  ASSERT_EQ(r.replicas.size(), 2u);  // slave_read_only is not a replica line
  EXPECT_EQ(r.replicas[0].ip, "127.0.1.2");
  EXPECT_EQ(r.replicas[0].port, 7002);
  EXPECT_EQ(r.replicas[0].state, "online");
  EXPECT_EQ(r.replicas[0].offset, 3962);
  EXPECT_EQ(r.replicas[0].lag_s, 0);
  EXPECT_EQ(r.replicas[1].ip, "::1");
  EXPECT_EQ(r.replicas[1].state, "wait_bgsave");
  EXPECT_EQ(r.replicas[1].lag_s, 12);
}

TEST(InfoText, ReplicationOfAReplica) {
  const ReplicationInfo r = ParseReplicationInfo(
      "# Replication\nrole:slave\nmaster_host:127.0.1.1\nmaster_port:7001\n"
      "master_link_status:down\nmaster_sync_in_progress:1\nslave_repl_offset:0\n"
      "master_repl_offset:0\n");
  EXPECT_EQ(r.role, "slave");
  EXPECT_EQ(r.master_link_status, "down");
  EXPECT_EQ(r.master_sync_in_progress, "1");
  EXPECT_EQ(r.master_repl_offset, 0);
  EXPECT_TRUE(r.replicas.empty());
}

TEST(InfoText, ReplicationMissingFieldsAndBadReplicaLines) {
  const ReplicationInfo none = ParseReplicationInfo("# Replication\r\n");
  EXPECT_EQ(none.role, "");
  EXPECT_EQ(none.master_repl_offset, -1);
  EXPECT_TRUE(none.replicas.empty());

  const ReplicationInfo r = ParseReplicationInfo(
      "master_repl_offset:99999999999999999999\n"
      "slave0:ip=10.0.0.1,state=online\n"             // no port
      "slave1:port=7001,state=online\n"               // no ip
      "slave2:ip=10.0.0.3,port=70000,state=online\n"  // port out of range
      "slave3:ip=10.0.0.4,port=0\n"                   // port 0
      "slave4:ip=10.0.0.5,port=7005,offset=x,lag=99999999999999999999\n"
      "slavex:ip=10.0.0.6,port=7006\n"  // not slave<N>
      "slave:ip=10.0.0.7,port=7007\n"
      "slave6:garbage,,=,ip=10.0.0.8,port=7008\n");
  EXPECT_EQ(r.master_repl_offset, -1);  // overflows: unknown, not clamped
  ASSERT_EQ(r.replicas.size(), 2u);
  EXPECT_EQ(r.replicas[0].ip, "10.0.0.5");
  EXPECT_EQ(r.replicas[0].port, 7005);
  EXPECT_EQ(r.replicas[0].state, "");
  EXPECT_EQ(r.replicas[0].offset, -1);
  EXPECT_EQ(r.replicas[0].lag_s, -1);
  EXPECT_EQ(r.replicas[1].ip, "10.0.0.8");
  EXPECT_EQ(r.replicas[1].port, 7008);
}

}  // namespace info_text_test
}  // namespace cloudroute
