// Client: multi-key fan-out and the convenience commands (see client.hpp).
#include <map>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/net/client.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

namespace {

constexpr int64_t kNsPerMs = 1000000;

Result<int64_t> IntegerReply(Result<ReplyPtr> r) {
  if (!r.ok()) return r.status();
  if ((*r)->type != RespType::kInteger) {
    return Error(Code::kParse, std::string("expected an integer reply, got ") +
                                   RespTypeName((*r)->type));
  }
  return (*r)->integer;
}

}  // namespace

std::vector<Client::Batch> Client::SplitBySlot(const std::vector<std::string> &keys,
                                               const std::string &cmd,
                                               const std::vector<std::string> *values) {
  std::map<uint16_t, size_t> by_slot;
  std::vector<Batch> batches;
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint16_t slot = KeySlot(keys[i].data(), keys[i].size());
    auto it = by_slot.find(slot);
    if (it == by_slot.end()) {
      it = by_slot.emplace(slot, batches.size()).first;
      batches.emplace_back();
      batches.back().slot = slot;
      batches.back().args.push_back(cmd);
    }
    Batch &b = batches[it->second];
    b.args.push_back(keys[i]);
    if (values != nullptr) b.args.push_back((*values)[i]);
    b.idx.push_back(i);
  }
  return batches;
}

Status Client::FanOut(Access access, std::vector<Batch> *batches) {
  std::shared_ptr<const Snapshot> snap = router_->Current();
  if (snap == nullptr) return Error(Code::kNoTopology, "no topology installed");

  struct Leg {
    NodeEntry *node = nullptr;
    Tier tier = Tier::kUnknown;
    NodePool *pool = nullptr;
    std::unique_ptr<Connection> conn;
    std::vector<Batch *> batches;
    int64_t deadline = 0;
    int64_t t0 = 0;
  };
  std::vector<Leg> legs;
  std::unordered_map<uint32_t, size_t> leg_of;  // node handle -> index in legs
  for (Batch &b : *batches) {
    Route r;
    const Code c = access == Access::kRead ? snap->RouteRead(b.slot, &r) : snap->RouteWrite(b.slot, &r);
    if (c != Code::kOk) {
      b.redo = true;  // the single-key path produces the precise error
      continue;
    }
    auto it = leg_of.find(r.node->handle);
    if (it == leg_of.end()) {
      it = leg_of.emplace(r.node->handle, legs.size()).first;
      legs.emplace_back();
      legs.back().node = r.node;
      legs.back().tier = r.tier;
    }
    legs[it->second].batches.push_back(&b);
  }

  // Every node's share goes out before any reply is read: all in flight.
  for (Leg &leg : legs) {
    leg.pool = &PoolFor(leg.node);
    const uint32_t timeout = TimeoutFor(leg.tier);
    auto conn = leg.pool->Acquire(timeout);
    if (!conn.ok()) {
      NoteFailure(leg.node, leg.pool, conn.status());
      for (Batch *b : leg.batches) b->redo = true;  // nothing was sent: safe to redo
      continue;
    }
    leg.conn = std::move(*conn);
    leg.t0 = SteadyNowNs();
    leg.deadline = leg.t0 + static_cast<int64_t>(timeout) * kNsPerMs;
    std::vector<const Args *> cmds;
    for (Batch *b : leg.batches) cmds.push_back(&b->args);
    Status s = leg.conn->Send(cmds, leg.deadline);
    if (!s.ok()) {
      NoteFailure(leg.node, leg.pool, s);
      for (Batch *b : leg.batches) {
        if (access == Access::kRead) b->redo = true;
        else b->status = s;  // a write that may have arrived is never re-sent
      }
      leg.pool->Release(std::move(leg.conn));
    }
  }
  for (Leg &leg : legs) {
    if (leg.conn == nullptr) continue;
    std::vector<ReplyPtr> replies;
    Status s = leg.conn->Receive(leg.batches.size(), leg.deadline, &replies);
    const int64_t t1 = SteadyNowNs();
    leg.pool->Release(std::move(leg.conn));
    if (!s.ok()) NoteFailure(leg.node, leg.pool, s);
    else NoteSuccess(leg.node);
    NodeCounters &nc = leg.pool->counters();
    if (!replies.empty()) {
      nc.AddLatency(static_cast<uint32_t>((t1 - leg.t0) / 1000));
      nc.last_sample_ns.store(t1, std::memory_order_relaxed);
    }
    for (size_t i = 0; i < leg.batches.size(); ++i) {
      Batch *b = leg.batches[i];
      if (i >= replies.size()) {
        if (access == Access::kRead) b->redo = true;
        else b->status = s;
        continue;
      }
      Outcome o = Classify(std::move(replies[i]), leg.node, access);
      if (o.kind == Kind::kDone || o.kind == Kind::kServerError) {
        if (access == Access::kRead) {
          stats_.AddRead(static_cast<int>(leg.tier));
          nc.reads.fetch_add(1, std::memory_order_relaxed);
        } else {
          stats_.Add(&Stats::writes);
          nc.writes.fetch_add(1, std::memory_order_relaxed);
        }
        if (o.kind == Kind::kServerError) {
          stats_.Add(&Stats::server_errors);
          b->status = Error(kServerError, o.reply->str);
        } else {
          b->reply = std::move(o.reply);
        }
      } else {
        // MOVED / ASK / TRYAGAIN / LOADING: not executed; the single-key
        // path follows the redirect or retries. An ASK marks the slot
        // migrating first, so the redo reads it from the master.
        if (o.kind == Kind::kAsk) (void)router_->ReportMigrating(o.slot, true);
        b->redo = true;
      }
    }
  }

  for (Batch &b : *batches) {
    if (!b.redo) continue;
    Result<ReplyPtr> r = ExecuteSlot(access, b.slot, b.args);
    if (r.ok()) b.reply = std::move(*r);
    else b.status = r.status();
  }
  for (Batch &b : *batches) {
    if (!b.status.ok()) return b.status;
  }
  return Status::Ok();
}

