// The server's command table, its static fallback, and learning it (see
// command_table.hpp).
#include "cloudroute/net/command_table.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "cloudroute/net/connection.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"
#include "cloudroute/net/node_commands.hpp"
#include "cloudroute/net/node_pools.hpp"

namespace cloudroute {
namespace net {

namespace {

// Bounds no real server comes near: a reply past them is refused.
constexpr size_t kMaxCommands = 10000;
constexpr size_t kMaxNameLen = 128;
constexpr int64_t kMaxPosition = 1 << 20;  // key positions, steps, limits

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char &c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char &c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool Same(std::string_view a, std::string_view b) { return Upper(a) == Upper(b); }

// A map-shaped array (name, value, name, value …) of the COMMAND reply.
class Fields {
 public:
  static Result<Fields> Of(const Reply *r, const char *what) {
    if (r == nullptr || r->type != RespType::kArray || r->elements.size() % 2 != 0) {
      return Error(Code::kParse, std::string(what) + " is not a list of names and values");
    }
    Fields f;
    for (size_t i = 0; i < r->elements.size(); i += 2) {
      if (!r->elements[i]->is_string()) {
        return Error(Code::kParse, std::string(what) + " has a name that is not a string");
      }
      f.pairs_.emplace_back(r->elements[i]->str, r->elements[i + 1].get());
    }
    return f;
  }
  const Reply *Get(std::string_view name) const {
    for (const auto &p : pairs_) {
      if (Same(p.first, name)) return p.second;
    }
    return nullptr;
  }
  Result<std::string> Str(std::string_view name, const char *what) const {
    const Reply *r = Get(name);
    if (r == nullptr || !r->is_string()) {
      return Error(Code::kParse, std::string(what) + ": " + std::string(name) + " is not a string");
    }
    return r->str;
  }
  Result<int32_t> Int(std::string_view name, int64_t lo, const char *what) const {
    const Reply *r = Get(name);
    if (r == nullptr || r->type != RespType::kInteger || r->integer < lo ||
        r->integer > kMaxPosition) {
      return Error(Code::kParse, std::string(what) + ": " + std::string(name) +
                                     " is not an integer in [" + std::to_string(lo) + ", " +
                                     std::to_string(kMaxPosition) + "]");
    }
    return static_cast<int32_t>(r->integer);
  }

