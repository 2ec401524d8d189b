// SCAN over every shard (see cluster_scan.hpp).
#include "cloudroute/net/cluster_scan.hpp"

#include "cloudroute/core/selector.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

namespace {

// What an attempt that did not produce a reply says, for a message.
std::string Why(const Outcome &o) {
  if (o.reply != nullptr && o.reply->is_error()) return o.node->address + ": " + o.reply->str;
  return o.status.message();
}

}  // namespace

Status ClusterScan::Start() {
  started_ = true;
  snap_ = ctx_->topo->Current();
  if (snap_ == nullptr) return Error(Code::kNoTopology, "no topology installed");
  return Status::Ok();
}

Args ClusterScan::Command() const {
  Args a{"SCAN", cursor_};
  if (opts_.has_match) {
    a.push_back("MATCH");
    a.push_back(opts_.match);
  }
  if (opts_.count != 0) {
    a.push_back("COUNT");
    a.push_back(std::to_string(opts_.count));
  }
  if (!opts_.type.empty()) {
    a.push_back("TYPE");
    a.push_back(opts_.type);
  }
  return a;
}

Result<ReplyPtr> ClusterScan::RoundTrip() {
  CallOptions call;
  call.timeout_ms = opts_.timeout_ms;
  const Args cmd = Command();
  const std::string shard = "shard " + std::to_string(shard_);
  if (shard_begun_) {
    Outcome o = exec_->RunOn(node_, tier_, Access::kRead, cmd, call);
    if (o.kind == OutcomeKind::kDone) return std::move(o.reply);
    if (o.kind == OutcomeKind::kErrorReply) return Error(kServerError, Why(o));
    return Error(o.status.ok() ? kServerError : o.status.code(),
                 "SCAN of " + shard + " failed part-way (the scan cannot go on without " +
                     "repeating or missing keys): " + Why(o));
  }
  // The shard's first round trip: the node a read would use, then the others.
  const CandidateSet &set = snap_->sets[shard_];
  NodeRegistry &reg = ctx_->topo->registry();
  const Candidate *first = SelectCandidate(set, reg);
  std::vector<std::pair<NodeEntry *, Tier>> order;
  if (first != nullptr) order.emplace_back(first->node, first->tier);
  for (const Candidate &c : set.list) {
    if (&c != first) order.emplace_back(c.node, c.tier);
  }
  if (order.empty() && set.master != nullptr) order.emplace_back(set.master, set.master_tier);
  std::string why;
  Code last = Code::kUnavailable;
  for (const auto &[node, tier] : order) {
    Outcome o = exec_->RunOn(node, tier, Access::kRead, cmd, call);
    if (o.kind == OutcomeKind::kDone) {
      node_ = node;
      tier_ = tier;
      shard_begun_ = true;
      return std::move(o.reply);
    }
    if (o.kind == OutcomeKind::kErrorReply) return Error(kServerError, Why(o));
    if (o.waited) return o.status;
    if (!why.empty()) why += "; ";
    why += Why(o);
    if (!o.status.ok()) last = o.status.code();
  }
  return Error(last,
               "no node of " + shard + " answered SCAN: " + (why.empty() ? "none known" : why));
}

Status ClusterScan::Next(std::vector<std::string> *keys, bool *done) {
  keys->clear();
  *done = false;
  if (!started_) {
    Status s = Start();
    if (!s.ok()) {
      finished_ = true;
      return s;
    }
  }
  // A cluster's shards that serve slots; every group of shard groups (no
  // cluster topology).
  const Topology *topo = snap_->topology.get();
  const size_t shards = topo != nullptr ? topo->shards.size() : snap_->sets.size();
  while (!finished_ && shard_ < shards && topo != nullptr && topo->shards[shard_].ranges.empty())
    ++shard_;
  if (finished_ || shard_ >= shards) {
    finished_ = true;
    *done = true;
    return Status::Ok();
  }
  auto r = RoundTrip();
  if (!r.ok()) {
    finished_ = true;
    return r.status();
  }
  const Reply &reply = **r;
  if (reply.type != RespType::kArray || reply.elements.size() != 2 ||
      !reply.elements[0]->is_string() || reply.elements[1]->type != RespType::kArray) {
    finished_ = true;
    return Error(Code::kParse, "SCAN reply of " + node_->address + " has the wrong shape");
  }
  for (const ReplyPtr &k : reply.elements[1]->elements) {
    if (!k->is_string()) {
      finished_ = true;
      return Error(Code::kParse, "SCAN reply of " + node_->address + " lists a non-string key");
    }
    keys->push_back(k->str);
  }
  cursor_ = reply.elements[0]->str;
  if (cursor_ == "0") {
    ++shard_;
    shard_begun_ = false;
  }
  return Status::Ok();
}

}  // namespace net
}  // namespace cloudroute
