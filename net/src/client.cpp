// Client: the façade that owns the pieces (see client.hpp).
#include "cloudroute/net/client.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <vector>

#include "cloudroute/core/keyslot.hpp"

namespace cloudroute {
namespace net {

namespace {

// What a rolling upgrade changes: which nodes are listed, which are
// masters, and their health (a node restarting shows as failed, then back).
bool NodesChanged(const Topology &a, const Topology &b) {
  if (a.nodes.size() != b.nodes.size()) return true;
  using Shape = std::tuple<std::string_view, uint16_t, Role, ReportedHealth>;
  auto shape = [](const Topology &t) {
    std::vector<Shape> v;
    v.reserve(t.nodes.size());
    for (const TopoNode &n : t.nodes) v.emplace_back(n.host(), n.port, n.role, n.health);
    std::sort(v.begin(), v.end());
    return v;
  };
  return shape(a) != shape(b);
}

}  // namespace

Client::Client(Router *router, std::vector<Seed> seeds, ClientOptions opts)
    : source_(router),
      ctx_(router, &source_, std::move(opts)),
      observer_(&ctx_, std::move(seeds)),
      pools_(&ctx_,
             [this](const std::string &host, uint16_t port, Connection *conn, uint32_t timeout_ms) {
               return observer_.OnConnect(host, port, conn, timeout_ms);
             }),
      executor_(&ctx_, &pools_),
      async_(&ctx_, &executor_) {
  observer_.SetPools(&pools_);
}

Result<std::unique_ptr<Client>> Client::Create(Router *router, std::vector<Seed> seeds,
                                               ClientOptions opts) {
  if (router == nullptr) return Error(Code::kInvalid, "router is NULL");
  if (seeds.empty()) return Error(Code::kInvalid, "no seed nodes given");
  // One budget for every reply this client reads (reader.hpp), unless given.
  if (opts.conn.reply_budget == nullptr) {
    opts.conn.reply_budget = std::make_shared<ReplyBudget>(ClientBudgetFor(opts.conn.limits));
  }
  std::unique_ptr<Client> c(new Client(router, std::move(seeds), std::move(opts)));
  // While the seeds disagree (a failover), the start asks them again for as
  // long as one seed that accepts a connection and never answers may cost.
  const uint64_t settle_ms =
      uint64_t{c->ctx_.opts.conn.connect_timeout_ms} + c->ctx_.TimeoutFor(Tier::kUnknown);
  Status s = c->observer_.Refresh(static_cast<uint32_t>(std::min<uint64_t>(settle_ms, UINT32_MAX)));
  if (!s.ok()) return s;
  Client *raw = c.get();
  c->refresher_ = std::make_unique<Refresher>(
      [raw] { (void)raw->Refresh(); }, [raw] { raw->observer_.Tick(); },
      c->ctx_.opts.refresh_interval_ms, c->ctx_.opts.refresh_min_gap_ms);
  c->ctx_.refresher.store(c->refresher_.get(), std::memory_order_release);
  c->prober_ = std::make_unique<RecoveryProber>(&c->ctx_, &c->pools_);
  return c;
}

Client::~Client() {
  // Every asynchronous call completes (cancelled) while all it uses exists.
  async_.Close();
  prober_.reset();
  ctx_.refresher.store(nullptr, std::memory_order_release);
  refresher_.reset();
}

Status Client::Refresh() {
  const std::shared_ptr<const Snapshot> before = ctx_.router->Current();
  Status s = observer_.Refresh();
  if (!s.ok()) return s;
  // After nodes restarted or failed over, the servers may run another
  // version, with another command table (command_table.hpp).
  // Compared only when the client uses the server's table and may recheck.
  commands_.Recheck([&] {
    const std::shared_ptr<const Snapshot> after = ctx_.router->Current();
    return before != nullptr && after != nullptr && before->topology != nullptr &&
           after->topology != nullptr && NodesChanged(*before->topology, *after->topology);
  });
  return s;
}

Result<ReplyPtr> Client::Execute(Access access, std::string_view key, const Args &args,
                                 const CallOptions &call) {
  return executor_.Execute(access, key, args, call);
}

Result<ReplyPtr> Client::ExecuteKeys(Access access, const std::vector<std::string> &keys,
                                     const Args &args, const CallOptions &call) {
  if (args.empty()) return Error(Code::kInvalid, "empty command");
  uint16_t slot = 0;
  if (keys.empty()) {
    slot = static_cast<uint16_t>(ctx_.router->registry().NextRandom() % kSlotCount);
  } else {
    slot = KeySlot(keys[0].data(), keys[0].size());
    for (const std::string &k : keys) {
      if (KeySlot(k.data(), k.size()) != slot) {
        return Error(Code::kInvalid, "CROSSSLOT: the keys of " + args[0] +
                                         " hash to different slots (use a {hash tag}); nothing "
                                         "was sent");
      }
    }
  }
  return executor_.ExecuteSlot(access, slot, args, call);
}

Result<CommandRoute> Client::PlanAuto(size_t key_index, const Args &args) {
  if (args.empty()) return Error(Code::kInvalid, "empty command");
  // SUBSCRIBE, SELECT …: refused for what they would do to the connection,
  // before a table is asked what their keys are (channels are none).
  if (Status s = RefuseStateChange(args, ConnectionUse::kShared); !s.ok()) return s;
  const std::vector<std::string_view> argv(args.begin(), args.end());
  CommandRoute route = Classify(argv);
  if (key_index > 0) route.keys = {key_index};
  if (route.keys.empty() || route.keys.back() >= args.size()) {
    return Error(Code::kInvalid,
                 args[0].substr(0, 64) + " names no key to route it by: send it to a node by name");
  }
  const std::string &first = args[route.keys[0]];
  const uint16_t slot = KeySlot(first.data(), first.size());
  for (size_t i : route.keys) {
    if (KeySlot(args[i].data(), args[i].size()) != slot) {
      return Error(Code::kInvalid, "CROSSSLOT: the keys of " + args[0] +
                                       " hash to different slots (use a {hash tag}); nothing "
                                       "was sent");
    }
  }
  return route;
}

Result<ReplyPtr> Client::ExecuteAuto(size_t key_index, const Args &args, const CallOptions &call) {
  Result<CommandRoute> route = PlanAuto(key_index, args);
  if (!route.ok()) return route.status();
  if (route->keys.size() == 1)
    return executor_.Execute(route->access, args[route->keys[0]], args, call);
  std::vector<std::string> keys;
  for (size_t i : route->keys) keys.push_back(args[i]);
  return ExecuteKeys(route->access, keys, args, call);
}

Result<ReplyPtr> Client::EvalScript(const Script &script, bool read_only,
                                    const std::vector<std::string> &keys,
                                    const std::vector<std::string> &args, const CallOptions &call) {
  CallOptions c = call;
  c.script = &script.body();
  return ExecuteKeys(read_only ? Access::kRead : Access::kWrite, keys,
                     script.Command(read_only, keys, args), c);
}

Result<std::vector<NodeReply>> Client::ExecuteOnNodes(NodeTarget target, const std::string &address,
                                                      const Args &args, const CallOptions &call) {
  return net::ExecuteOnNodes(&ctx_, &pools_, target, address, args, call);
}

Result<ReplyPtr> Client::Get(const std::string &key) {
  return executor_.Execute(Access::kRead, key, {"GET", key});
}

Status Client::Set(const std::string &key, const std::string &value, uint64_t ttl_ms) {
  Args args{"SET", key, value};
  if (ttl_ms > 0) {
    args.push_back("PX");
    args.push_back(std::to_string(ttl_ms));
  }
  Result<ReplyPtr> r = executor_.Execute(Access::kWrite, key, args);
  return r.ok() ? Status::Ok() : r.status();
}

Result<ReplyPtr> Client::MGet(const std::vector<std::string> &keys) { return executor_.MGet(keys); }

Status Client::MSet(const std::vector<std::string> &keys, const std::vector<std::string> &values) {
  return executor_.MSet(keys, values);
}

Result<int64_t> Client::Del(const std::vector<std::string> &keys) { return executor_.Del(keys); }

}  // namespace net
}  // namespace cloudroute
