// SentinelWatcher: asking the sentinels and following their events (see
// sentinel.hpp). The client that runs commands through the groups is in
// sentinel_client.cpp.
#include "cloudroute/net/sentinel.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "cloudroute/core/health.hpp"
#include "cloudroute/net/backoff.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

namespace {

constexpr uint32_t kPushSliceMs = 100;  // how often the thread looks at its clock and stop flag

const char *const kChannels[] = {
    "+switch-master",    "+sdown",       "-sdown", "+odown", "-odown", "+slave",
    "+convert-to-slave", "+failover-end"};

bool ParsePort(const std::string &text, uint16_t *port) {
  char *end = nullptr;
  const long p = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || p < 1 || p > 65535) return false;
  *port = static_cast<uint16_t>(p);
  return true;
}

std::vector<std::string> Words(const std::string &s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

// The value of field f in a flat key/value array (RESP2) or map (RESP3).
const Reply *Field(const Reply &r, const char *f) {
  for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
    if (r.elements[i] != nullptr && r.elements[i]->str == f) return r.elements[i + 1].get();
  }
  return nullptr;
}

}  // namespace

bool ParseSwitchMaster(const std::string &payload, std::string *name, GroupAddress *to) {
  const std::vector<std::string> w = Words(payload);
  if (w.size() != 5) return false;
  uint16_t port = 0;
  if (!ParsePort(w[4], &port)) return false;
  *name = w[0];
  to->host = w[3];
  to->port = port;
  return true;
}

std::string EventGroup(const std::string &payload) {
  const std::vector<std::string> w = Words(payload);
  for (size_t i = 0; i + 1 < w.size(); ++i) {
    if (w[i] == "@") return w[i + 1];
  }
  if (w.size() >= 2 && w[0] == "master") return w[1];
  return "";
}

SentinelWatcher::SentinelWatcher(ShardGroups *groups, std::vector<Seed> sentinels,
                                 std::vector<std::string> names, SentinelOptions opts,
                                 SentinelCounters *counters, EventLog *log,
                                 std::function<void()> changed)
    : groups_(groups),
      sentinels_(std::move(sentinels)),
      names_(std::move(names)),
      opts_(std::move(opts)),
      counters_(counters),
      log_(log),
      changed_(std::move(changed)),
      applied_(names_.size()),
      asked_ns_(names_.size(), 0) {}

SentinelWatcher::~SentinelWatcher() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SentinelWatcher::Start() {
  // Subscribe before the caller asks: an event between the answer and the
  // subscription would otherwise be missed until the next periodic re-ask.
  for (size_t k = 0; k < sentinels_.size(); ++k) {
    const size_t i = (preferred_ + k) % sentinels_.size();
    if (!Subscribe(i)) continue;
    sub_index_ = i;
    {
      std::lock_guard<std::mutex> lock(ask_mu_);
      preferred_ = i;
    }
    counters_->subscriptions.fetch_add(1, std::memory_order_relaxed);
    subscribed_.store(true, std::memory_order_relaxed);
    break;
  }
  thread_ = std::thread([this] { Run(); });
}

void SentinelWatcher::SleepMs(uint32_t ms) {
  std::unique_lock<std::mutex> lock(stop_mu_);
  stop_cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stop_; });
}

