// Multi-key commands with a result per key (see key_batch.hpp).
#include "cloudroute/net/key_batch.hpp"

#include <memory>
#include <utility>

#include "cloudroute/net/async_calls.hpp"

namespace cloudroute {
namespace net {

namespace {

constexpr size_t kKeysNamed = 8;  // positions a summary lists per failed place

// "" when a place's reply has the shape its command answers for b's keys;
// else what is wrong.
std::string ShapeError(KeyBatchKind kind, const Reply &r, const Batch &b) {
  switch (kind) {
    case KeyBatchKind::kMGet:
      if (r.type == RespType::kArray && r.elements.size() == b.idx.size()) return "";
      return "an MGET reply that is not an array of " + std::to_string(b.idx.size());
    case KeyBatchKind::kMSet:
      if (r.type == RespType::kSimpleString) return "";
      return "an MSET reply that is not a status";
    case KeyBatchKind::kDel:
    case KeyBatchKind::kExists:
      if (r.type == RespType::kInteger) return "";
      return std::string("a ") + KeyBatchCommand(kind) + " reply that is not an integer";
  }
  return "an unknown batch kind";
}

// The summary line of a failed place: "keys 3, 17 (group 'g1'): <error>".
std::string PlaceFailure(const TopologySource &topo, const Batch &b, const Status &s) {
  std::string keys = b.idx.size() == 1 ? "key " : "keys ";
  for (size_t j = 0; j < b.idx.size() && j < kKeysNamed; ++j) {
    if (j > 0) keys += ", ";
    keys += std::to_string(b.idx[j]);
  }
  if (b.idx.size() > kKeysNamed) {
    keys += " and " + std::to_string(b.idx.size() - kKeysNamed) + " more";
  }
  return keys + " (" + topo.Where(b.slot) + "): " + s.message();
}

}  // namespace

const char *KeyBatchCommand(KeyBatchKind kind) {
  switch (kind) {
    case KeyBatchKind::kMGet:
      return "MGET";
    case KeyBatchKind::kMSet:
      return "MSET";
    case KeyBatchKind::kDel:
      return "DEL";
    case KeyBatchKind::kExists:
      return "EXISTS";
  }
  return "?";
}

namespace {

// The checks before anything is sent: "" or what is wrong.
Status CheckBatch(KeyBatchKind kind, const std::vector<std::string> &keys,
                  const std::vector<std::string> *values) {
  const char *cmd = KeyBatchCommand(kind);
  if (keys.empty()) return Error(Code::kInvalid, std::string(cmd) + " needs at least one key");
  if ((kind == KeyBatchKind::kMSet) != (values != nullptr)) {
    return Error(Code::kInvalid,
                 std::string(cmd) +
                     (values != nullptr ? " takes no values" : " needs a value for each key"));
  }
  if (values != nullptr && values->size() != keys.size()) {
    return Error(Code::kInvalid, std::string(cmd) + " needs as many values as keys: " +
                                     std::to_string(keys.size()) + " keys, " +
                                     std::to_string(values->size()) + " values");
  }
  return Status::Ok();
}

// A result per key from the places' jobs, run.
KeyBatchResult Merge(const TopologySource &topo, KeyBatchKind kind, size_t nkeys,
                     const std::vector<Batch> &batches, std::vector<Job> &jobs) {
  KeyBatchResult out;
  const char *cmd = KeyBatchCommand(kind);
  out.status.resize(nkeys);
  if (kind == KeyBatchKind::kMGet) out.values.resize(nkeys);
  std::string failures;
  size_t first_failed = nkeys;
  Code first_code = Code::kOk;
  for (size_t i = 0; i < batches.size(); ++i) {
    const Batch &b = batches[i];
    Job &j = jobs[i];
    Status s = j.status;
    if (s.ok() && j.reply != nullptr) {
      const std::string bad = ShapeError(kind, *j.reply, b);
      if (!bad.empty()) s = Error(Code::kParse, topo.Where(b.slot) + " answered " + bad);
    }
    if (!s.ok()) {
      for (size_t k : b.idx) out.status[k] = s;
      out.failed += b.idx.size();
      if (!failures.empty()) failures += "; ";
      failures += PlaceFailure(topo, b, s);
      if (b.idx.front() < first_failed) {
        first_failed = b.idx.front();
        first_code = s.code();
      }
      continue;
    }
    if (kind == KeyBatchKind::kMGet) {
      for (size_t k = 0; k < b.idx.size(); ++k) {
        out.values[b.idx[k]] = std::move(j.reply->elements[k]);
      }
    } else if (kind != KeyBatchKind::kMSet) {
      out.count += j.reply->integer;
    }
  }
  if (out.failed > 0) {
    out.summary = Error(first_code, std::to_string(out.failed) + " of " + std::to_string(nkeys) +
                                        " keys of the " + cmd +
                                        " batch failed (the others succeeded): " + failures);
  }
  return out;
}

}  // namespace

KeyBatchResult RunKeyBatch(CommandExecutor *executor, const TopologySource &topo, KeyBatchKind kind,
                           const std::vector<std::string> &keys,
                           const std::vector<std::string> *values) {
  if (Status bad = CheckBatch(kind, keys, values); !bad.ok()) {
    KeyBatchResult out;
    out.summary = std::move(bad);
    return out;
  }
  std::vector<Batch> batches = SplitBySlot(topo, keys, KeyBatchCommand(kind), values);
  std::vector<Job> jobs = JobsFor(batches, KeyBatchAccess(kind));
  executor->Run(&jobs);
  return Merge(topo, kind, keys.size(), batches, jobs);
}

Status SubmitKeyBatch(AsyncCalls *async, const TopologySource &topo, KeyBatchKind kind,
                      const std::vector<std::string> &keys, const std::vector<std::string> *values,
                      KeyBatchDone done) {
  if (Status bad = CheckBatch(kind, keys, values); !bad.ok()) return bad;
  // The jobs' arguments are views of the batches' strings: the batches live
  // (not moved) until the jobs are done.
  auto batches =
      std::make_shared<std::vector<Batch>>(SplitBySlot(topo, keys, KeyBatchCommand(kind), values));
  std::vector<Job> jobs = JobsFor(*batches, KeyBatchAccess(kind));
  const size_t nkeys = keys.size();
  return async->SubmitJobs(
      std::move(jobs), [&topo, kind, nkeys, batches, done = std::move(done)](std::vector<Job> &js) {
        done(Merge(topo, kind, nkeys, *batches, js));
      });
}

}  // namespace net
}  // namespace cloudroute
