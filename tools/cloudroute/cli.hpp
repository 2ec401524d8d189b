// The cloudroute command-line tool. Built on the C API only, like every
// binding. Exit codes: 0 success, 1 some keys could not be routed, 2 usage,
// configuration or input errors.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cloudroute.h"
#include "tls_flags.hpp"

namespace cli {

constexpr int kExitOk = 0;
constexpr int kExitRouteFailed = 1;
constexpr int kExitUsage = 2;

// Prints "cloudroute: <what>: <status text>: <cr_last_error()>" and returns kExitUsage.
int Die(const std::string &what, cr_status s);
int Usage(const std::string &msg);
// --db N: a database index (0-2147483647) into *db; 0 or Usage()'s code.
int ParseDb(const std::string &text, uint32_t *db);
// HOST:PORT or [IPv6]:PORT, the value of `option`, into *host (without the
// brackets) and *port (1-65535); 0 or Usage()'s code, naming what is wrong.
// Brackets hold only an address with a ':' in it, and an IPv6 address has
// them; the host itself is the C API's to judge.
int ParseHostPort(const std::string &option, const std::string &text, std::string *host,
                  uint16_t *port);

// Keys from argv, or one per line from stdin when there are none (the
// trailing '\n' is stripped; every other byte is kept).
std::vector<std::string> KeysFromArgsOrStdin(const std::vector<std::string> &args);

// Options shared by `topology` and `route`: the topology source, locality
// and policy. Parse() consumes what it knows and leaves the rest.
struct RouterSetup {
  std::string slots_file, shards_file, static_file, default_host;
  // --seeds HOST:PORT[,…]: the topology of a live cluster, read through a
  // short-lived cr_client whose router (borrowed) is the one routed on.
  std::string seeds;
  cr_client *client = nullptr;
  cr_config *cfg = nullptr;
  cr_router_options opts = CR_ROUTER_OPTIONS_INIT;
  cr_topology *topo = nullptr;
  cr_router *router = nullptr;
  TlsFlags tls;  // --tls, --cacert, …: for --seeds and every live command

  RouterSetup();
  ~RouterSetup();
  // Returns 0, or an exit code after printing the error. `rest` gets the
  // arguments it did not recognise, in order.
  int Parse(const std::vector<std::string> &args, std::vector<std::string> *rest);
  // Loads the topology and builds the router. Returns 0 or an exit code.
  int Build();
  int BuildLive();  // Build() for --seeds
};

std::string Address(const char *host, uint16_t port);
std::string JsonString(const std::string &s);
// Text from a server or a user, safe for a terminal or a log: printable ASCII
// as is, '\\' doubled, \n \r \t and every other byte as \xHH (redis-cli's
// quoting, without the quotes). Nothing a reply holds can move the cursor,
// change colours or forge a line.
std::string Printable(std::string_view text);
// A string as redis-cli quotes it: "…" with \" and Printable's escapes.
std::string Quoted(std::string_view text);
// A reply as redis-cli prints one to a terminal, appended to *out: strings
// Quoted, status text, "(integer) N", "(nil)", "(error) …", numbered arrays
// (indent: the width of the enclosing numbering, for lines after the first).
// Every byte from the server goes through Printable or Quoted.
void FormatReply(const cr_reply *r, size_t indent, std::string *out);
// The whole reply, formatted as FormatReply does, on stdout.
void PrintReply(const cr_reply *r);

// Strings as the C API takes binary arguments (argv and argvlen, keys and
// their lengths): a pointer and a length each, borrowed from the strings, so
// valid while they stay as they are (unchanged, not moved).
struct ByteArgs {
  std::vector<const void *> ptrs;
  std::vector<size_t> lens;
  explicit ByteArgs(const std::vector<std::string> &strings);
  size_t size() const { return ptrs.size(); }
};
// The strings' c_str()s, borrowed as ByteArgs's are, for the C API's lists
// of NUL-terminated names and addresses.
std::vector<const char *> CStrings(const std::vector<std::string> &strings);

int CmdKeyslot(const std::vector<std::string> &args);
int CmdTopology(const std::vector<std::string> &args);
int CmdRoute(const std::vector<std::string> &args);
int CmdDemo(const std::vector<std::string> &args);
int CmdJedisHash(const std::vector<std::string> &args);
int CmdRing(const std::vector<std::string> &args);
int CmdFamilyKey(const std::vector<std::string> &args);
// Prometheus text of a live client's statistics (after reading the given keys).
int CmdStats(const std::vector<std::string> &args);
// get | set | mget on a live cluster (--seeds), through the client.
int CmdClient(const std::string &verb, const std::vector<std::string> &args);
// exec: any command, routed by its key or sent to chosen nodes (cmd_exec.cpp).
int CmdExec(const std::vector<std::string> &args);
// pipe: commands from stdin run as one pipeline on a live cluster.
int CmdPipe(const std::vector<std::string> &args);
// sentinel route|get|set: family keys on Sentinel shard groups (cmd_sentinel.cpp).
int CmdSentinel(const std::vector<std::string> &args);
// sharded get|set|exec|reshard: pre-sharded standalone servers (cmd_sharded.cpp).
int CmdSharded(const std::vector<std::string> &args);
// scan: every key of the cluster, each shard once (cmd_scan.cpp).
int CmdScan(const std::vector<std::string> &args);
// subscribe, psubscribe, ssubscribe; publish, spublish (cmd_subscribe.cpp).
int CmdSubscribe(const std::string &verb, const std::vector<std::string> &args);
int CmdPublish(const std::string &verb, const std::vector<std::string> &args);

}  // namespace cli
