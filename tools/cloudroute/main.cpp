#include <cstdio>
#include <cstring>

#include "cli.hpp"

namespace {

const char kHelp[] =
    "usage: cloudroute <command> [options]\n"
    "\n"
    "commands:\n"
    "  keyslot [KEY...]        the Redis Cluster slot of each key (stdin, one per line, when "
    "none)\n"
    "  topology SOURCE [LOCALITY] [--policy P]\n"
    "                          each shard's slot ranges and ordered read candidates\n"
    "  route SOURCE [LOCALITY] [--policy P] [--explain] [--json] [KEY...]\n"
    "                          per key: slot, write node, ordered read candidates\n"
    "  jedis-hash --algo murmur|md5 [KEY...]\n"
    "                          Jedis's Hashing value of each key (a signed 64-bit long)\n"
    "  ring --algo murmur|md5|ketama|jump|modulo --shards SPEC|N [--naming jedis3|jedis2]\n"
    "       [--key-tags] [KEY...]\n"
    "                          each key's 0-based shard on a client-side sharding ring\n"
    "                          (SPEC: NAME=WEIGHT,...; =WEIGHT is an unnamed shard)\n"
    "  family-key [--variant jedis|commons-codec] FAMILY KEY\n"
    "                          the stored key of the family-key design (decimal MurmurHash)\n"
    "  get --seeds HOST:PORT[,...] [LOCALITY] [--policy P] [--stats] KEY...\n"
    "  mget --seeds ... [LOCALITY] [--policy P] [--stats] KEY...\n"
    "  set --seeds ... KEY VALUE\n"
    "                          run on a live cluster through the client; --stats prints (stderr)\n"
    "                          where each read was served; --user U, --client-name N;\n"
    "                          --db N: every connection sends SELECT N (default 0);\n"
    "                          --shared-connections N: commands share N connections per node\n"
    "                          (default 2; 0: a connection per command in flight);\n"
    "                          --read-your-writes MS: after a write to a slot, its reads go\n"
    "                          to the master for MS (a pipe's read after its own write of the\n"
    "                          slot always does); the password comes from $CLOUDROUTE_PASSWORD\n"
    "  exec --seeds ... [--node HOST:PORT | --all-masters | --all-nodes] [--read | --write]\n"
    "       [--key-index N] [--timeout MS] -- CMD ARG...\n"
    "                          any command: classed and routed as the server's command table\n"
    "                          says (--read / --write, --key-index N override it), or sent\n"
    "                          to one node, every master or every node (each reply printed\n"
    "                          under its address); --timeout replaces the tier timeout\n"
    "  stats --seeds ... [LOCALITY] [--log LEVEL] [KEY...]\n"
    "                          read the keys, print the client's statistics as Prometheus text\n"
    "  pipe --seeds ... [LOCALITY] [--policy P] [--node HOST:PORT]\n"
    "                          commands from stdin, one per line (redis-cli quoting), run as one\n"
    "                          pipeline; replies printed in order; keyless commands go to --node\n"
    "  scan --seeds ... [LOCALITY] [--match PATTERN] [--count N] [--type TYPE] [--nodes]\n"
    "                          every key of the cluster, one per line: each shard once, on the\n"
    "                          node a read would use (a local replica where there is one)\n"
    "  subscribe|psubscribe|ssubscribe --seeds ... [LOCALITY] [--count N] [--timeout MS] NAME...\n"
    "                          print each message of the channels, patterns or shard channels\n"
    "                          (on a local node; moved when it fails or the slot moves)\n"
    "  publish|spublish --seeds ... [LOCALITY] CHANNEL MESSAGE\n"
    "                          publish (spublish: to the shard channel's master); prints the\n"
    "                          receiver count\n"
    "  sentinel route|get|set|mget|mset|del|exists --sentinels HOST:PORT[,...]\n"
    "       --masters NAME[,...] [--variant V] [LOCALITY] FAMILY KEY [VALUE|KEY...]\n"
    "                          family keys on Sentinel shard groups: where (FAMILY, KEY) is\n"
    "                          stored and served, read it, write it, and batches of many\n"
    "                          keys, one command per group (sentinel --help)\n"
    "  sharded get|set|exec|reshard --server HOST:PORT[,REPLICA...] ...\n"
    "                          pre-sharded standalone servers on a ring (ShardedJedis): a\n"
    "                          command on a key's shard; the share of keys a change of the\n"
    "                          shard list moves (sharded --help)\n"
    "  demo latency|watch --seeds HOST:PORT[,...] [LOCALITY] [--remap ANNOUNCED=DIAL]...\n"
    "                          fan-out reads on a live cluster: latency by policy, or a live view\n"
    "                          of where reads and writes go (scripts/demo.sh runs both)\n"
    "  version                 the library version\n"
    "\n"
    "SOURCE (one of):\n"
    "  --cluster-slots FILE    a saved CLUSTER SLOTS reply (RESP2 or RESP3 bytes)\n"
    "  --cluster-shards FILE   a saved CLUSTER SHARDS reply (RESP2 or RESP3 bytes)\n"
    "  --static FILE           a static topology (lines: shard slots=.. master=.. replicas=..)\n"
    "  --seeds HOST:PORT[,...] a live cluster: its topology read now (CLUSTER SHARDS, else SLOTS)\n"
    "  --default-host HOST     address to use where a reply gives an empty endpoint\n"
    "\n"
    "LOCALITY (repeatable):\n"
    "  --local-cidr CIDR                      nodes in CIDR are in the client's zone\n"
    "  --location-rule CIDR=cloud[/region[/zone]]\n"
    "  --client-location cloud[/region[/zone]]\n"
    "  --client-zone ZONE                     the client's zone as the servers name it\n"
    "                                         (availability-zone): nodes reporting ZONE are\n"
    "                                         local, nodes reporting another zone same-region\n"
    "  --zone ZONE=cloud[/region[/zone]]      what a server-reported zone means\n"
    "  --node-location HOST:PORT|ID=cloud[/region[/zone]]\n"
    "  --weight HOST:PORT|ID=N                relative read weight (default 1)\n"
    "  --remap ANNOUNCED=DIAL                 live commands dial DIAL for the node announced\n"
    "                                         as ANNOUNCED (NAT, a proxy)\n"
    "\n"
    "  --selection random|round-robin|least-loaded\n"
    "                                         how a read picks among equal candidates\n"
    "\n"
    "policies: master, prefer-replica, local (default), local-replicas-first, nearest,\n"
    "          local-spread, replica-only\n"
    "exit codes: 0 ok, 1 a key could not be routed, 2 usage or input error\n";

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0 ||
      std::strcmp(argv[1], "help") == 0) {
    std::fputs(kHelp, argc < 2 ? stderr : stdout);
    std::fputs(cli::kTlsHelp, argc < 2 ? stderr : stdout);
    return argc < 2 ? cli::kExitUsage : cli::kExitOk;
  }
  const std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (cmd == "keyslot") return cli::CmdKeyslot(args);
  if (cmd == "topology") return cli::CmdTopology(args);
  if (cmd == "route") return cli::CmdRoute(args);
  if (cmd == "demo") return cli::CmdDemo(args);
  if (cmd == "jedis-hash") return cli::CmdJedisHash(args);
  if (cmd == "ring") return cli::CmdRing(args);
  if (cmd == "family-key") return cli::CmdFamilyKey(args);
  if (cmd == "stats") return cli::CmdStats(args);
  if (cmd == "get" || cmd == "set" || cmd == "mget") return cli::CmdClient(cmd, args);
  if (cmd == "exec") return cli::CmdExec(args);
  if (cmd == "pipe") return cli::CmdPipe(args);
  if (cmd == "scan") return cli::CmdScan(args);
  if (cmd == "subscribe" || cmd == "psubscribe" || cmd == "ssubscribe") {
    return cli::CmdSubscribe(cmd, args);
  }
  if (cmd == "publish" || cmd == "spublish") return cli::CmdPublish(cmd, args);
  if (cmd == "sentinel") return cli::CmdSentinel(args);
  if (cmd == "sharded") return cli::CmdSharded(args);
  if (cmd == "version" || cmd == "--version") {
    std::printf("cloudroute %s (library %s)\n", CR_VERSION_STRING, cr_version());
    return cli::kExitOk;
  }
  return cli::Usage("unknown command '" + cmd + "' (try: cloudroute --help)");
}
