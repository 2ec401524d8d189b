// Client: the façade that owns the pieces (see client.hpp).
#include "cloudroute/net/client.hpp"

#include "cloudroute/net/fan_out.hpp"

namespace cloudroute {
namespace net {

namespace {

Result<int64_t> IntegerReply(Result<ReplyPtr> r) {
  if (!r.ok()) return r.status();
  if ((*r)->type != RespType::kInteger) {
    return Error(Code::kParse, std::string("expected an integer reply, got ") +
                                   RespTypeName((*r)->type));
  }
  return (*r)->integer;
}

}  // namespace

Client::Client(Router *router, std::vector<Seed> seeds, ClientOptions opts)
    : ctx_(router, std::move(opts)),
      observer_(&ctx_, std::move(seeds)),
      pools_(&ctx_,
             [this](const std::string &host, uint16_t port, Connection *conn, uint32_t timeout_ms) {
               return observer_.OnConnect(host, port, conn, timeout_ms);
             }),
      executor_(&ctx_, &pools_) {
  observer_.SetPools(&pools_);
}

Result<std::unique_ptr<Client>> Client::Create(Router *router, std::vector<Seed> seeds,
                                               ClientOptions opts) {
  if (router == nullptr) return Error(Code::kInvalid, "router is NULL");
  if (seeds.empty()) return Error(Code::kInvalid, "no seed nodes given");
  std::unique_ptr<Client> c(new Client(router, std::move(seeds), std::move(opts)));
  Status s = c->Refresh();
  if (!s.ok()) return s;
  Client *raw = c.get();
  c->refresher_ = std::make_unique<Refresher>([raw] { (void)raw->observer_.Refresh(); },
                                              [raw] { raw->observer_.Tick(); },
                                              c->ctx_.opts.refresh_interval_ms,
                                              c->ctx_.opts.refresh_min_gap_ms);
  c->ctx_.refresher.store(c->refresher_.get(), std::memory_order_release);
  return c;
}

Client::~Client() {
  ctx_.refresher.store(nullptr, std::memory_order_release);
  refresher_.reset();
}

Status Client::Refresh() { return observer_.Refresh(); }

Result<ReplyPtr> Client::Execute(Access access, std::string_view key, const Args &args) {
  return executor_.Execute(access, key, args);
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

Result<int64_t> Client::Incr(const std::string &key, int64_t by) {
  return IntegerReply(Execute(Access::kWrite, key, {"INCRBY", key, std::to_string(by)}));
}

Result<int64_t> Client::Expire(const std::string &key, int64_t seconds) {
  return IntegerReply(Execute(Access::kWrite, key, {"EXPIRE", key, std::to_string(seconds)}));
}

Result<int64_t> Client::Ttl(const std::string &key) {
  return IntegerReply(Execute(Access::kRead, key, {"TTL", key}));
}

Result<ReplyPtr> Client::HGet(const std::string &key, const std::string &field) {
  return Execute(Access::kRead, key, {"HGET", key, field});
}

Result<int64_t> Client::HSet(const std::string &key, const std::string &field,
                             const std::string &value) {
  return IntegerReply(Execute(Access::kWrite, key, {"HSET", key, field, value}));
}

Result<ReplyPtr> Client::HGetAll(const std::string &key) {
  return Execute(Access::kRead, key, {"HGETALL", key});
}

Result<ReplyPtr> Client::MGet(const std::vector<std::string> &keys) { return executor_.MGet(keys); }

Status Client::MSet(const std::vector<std::string> &keys, const std::vector<std::string> &values) {
  return executor_.MSet(keys, values);
}

Result<int64_t> Client::Del(const std::vector<std::string> &keys) { return executor_.Del(keys); }

Result<int64_t> Client::Exists(const std::vector<std::string> &keys) {
  if (keys.empty()) return Error(Code::kInvalid, "EXISTS needs at least one key");
  std::vector<Batch> batches = SplitBySlot(keys, "EXISTS", nullptr);
  Status s = FanOut(&ctx_, &pools_, &executor_, Access::kRead, &batches).Run();
  if (!s.ok()) return s;
  int64_t n = 0;
  for (Batch &b : batches) n += b.reply->integer;
  return n;
}

}  // namespace net
}  // namespace cloudroute