Result<ReplyPtr> Client::MGet(const std::vector<std::string> &keys) {
  if (keys.empty()) return Error(Code::kInvalid, "MGET needs at least one key");
  std::vector<Batch> batches = SplitBySlot(keys, "MGET", nullptr);
  Status s = FanOut(Access::kRead, &batches);
  if (!s.ok()) return s;
  auto out = std::make_unique<Reply>();
  out->type = RespType::kArray;
  out->elements.resize(keys.size());
  for (Batch &b : batches) {
    if (b.reply->type != RespType::kArray || b.reply->elements.size() != b.idx.size()) {
      return Error(Code::kParse, "MGET reply for slot " + std::to_string(b.slot) +
                                     " has the wrong shape");
    }
    for (size_t j = 0; j < b.idx.size(); ++j) out->elements[b.idx[j]] = std::move(b.reply->elements[j]);
  }
  return out;
}

Status Client::MSet(const std::vector<std::string> &keys, const std::vector<std::string> &values) {
  if (keys.empty() || keys.size() != values.size()) {
    return Error(Code::kInvalid, "MSET needs as many values as keys, and at least one");
  }
  std::vector<Batch> batches = SplitBySlot(keys, "MSET", &values);
  return FanOut(Access::kWrite, &batches);
}

Result<int64_t> Client::Del(const std::vector<std::string> &keys) {
  if (keys.empty()) return Error(Code::kInvalid, "DEL needs at least one key");
  std::vector<Batch> batches = SplitBySlot(keys, "DEL", nullptr);
  Status s = FanOut(Access::kWrite, &batches);
  if (!s.ok()) return s;
  int64_t n = 0;
  for (Batch &b : batches) n += b.reply->integer;
  return n;
}

Result<int64_t> Client::Exists(const std::vector<std::string> &keys) {
  if (keys.empty()) return Error(Code::kInvalid, "EXISTS needs at least one key");
  std::vector<Batch> batches = SplitBySlot(keys, "EXISTS", nullptr);
  Status s = FanOut(Access::kRead, &batches);
  if (!s.ok()) return s;
  int64_t n = 0;
  for (Batch &b : batches) n += b.reply->integer;
  return n;
}

Result<ReplyPtr> Client::Get(const std::string &key) {
  return Execute(Access::kRead, key, {"GET", key});
}

Status Client::Set(const std::string &key, const std::string &value, uint64_t ttl_ms) {
  Args args{"SET", key, value};
  if (ttl_ms > 0) {
    args.push_back("PX");
    args.push_back(std::to_string(ttl_ms));
  }
  Result<ReplyPtr> r = Execute(Access::kWrite, key, args);
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

}  // namespace net
}  // namespace cloudroute