Result<SentinelView> SentinelWatcher::AskOne(size_t sentinel, uint32_t group) {
  const Seed &s = sentinels_[sentinel];
  if (ask_conn_ == nullptr || ask_conn_->broken() || ask_conn_for_ != sentinel) {
    ask_conn_.reset();
    auto c = Connection::Open(s.host, s.port, opts_.sentinel_conn, opts_.sentinel_timeout_ms);
    if (!c.ok()) return c.status();
    ask_conn_ = std::move(*c);
    ask_conn_for_ = sentinel;
  }
  const std::string &name = names_[group];
  const Args master{"SENTINEL", "get-master-addr-by-name", name};
  const Args replicas{"SENTINEL", "replicas", name};
  const Args state{"SENTINEL", "master", name};
  std::vector<ReplyPtr> r;
  Status st = ask_conn_->Pipeline({&master, &replicas, &state}, opts_.sentinel_timeout_ms, &r);
  if (!st.ok()) return st;
  const std::string where = ask_conn_->address() + ": ";
  if (r[0]->is_error()) {
    return Error(kServerError, where + "SENTINEL get-master-addr-by-name refused: " + r[0]->str);
  }
  if (r[0]->type == RespType::kNull || r[0]->elements.empty()) {
    return Error(Code::kNotFound,
                 where + "sentinel does not monitor a master named '" + name + "'");
  }
  SentinelView v;
  if (r[0]->elements.size() != 2 || r[0]->elements[0] == nullptr || r[0]->elements[1] == nullptr ||
      !ParsePort(r[0]->elements[1]->str, &v.master.port)) {
    return Error(Code::kParse,
                 where + "malformed get-master-addr-by-name reply for '" + name + "'");
  }
  v.master.host = r[0]->elements[0]->str;
  if (r[1]->is_error()) {
    return Error(kServerError, where + "SENTINEL replicas refused: " + r[1]->str);
  }
  // Whether this sentinel sees the master healthy (SENTINEL master's flags
  // without s_down, o_down, disconnected or failover_in_progress); unknown
  // (refused, e.g. by an ACL) counts as not healthy.
  bool master_healthy = false;
  if (!r[2]->is_error()) {
    if (const Reply *mf = Field(*r[2], "flags")) {
      const std::string &x = mf->str;
      master_healthy = x.find("s_down") == std::string::npos &&
                       x.find("o_down") == std::string::npos &&
                       x.find("disconnected") == std::string::npos &&
                       x.find("failover_in_progress") == std::string::npos;
    }
  }
  for (const ReplyPtr &e : r[1]->elements) {
    if (e == nullptr) continue;
    const Reply *ip = Field(*e, "ip"), *port = Field(*e, "port"), *flags = Field(*e, "flags");
    GroupAddress a;
    if (ip == nullptr || port == nullptr || !ParsePort(port->str, &a.port)) continue;
    a.host = ip->str;
    const std::string f = flags != nullptr ? flags->str : "";
    if (f.find("s_down") != std::string::npos || f.find("o_down") != std::string::npos ||
        f.find("disconnected") != std::string::npos) {
      continue;
    }
    // Right after a failover Sentinel lists the old master among the
    // replicas while it still answers as a master with the data it had
    // (role-reported "master"), until Sentinel converts it seconds later: not
    // read from while the group's master is healthy. While the master is
    // down or being failed over, an instance reporting "master" is the
    // replica being promoted — the newest data — and stays. (Only the leading
    // sentinel flags it "promoted"; the others see its role change.)
    // master-link-status is not a reason: when the master dies every
    // replica's link is down, and they are what serves the reads until
    // Sentinel promotes one.
    const Reply *role = Field(*e, "role-reported");
    if (role != nullptr && role->str != "slave" && master_healthy) continue;
    v.replicas.push_back(std::move(a));
  }
  return v;
}

void SentinelWatcher::Apply(uint32_t group, const SentinelView &v) {
  SentinelView &old = applied_[group];
  const bool master_changed = old.master.host != v.master.host || old.master.port != v.master.port;
  auto same = [](const std::vector<GroupAddress> &a, const std::vector<GroupAddress> &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].host != b[i].host || a[i].port != b[i].port) return false;
    }
    return true;
  };
  if (master_changed) {
    if (old.master.port != 0) {
      counters_->master_changes.fetch_add(1, std::memory_order_relaxed);
      if (log_ != nullptr && log_->Enabled(LogLevel::kWarn)) {
        log_->Emit(LogLevel::kWarn, "failover seen",
                   {{"group", names_[group]},
                    {"from", FormatAddress(old.master.host, old.master.port)},
                    {"node", FormatAddress(v.master.host, v.master.port)}});
      }
    }
  }
  const bool changed = master_changed || !same(old.replicas, v.replicas);
  // One change for master and replicas: readers never see the new master
  // with the old replica list, and one rebuild instead of two.
  if (changed) (void)groups_->SetGroup(group, v.master, v.replicas);
  old = v;
  if (changed && changed_ != nullptr) changed_();
}

// REQUIRES: ask_mu_ held.
Status SentinelWatcher::AskGroupLocked(uint32_t group) {
  counters_->asks.fetch_add(1, std::memory_order_relaxed);
  asked_ns_[group] = SteadyNowNs();
  std::string why;
  Status last = Error(kConnError, "no sentinel given");
  for (size_t k = 0; k < sentinels_.size(); ++k) {
    const size_t i = (preferred_ + k) % sentinels_.size();
    Result<SentinelView> v = AskOne(i, group);
    if (v.ok()) {
      preferred_ = i;
      Apply(group, *v);
      return Status::Ok();
    }
    last = v.status();
    why += (why.empty() ? "" : "; ") + v.status().message();
    ask_conn_.reset();
  }
  counters_->ask_failures.fetch_add(1, std::memory_order_relaxed);
  Status failed = Error(last.code(), "no sentinel answered about '" + names_[group] + "': " + why);
  if (log_ != nullptr && log_->Enabled(LogLevel::kWarn)) {
    log_->EmitLimited(LogLevel::kWarn, "sentinel ask " + names_[group], "refresh failed",
                      {{"group", names_[group]}, {"error", failed.message()}});
  }
  return failed;
}