 private:
  std::vector<std::pair<std::string, const Reply *>> pairs_;
};

// One key spec; *usable false for a spec the server itself cannot follow
// (type unknown) or one that names no key (not_key).
Status ParseKeySpec(const Reply *r, KeySpec *out, bool *usable) {
  auto f = Fields::Of(r, "a key spec");
  if (!f.ok()) return f.status();
  *usable = true;
  if (const Reply *flags = f->Get("flags"); flags != nullptr) {
    if (flags->type != RespType::kArray) return Error(Code::kParse, "key spec flags not a list");
    for (const ReplyPtr &fl : flags->elements) {
      if (!fl->is_string()) return Error(Code::kParse, "a key spec flag is not a string");
      if (Same(fl->str, "not_key")) *usable = false;
    }
  }
  auto bs = Fields::Of(f->Get("begin_search"), "begin_search");
  if (!bs.ok()) return bs.status();
  auto fk = Fields::Of(f->Get("find_keys"), "find_keys");
  if (!fk.ok()) return fk.status();
  auto bs_type = bs->Str("type", "begin_search");
  if (!bs_type.ok()) return bs_type.status();
  auto fk_type = fk->Str("type", "find_keys");
  if (!fk_type.ok()) return fk_type.status();
  if (Same(*bs_type, "unknown") || Same(*fk_type, "unknown")) {
    *usable = false;
    return Status::Ok();
  }
  auto bs_spec = Fields::Of(bs->Get("spec"), "begin_search spec");
  if (!bs_spec.ok()) return bs_spec.status();
  if (Same(*bs_type, "index")) {
    out->begin = KeySpec::Begin::kIndex;
    auto index = bs_spec->Int("index", 1, "begin_search");
    if (!index.ok()) return index.status();
    out->index = *index;
  } else if (Same(*bs_type, "keyword")) {
    out->begin = KeySpec::Begin::kKeyword;
    auto kw = bs_spec->Str("keyword", "begin_search");
    if (!kw.ok()) return kw.status();
    if (kw->empty() || kw->size() > kMaxNameLen) {
      return Error(Code::kParse, "begin_search: keyword empty or too long");
    }
    out->keyword = Upper(*kw);
    auto from = bs_spec->Int("startfrom", -kMaxPosition, "begin_search");
    if (!from.ok()) return from.status();
    if (*from == 0) return Error(Code::kParse, "begin_search: startfrom is 0");
    out->startfrom = *from;
  } else {
    return Error(Code::kParse, "begin_search type '" + bs_type->substr(0, 32) + "' unknown");
  }
  auto fk_spec = Fields::Of(fk->Get("spec"), "find_keys spec");
  if (!fk_spec.ok()) return fk_spec.status();
  if (Same(*fk_type, "range")) {
    out->find = KeySpec::Find::kRange;
    auto last = fk_spec->Int("lastkey", -kMaxPosition, "find_keys");
    auto step = fk_spec->Int("keystep", 1, "find_keys");
    auto limit = fk_spec->Int("limit", 0, "find_keys");
    if (!last.ok()) return last.status();
    if (!step.ok()) return step.status();
    if (!limit.ok()) return limit.status();
    out->lastkey = *last;
    out->keystep = *step;
    out->limit = *limit;
  } else if (Same(*fk_type, "keynum")) {
    out->find = KeySpec::Find::kKeynum;
    auto idx = fk_spec->Int("keynumidx", 0, "find_keys");
    auto first = fk_spec->Int("firstkey", 0, "find_keys");
    auto step = fk_spec->Int("keystep", 1, "find_keys");
    if (!idx.ok()) return idx.status();
    if (!first.ok()) return first.status();
    if (!step.ok()) return step.status();
    out->keynumidx = *idx;
    out->firstkey = *first;
    out->keystep = *step;
  } else {
    return Error(Code::kParse, "find_keys type '" + fk_type->substr(0, 32) + "' unknown");
  }
  return Status::Ok();
}

const Reply *At(const Reply &entry, size_t i) {
  return i < entry.elements.size() ? entry.elements[i].get() : nullptr;
}

Result<int64_t> IntAt(const Reply &entry, size_t i, const char *what) {
  const Reply *r = At(entry, i);
  if (r == nullptr || r->type != RespType::kInteger || r->integer < -kMaxPosition ||
      r->integer > kMaxPosition) {
    return Error(Code::kParse, std::string(what) + " is not a small integer");
  }
  return r->integer;
}

// One entry of the reply: [name, arity, flags, first_key, last_key, step,
// acl categories, tips, key specs, subcommands] (the last four from Redis 7).
Status ParseEntry(const Reply &entry, int level, std::string *name, CommandSpec *out) {
  if (entry.type != RespType::kArray || entry.elements.size() < 6) {
    return Error(Code::kParse, "an entry is not a list of at least 6 elements");
  }
  const Reply *n = At(entry, 0);
  if (!n->is_string() || n->str.empty() || n->str.size() > kMaxNameLen) {
    return Error(Code::kParse, "an entry's name is not a string of 1 to 128 bytes");
  }
  *name = n->str;
  auto fail = [&](const Status &s) {
    return Error(Code::kParse, "entry '" + *name + "': " + s.message());
  };
  if (auto arity = IntAt(entry, 1, "arity"); !arity.ok()) return fail(arity.status());
  const Reply *flags = At(entry, 2);
  if (flags->type != RespType::kArray) return fail(Error(Code::kParse, "flags is not a list"));
  bool readonly = false, write = false;
  for (const ReplyPtr &f : flags->elements) {
    if (!f->is_string()) return fail(Error(Code::kParse, "a flag is not a string"));
    readonly = readonly || Same(f->str, "readonly");
    write = write || Same(f->str, "write");
  }
  out->read_only = readonly && !write;
  auto first = IntAt(entry, 3, "first_key");
  auto last = IntAt(entry, 4, "last_key");
  auto step = IntAt(entry, 5, "step");
  if (!first.ok()) return fail(first.status());
  if (!last.ok()) return fail(last.status());
  if (!step.ok()) return fail(step.status());
  const Reply *specs = At(entry, 8);
  if (specs != nullptr) {
    if (specs->type != RespType::kArray) return fail(Error(Code::kParse, "key specs not a list"));
    for (const ReplyPtr &s : specs->elements) {
      KeySpec k;
      bool usable = false;
      if (Status st = ParseKeySpec(s.get(), &k, &usable); !st.ok()) return fail(st);
      if (usable) out->keys.push_back(std::move(k));
    }
  } else if (*first > 0) {
    // Before key specs: keys first..last (negative: from the end) by step.
    if (*step < 1) return fail(Error(Code::kParse, "step is below 1"));
    KeySpec k;
    k.index = static_cast<int32_t>(*first);
    k.lastkey = *last < 0 ? static_cast<int32_t>(*last) : static_cast<int32_t>(*last - *first);
    if (k.lastkey < -kMaxPosition) return fail(Error(Code::kParse, "last_key before first_key"));
    k.keystep = static_cast<int32_t>(*step);
    out->keys.push_back(std::move(k));
  }
  const Reply *subs = At(entry, 9);
  if (subs != nullptr) {
    if (subs->type != RespType::kArray) return fail(Error(Code::kParse, "subcommands not a list"));
    if (level > 0 && !subs->elements.empty()) {
      return fail(Error(Code::kParse, "a subcommand has subcommands"));
    }
    for (const ReplyPtr &s : subs->elements) {
      std::string sub_name;
      CommandSpec sub;
      if (Status st = ParseEntry(*s, level + 1, &sub_name, &sub); !st.ok()) return fail(st);
      const size_t bar = sub_name.find('|');
      if (bar == std::string::npos || !Same(sub_name.substr(0, bar), *name) ||
          bar + 1 == sub_name.size()) {
        return fail(Error(Code::kParse, "subcommand '" + sub_name + "' is not " + *name + "|…"));
      }
      if (!out->subcommands.emplace(Lower(sub_name.substr(bar + 1)), std::move(sub)).second) {
        return fail(Error(Code::kParse, "subcommand '" + sub_name + "' twice"));
      }
    }
  }
  return Status::Ok();
}

// The positions of the keys one spec finds in argv, appended to *out
// (Redis's own walk: positions past the end end the walk, as a malformed
// command the server will refuse anyway).
void FindKeys(const KeySpec &k, const std::vector<std::string_view> &argv,
              std::vector<size_t> *out) {
  const int64_t argc = static_cast<int64_t>(argv.size());
  int64_t first = 0;
  if (k.begin == KeySpec::Begin::kIndex) {
    first = k.index;
  } else {
    const bool forward = k.startfrom > 0;
    for (int64_t i = forward ? k.startfrom : argc + k.startfrom; i >= 1 && i < argc;
         i += forward ? 1 : -1) {
      if (Same(argv[static_cast<size_t>(i)], k.keyword)) {
        first = i + 1;
        break;
      }
    }
    if (first == 0) return;
  }
  if (first >= argc) return;
  int64_t last = 0;
  if (k.find == KeySpec::Find::kRange) {
    if (k.lastkey >= 0) {
      last = first + k.lastkey;
    } else if (k.limit <= 1) {
      last = argc + k.lastkey;
    } else {
      last = first + (argc - first) / k.limit + k.lastkey;
    }
  } else {
    const int64_t at = first + k.keynumidx;
    if (at >= argc) return;
    const std::string_view n = argv[static_cast<size_t>(at)];
    int64_t numkeys = 0;
    if (n.empty() || n.size() > 7) return;
    for (char c : n) {
      if (c < '0' || c > '9') return;
      numkeys = numkeys * 10 + (c - '0');
    }
    first += k.firstkey;
    last = first + numkeys - 1;
  }
  for (int64_t i = first; i <= last && i < argc; i += k.keystep) {
    out->push_back(static_cast<size_t>(i));
  }
}

// Static(): the read-only commands the CLI's pipe used to list, and the
// key positions it got wrong.
struct StaticEntry {
  const char *name;
  bool read_only;
};

constexpr StaticEntry kStaticCommands[] = {
    {"GET", true},
    {"MGET", true},
    {"STRLEN", true},
    {"GETRANGE", true},
    {"SUBSTR", true},
    {"EXISTS", true},
    {"TTL", true},
    {"PTTL", true},
    {"EXPIRETIME", true},
    {"PEXPIRETIME", true},
    {"TYPE", true},
    {"HGET", true},
    {"HMGET", true},
    {"HGETALL", true},
    {"HKEYS", true},
    {"HVALS", true},
    {"HLEN", true},
    {"HEXISTS", true},
    {"HSTRLEN", true},
    {"HRANDFIELD", true},
    {"HTTL", true},
    {"HPTTL", true},
    {"HEXPIRETIME", true},
    {"HPEXPIRETIME", true},
    {"LRANGE", true},
    {"LLEN", true},
    {"LINDEX", true},
    {"LPOS", true},
    {"SMEMBERS", true},
    {"SISMEMBER", true},
    {"SMISMEMBER", true},
    {"SCARD", true},
    {"SRANDMEMBER", true},
    {"SINTER", true},
    {"SUNION", true},
    {"SDIFF", true},
    {"ZRANGE", true},
    {"ZRANGEBYSCORE", true},
    {"ZRANGEBYLEX", true},
    {"ZREVRANGE", true},
    {"ZREVRANGEBYSCORE", true},
    {"ZSCORE", true},
    {"ZMSCORE", true},
    {"ZCARD", true},
    {"ZCOUNT", true},
    {"ZLEXCOUNT", true},
    {"ZRANK", true},
    {"ZREVRANK", true},
    {"XRANGE", true},
    {"XREVRANGE", true},
    {"XLEN", true},
    {"BITCOUNT", true},
    {"BITPOS", true},
    {"GETBIT", true},
    {"DUMP", true},
    {"PFCOUNT", true},
    {"GEOPOS", true},
    {"GEODIST", true},
    {"GEOSEARCH", true},
    {"SORT_RO", true},
    {"TOUCH", true},
};

KeySpec IndexSpec(int32_t index, int32_t lastkey = 0) {
  KeySpec k;
  k.index = index;
  k.lastkey = lastkey;
  return k;
}

KeySpec NumkeysSpec() {  // EVAL_RO script numkeys key…
  KeySpec k;
  k.index = 2;
  k.find = KeySpec::Find::kKeynum;
  k.keynumidx = 0;
  k.firstkey = 1;
  return k;
}

KeySpec StreamsSpec() {  // XREAD … STREAMS key… id…
  KeySpec k;
  k.begin = KeySpec::Begin::kKeyword;
  k.keyword = "STREAMS";
  k.startfrom = 1;
  k.lastkey = -1;
  k.limit = 2;
  return k;
}

std::string ServerVersion(const Reply &info) {
  if (!info.is_string()) return std::string();
  std::string name = "redis", version;
  size_t at = 0;
  while (at < info.str.size()) {
    size_t end = info.str.find('\n', at);
    if (end == std::string::npos) end = info.str.size();
    std::string_view line(info.str.data() + at, end - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    auto value = [&](std::string_view field) -> std::string_view {
      return line.substr(0, field.size()) == field ? line.substr(field.size()) : std::string_view();
    };
    if (auto v = value("server_name:"); !v.empty()) name = std::string(v);
    if (auto v = value("valkey_version:"); !v.empty()) version = std::string(v);
    if (auto v = value("redis_version:"); !v.empty() && version.empty()) version = std::string(v);
    at = end + 1;
  }
  if (name == "valkey" && version.find('.') == std::string::npos) return std::string();
  return version.empty() ? std::string() : name + " " + version.substr(0, 64);
}

// Tables learned in this process, by server version.
std::mutex g_cache_mu;
std::map<std::string, std::shared_ptr<const CommandTable>> &Cache() {
  static auto *cache = new std::map<std::string, std::shared_ptr<const CommandTable>>();
  return *cache;
}

}  // namespace

Result<std::shared_ptr<const CommandTable>> CommandTable::Parse(const Reply &reply) {
  if (reply.is_error()) return Error(Code::kServerError, reply.str.substr(0, 256));
  if (reply.type != RespType::kArray || reply.elements.empty()) {
    return Error(Code::kParse, "the COMMAND reply is not a non-empty list");
  }
  if (reply.elements.size() > kMaxCommands) {
    return Error(Code::kParse, "the COMMAND reply lists more than 10000 commands");
  }
  auto table = std::make_shared<CommandTable>();
  table->from_server_ = true;
  for (size_t i = 0; i < reply.elements.size(); ++i) {
    const Reply &e = *reply.elements[i];
    if (e.type == RespType::kNull) continue;  // COMMAND INFO of an unknown name
    std::string name;
    CommandSpec spec;
    if (Status s = ParseEntry(e, 0, &name, &spec); !s.ok()) {
      return Error(Code::kParse, "COMMAND reply, entry " + std::to_string(i) + ": " + s.message());
    }
    if (!table->commands_.emplace(Upper(name), std::move(spec)).second) {
      return Error(Code::kParse, "COMMAND reply: '" + name + "' twice");
    }
  }
  return std::shared_ptr<const CommandTable>(std::move(table));
}

std::shared_ptr<const CommandTable> CommandTable::Static() {
  static const std::shared_ptr<const CommandTable> table = [] {
    auto t = std::make_shared<CommandTable>();
    for (const StaticEntry &e : kStaticCommands) {
      CommandSpec s;
      s.read_only = e.read_only;
      s.keys.push_back(IndexSpec(1));
      t->commands_.emplace(e.name, std::move(s));
    }
    for (const char *multi : {"MGET", "EXISTS", "TOUCH", "SINTER", "SUNION", "SDIFF", "PFCOUNT"}) {
      t->commands_[multi].keys = {IndexSpec(1, -1)};
    }
    for (const char *eval : {"EVAL_RO", "EVALSHA_RO", "FCALL_RO"}) {
      CommandSpec s;
      s.read_only = true;
      s.keys.push_back(NumkeysSpec());
      t->commands_.emplace(eval, std::move(s));
    }
    CommandSpec object;
    for (const char *sub : {"encoding", "freq", "idletime", "refcount"}) {
      CommandSpec s;
      s.read_only = true;
      s.keys.push_back(IndexSpec(2));
      object.subcommands.emplace(sub, std::move(s));
    }
    t->commands_.emplace("OBJECT", std::move(object));
    for (const char *xread : {"XREAD", "XREADGROUP"}) {
      CommandSpec s;
      s.read_only = xread[5] == '\0';  // XREADGROUP moves the group's cursor: a write
      s.keys.push_back(StreamsSpec());
      t->commands_.emplace(xread, std::move(s));
    }
    return std::shared_ptr<const CommandTable>(std::move(t));
  }();
  return table;
}

CommandRoute CommandTable::Classify(const std::vector<std::string_view> &argv) const {
  CommandRoute route;
  if (argv.empty()) return route;
  size_t name_args = 1;
  const CommandSpec *spec = nullptr;
  if (auto it = commands_.find(Upper(argv[0])); it != commands_.end()) {
    spec = &it->second;
    if (!spec->subcommands.empty()) {
      name_args = 2;
      auto sub = argv.size() > 1 ? spec->subcommands.find(Lower(argv[1])) : spec->subcommands.end();
      spec = sub == spec->subcommands.end() ? nullptr : &sub->second;
    }
  }
  if (spec == nullptr) {  // unknown: the master, by the first argument after the name(s)
    if (argv.size() > name_args) route.keys.push_back(name_args);
    return route;
  }
  route.known = true;
  route.access = spec->read_only ? Access::kRead : Access::kWrite;
  for (const KeySpec &k : spec->keys) FindKeys(k, argv, &route.keys);
  std::sort(route.keys.begin(), route.keys.end());
  route.keys.erase(std::unique(route.keys.begin(), route.keys.end()), route.keys.end());
  // MIGRATE host port "" db timeout KEYS k…: the empty key stands for none.
  const bool any_named =
      std::any_of(route.keys.begin(), route.keys.end(), [&](size_t i) { return !argv[i].empty(); });
  if (any_named) {
    route.keys.erase(std::remove_if(route.keys.begin(), route.keys.end(),
                                    [&](size_t i) { return argv[i].empty(); }),
                     route.keys.end());
  }
  return route;
}

std::shared_ptr<const CommandTable> CommandTables::Get() {
  std::shared_ptr<const CommandTable> table;
  Status why;
  bool refused = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (settled_) return table_;
    if (ctx_->router == nullptr) {  // shard groups: no cluster to ask
      settled_ = true;
      table_ = CommandTable::Static();
      return table_;
    }
    const int64_t now = SteadyNowNs();
    if (now < next_try_ns_) return CommandTable::Static();
    std::string version;
    auto learned = Learn(&refused, &version);
    if (learned.ok()) {
      table_ = std::move(*learned);
      settled_ = true;
      version_ = std::move(version);
    } else {
      why = learned.status();
      if (refused) {
        table_ = CommandTable::Static();
        settled_ = true;
      } else {
        next_try_ns_ = now + 1000000000;
      }
    }
    table = settled_ ? table_ : CommandTable::Static();
  }
  // Logged outside the lock: a log handler may send a command itself.
  if (why.ok()) {
    ctx_->log.Emit(LogLevel::kInfo, "command table learned from the server",
                   {{"commands", std::to_string(table->size())}});
  } else {
    ctx_->log.Emit(LogLevel::kWarn,
                   refused ? "command table refused: routing by the static table"
                           : "command table unavailable: routing by the static table for now",
                   {{"reason", why.message()}});
  }
  return table;
}

void CommandTables::Recheck(const std::function<bool()> &nodes_changed) {
  std::string had;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const bool servers = table_ != nullptr && table_->from_server();
    if (!servers || ctx_->router == nullptr) return;
  }
  const bool changed = nodes_changed();
  {
    std::lock_guard<std::mutex> lock(mu_);
    // A change seen within the gap is asked about once it has passed: a
    // rolling upgrade's failover may come seconds after a restart was seen.
    recheck_due_ = recheck_due_ || changed;
    const int64_t now = SteadyNowNs();
    if (!recheck_due_ || now < next_check_ns_) return;
    recheck_due_ = false;
    next_check_ns_ = now + int64_t{kRecheckGapMs} * 1000000;
    had = version_;
  }
  // Asked without the lock: commands keep the table they have meanwhile.
  bool refused = false;
  std::string version;
  auto learned = Learn(&refused, &version);
  if (!learned.ok() && !refused) {  // no master answered: asked again after the gap
    std::lock_guard<std::mutex> lock(mu_);
    recheck_due_ = true;
    return;
  }
  if (!learned.ok() || version.empty() || version == had) return;
  size_t commands = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (version_ != had) return;  // another recheck got there first
    table_ = std::move(*learned);
    version_ = version;
    commands = table_->size();
  }
  ctx_->log.Emit(LogLevel::kInfo, "command table re-learned: the server version changed",
                 {{"from", had.empty() ? "unknown" : had},
                  {"to", version},
                  {"commands", std::to_string(commands)}});
}

