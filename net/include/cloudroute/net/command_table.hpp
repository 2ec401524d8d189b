// CommandTable: what each command does and where its keys are, as the
// server says (its COMMAND reply), so that the client decides whether a
// command is a read and which key places it the way the server itself does.
//
// A command whose flags say `readonly` (and not `write`) is a read: a
// replica may serve it. Anything else — a write, a command with neither
// flag, a command or subcommand the table does not know — goes to the
// master. Keys are found by the server's key specs (begin_search by index
// or keyword, find_keys by range or keynum): EVAL_RO / FCALL_RO numkeys,
// OBJECT ENCODING key, XREAD … STREAMS k1 k2 ids, MIGRATE … KEYS k1 k2;
// a server without key specs (before Redis 7) gives first / last / step.
// Container commands (OBJECT, XINFO, CLIENT …) are looked up by their
// subcommand ("object|encoding").
//
// Parse() refuses a reply of any other shape (a hostile or broken server)
// with kParse and why; the client then falls back to Static(): read-only
// commands from a list (the one the CLI had), keys at argument 1 except
// for the few commands whose positions it knows (EVAL_RO numkeys, OBJECT,
// XREAD STREAMS).
//
// CommandTables (one per client) learns the table on first use over a
// connection of its own to a master, once per client, shared by the
// clients of the process that talk to the same server version (INFO
// server); a refused COMMAND (ACL) or a reply Parse() refuses leaves the
// client on Static() for good, with one warn event saying so; a failed
// connection leaves it on Static() until the next attempt (at most one a
// second). A server upgrade is followed: after a refresh that changed the
// cluster's nodes, roles or their health (what a rolling upgrade does:
// nodes restart, masters fail over), Recheck() asks a master for its
// version again and re-learns the table when it differs.
//
// Thread-safety: a CommandTable is immutable; CommandTables is safe for
// concurrent use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cloudroute/core/status.hpp"
#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/reply.hpp"

namespace cloudroute {
namespace net {

// One key spec of a command (the server's, or the static table's).
struct KeySpec {
  enum class Begin : uint8_t { kIndex, kKeyword };
  enum class Find : uint8_t { kRange, kKeynum };
  Begin begin = Begin::kIndex;
  int32_t index = 1;      // kIndex: the first key's position
  std::string keyword;    // kKeyword: keys follow it (upper case) …
  int32_t startfrom = 1;  // … searched from here (negative: from the end, backwards)
  Find find = Find::kRange;
  int32_t lastkey = 0;    // kRange: last key relative to the first (negative: from the end)
  int32_t keystep = 1;    // both: distance between keys
  int32_t limit = 0;      // kRange with lastkey -1: keys are 1/limit of what follows
  int32_t keynumidx = 0;  // kKeynum: the key count's position relative to the first
  int32_t firstkey = 1;   // kKeynum: the first key relative to the first
};

struct CommandSpec {
  bool read_only = false;  // flags: readonly and not write
  std::vector<KeySpec> keys;
  std::unordered_map<std::string, CommandSpec> subcommands;  // lower-case subcommand name
};

// Where one command goes: its access and the positions of its keys in argv.
struct CommandRoute {
  Access access = Access::kWrite;
  std::vector<size_t> keys;  // ascending argument positions; empty: keyless
  bool known = false;        // the table knows the command (and subcommand)
};

class CommandTable {
 public:
  // The table of a COMMAND (or COMMAND INFO) reply. Errors: kParse with the
  // entry and what is wrong with it.
  static Result<std::shared_ptr<const CommandTable>> Parse(const Reply &reply);
  // The static fallback (see above).
  static std::shared_ptr<const CommandTable> Static();

  // argv[0] is the command's name. An unknown command (or subcommand) goes
  // to the master, routed by the argument after its name(s) when there is one.
  CommandRoute Classify(const std::vector<std::string_view> &argv) const;

  bool from_server() const { return from_server_; }
  size_t size() const { return commands_.size(); }

 private:
  std::unordered_map<std::string, CommandSpec> commands_;  // upper-case name
  bool from_server_ = false;
};

class CommandTables {
 public:
  explicit CommandTables(ClientContext *ctx) : ctx_(ctx) {}
  CommandTables(const CommandTables &) = delete;
  CommandTables &operator=(const CommandTables &) = delete;

  // The server's table, learned now if it is not yet known (see above), or
  // the static one.
  std::shared_ptr<const CommandTable> Get();
  // When the table is the server's, no recheck ran in the last
  // kRecheckGapMs and nodes_changed() says the cluster's nodes changed —
  // now, or at a call within the gap (remembered) — asks a master for its
  // server version (a connection of its own) and, when it is not the
  // version the table was learned from, learns that server's table (an
  // info event names both versions). Nothing changes when no master
  // answers (asked again at the first call after the gap) or the new table
  // is refused. Runs on the calling thread (the client calls it on its
  // refresher's, after each refresh), and calls nodes_changed only when the
  // table is the server's.
  void Recheck(const std::function<bool()> &nodes_changed);
  static constexpr uint32_t kRecheckGapMs = 5000;

 private:
  // The server's table from a master, or why not (*refused: the server
  // answered, and will answer so again); *version gets the master's
  // ServerVersion ("" when INFO server names none).
  Result<std::shared_ptr<const CommandTable>> Learn(bool *refused, std::string *version);

  ClientContext *const ctx_;
  std::mutex mu_;  // serialises learning; guards the fields below
  std::shared_ptr<const CommandTable> table_;
  bool settled_ = false;       // table_ is final (the server's, or Static() for good)
  std::string version_;        // the server version table_ was learned from
  int64_t next_try_ns_ = 0;    // after a connection failure
  int64_t next_check_ns_ = 0;  // Recheck's rate limit
  bool recheck_due_ = false;   // a change (or an unanswered recheck) waits for the gap
};

}  // namespace net
}  // namespace cloudroute