Status SentinelWatcher::AskAll() {
  std::lock_guard<std::mutex> lock(ask_mu_);
  Status first;
  for (uint32_t g = 0; g < names_.size(); ++g) {
    Status s = AskGroupLocked(g);
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

Status SentinelWatcher::Reask(uint32_t group, uint32_t min_gap_ms) {
  const int64_t asked_before = SteadyNowNs();
  std::lock_guard<std::mutex> lock(ask_mu_);
  if (group >= names_.size()) return Error(Code::kInvalid, "no such group");
  // Someone asked while we waited for the lock, or very recently: use that.
  if (asked_ns_[group] >= asked_before || SteadyNowNs() - asked_ns_[group] < MsToNs(min_gap_ms)) {
    return Status::Ok();
  }
  return AskGroupLocked(group);
}

bool SentinelWatcher::Subscribe(size_t sentinel) {
  const Seed &s = sentinels_[sentinel];
  auto c = Connection::Open(s.host, s.port, opts_.sentinel_conn, opts_.sentinel_timeout_ms);
  if (!c.ok()) return false;
  Args sub{"SUBSCRIBE"};
  for (const char *ch : kChannels) sub.push_back(ch);
  const int64_t deadline = DeadlineAfter(opts_.sentinel_timeout_ms);
  std::vector<ReplyPtr> confirmations;
  if (!(*c)->Send({&sub}, deadline).ok()) return false;
  if (!(*c)->Receive(sub.size() - 1, deadline, &confirmations).ok()) return false;
  for (const ReplyPtr &r : confirmations) {
    if (r->is_error()) return false;
  }
  sub_ = std::move(*c);
  return true;
}

void SentinelWatcher::HandlePush(const Reply &push) {
  if (push.elements.size() != 3 || push.elements[0] == nullptr || push.elements[1] == nullptr ||
      push.elements[2] == nullptr || push.elements[0]->str != "message") {
    return;  // subscribe confirmations and anything unexpected
  }
  const std::string &channel = push.elements[1]->str;
  const std::string &payload = push.elements[2]->str;
  std::string name;
  if (channel == "+switch-master") {
    counters_->switch_events.fetch_add(1, std::memory_order_relaxed);
    GroupAddress to;
    if (!ParseSwitchMaster(payload, &name, &to)) return;
    auto g = groups_->FindGroup(name);
    if (!g.ok()) return;
    {
      // The new master takes writes at once; its replicas follow from a re-ask.
      std::lock_guard<std::mutex> lock(ask_mu_);
      SentinelView v = applied_[*g];
      v.master = to;
      Apply(*g, v);
      (void)AskGroupLocked(*g);
    }
    return;
  }
  name = EventGroup(payload);
  auto g = groups_->FindGroup(name);
  if (!g.ok()) return;
  std::lock_guard<std::mutex> lock(ask_mu_);
  (void)AskGroupLocked(*g);
}

void SentinelWatcher::Run() {
  size_t next = sub_index_;
  uint32_t round = 0;  // failed subscription rounds in a row
  int64_t next_reask = DeadlineAfter(opts_.reask_interval_ms);
  uint64_t jitter = static_cast<uint64_t>(SteadyNowNs());
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(stop_mu_);
      if (stop_) break;
    }
    if (sub_ == nullptr) {
      bool ok = false;
      for (size_t k = 0; k < sentinels_.size() && !ok; ++k) {
        ok = Subscribe((next + k) % sentinels_.size());
        if (ok) next = (next + k) % sentinels_.size();
      }
      if (!ok) {
        subscribed_.store(false, std::memory_order_relaxed);
        jitter = jitter * 6364136223846793005ull + 1442695040888963407ull;
        SleepMs(BackoffMs(round++, 100, opts_.reconnect_max_ms, jitter >> 11));
        (void)AskAll();  // still keep the table fresh by asking
        continue;
      }
      round = 0;
      {
        // Ask the sentinel whose events we hear: a +switch-master it sends
        // is never contradicted by a peer that has not caught up yet.
        std::lock_guard<std::mutex> lock(ask_mu_);
        preferred_ = next;
      }
      counters_->subscriptions.fetch_add(1, std::memory_order_relaxed);
      subscribed_.store(true, std::memory_order_relaxed);
      (void)AskAll();  // events may have been missed while unsubscribed
      next_reask = DeadlineAfter(opts_.reask_interval_ms);
    }
    ReplyPtr push;
    Status s = sub_->WaitPush(DeadlineAfter(kPushSliceMs), &push);
    if (!s.ok()) {
      if (log_ != nullptr && log_->Enabled(LogLevel::kWarn)) {
        log_->Emit(LogLevel::kWarn, "sentinel subscription lost",
                   {{"node", sub_->address()}, {"error", s.message()}});
      }
      sub_.reset();
      subscribed_.store(false, std::memory_order_relaxed);
      next = (next + 1) % sentinels_.size();  // that sentinel went away: try the next
      continue;
    }
    if (push != nullptr) HandlePush(*push);
    if (opts_.reask_interval_ms > 0 && SteadyNowNs() >= next_reask) {
      (void)AskAll();
      next_reask = DeadlineAfter(opts_.reask_interval_ms);
    }
  }
  sub_.reset();
}

}  // namespace net
}  // namespace cloudroute