Result<std::shared_ptr<const CommandTable>> CommandTables::Learn(bool *refused,
                                                                 std::string *version_out) {
  const std::shared_ptr<const Snapshot> snap = ctx_->router->Current();
  auto masters = ResolveTargets(snap.get(), NodeTarget::kMasters, "");
  if (!masters.ok()) return masters.status();
  Status last = Error(Code::kNoTopology, "no master in the topology");
  for (size_t i = 0; i < masters->size() && i < 3; ++i) {
    const NodeEntry *node = (*masters)[i].node;
    const auto [host, port] = DialAddress(*ctx_, *node);
    // A connection of its own: subcommands nest the reply deeper than
    // command replies may (max_depth), and a pooled connection's failure
    // would mark the node.
    ConnectOptions conn = ctx_->opts.conn;
    conn.readonly = false;
    conn.limits.max_depth = std::max<uint32_t>(conn.limits.max_depth, 10);
    const uint32_t timeout = std::max<uint32_t>(ctx_->TimeoutFor(Tier::kUnknown), 1000);
    auto c = Connection::Open(host, port, conn, timeout);
    if (!c.ok()) {
      last = c.status();
      continue;
    }
    auto info = (*c)->Command({"INFO", "server"}, timeout);
    if (!info.ok()) {
      last = info.status();
      continue;
    }
    const std::string version = ServerVersion(**info);
    *version_out = version;
    if (!version.empty()) {
      std::lock_guard<std::mutex> lock(g_cache_mu);
      if (auto it = Cache().find(version); it != Cache().end()) return it->second;
    }
    auto reply = (*c)->Command({"COMMAND"}, timeout);
    if (!reply.ok()) {
      last = Error(reply.status().code(), node->address + ": COMMAND: " + reply.status().message());
      *refused = reply.status().code() == Code::kLimit || reply.status().code() == Code::kParse;
      if (*refused) return last;
      continue;
    }
    auto table = CommandTable::Parse(**reply);
    if (!table.ok()) {
      *refused = true;  // the server answered: it will answer so again
      return Error(table.status().code(), node->address + ": COMMAND: " + table.status().message());
    }
    if (!version.empty()) {
      std::lock_guard<std::mutex> lock(g_cache_mu);
      Cache().emplace(version, *table);
    }
    return table;
  }
  return last;
}

}  // namespace net
}  // namespace cloudroute
