// KeyBatch: a multi-key command (MGET, MSET, DEL, EXISTS) over many keys
// with a result for every key — a batch is not a transaction, so the caller
// learns which keys failed and why, and keeps the answers of the rest.
//
// The keys are split by place (SplitBySlot: a cluster's slot, a ring's
// group), one command per place, and the commands run at once on the
// engine's fan-out (CommandExecutor::Run, fan_out.hpp): every node's share
// pipelined, all nodes in flight together, reads served by the place's
// read candidates (falling back, hedged as configured), writes by its
// master (a write its master did not execute tried again when the source
// says so: Sentinel groups re-ask the sentinels). A place's command that
// fails fails exactly its keys, each with that command's error; the other
// places' keys keep their results.
//
// Thread-safety: RunKeyBatch runs on the caller's thread, SubmitKeyBatch
// returns at once (async_calls.hpp); the executor is safe for concurrent use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cloudroute/net/command_executor.hpp"

namespace cloudroute {
namespace net {

class AsyncCalls;

enum class KeyBatchKind : uint8_t {
  kMGet,    // read: each key's value (a bulk string or nil)
  kMSet,    // write: keys and values in pairs
  kDel,     // write: how many existed (summed over the places that answered)
  kExists,  // read: how many exist (a key named twice counts twice, as EXISTS does)
};

struct KeyBatchResult {
  // Per key, in the caller's order: OK, or the error of its place's command.
  std::vector<Status> status;
  // kMGet: per key, its value when status[i] is OK (else null).
  std::vector<ReplyPtr> values;
  // kDel / kExists: the sum of the integers the places that answered returned.
  int64_t count = 0;
  size_t failed = 0;  // keys whose status is not OK
  // OK when no key failed; else the first failed key's code, with a message
  // that names every failed place once: its keys (positions) and its error.
  Status summary;
};

// The name of a kind's command ("MGET", …).
const char *KeyBatchCommand(KeyBatchKind kind);
// Its commands' access: kMGet and kExists read, the others write.
inline Access KeyBatchAccess(KeyBatchKind kind) {
  return kind == KeyBatchKind::kMGet || kind == KeyBatchKind::kExists ? Access::kRead
                                                                      : Access::kWrite;
}

// Runs the batch. values: kMSet only (one per key). An empty key list, or
// values that do not pair with the keys, is kInvalid before anything is
// sent (the result's summary; no per-key status).
KeyBatchResult RunKeyBatch(CommandExecutor *executor, const TopologySource &topo, KeyBatchKind kind,
                           const std::vector<std::string> &keys,
                           const std::vector<std::string> *values = nullptr);

// The batch submitted without waiting (AsyncCalls::SubmitJobs: the places'
// commands are a fan-out's first round on the shared connections, the rest
// — a failed place's next candidates, retries — on a worker): done runs
// once with the result RunKeyBatch would give, on the engine thread, a
// worker or the completion queue (async_calls.hpp). Errors (done never
// runs): RunKeyBatch's refusals before anything is sent, and the client
// closing. REQUIRES: topo outlives the call.
using KeyBatchDone = std::function<void(KeyBatchResult)>;
Status SubmitKeyBatch(AsyncCalls *async, const TopologySource &topo, KeyBatchKind kind,
                      const std::vector<std::string> &keys, const std::vector<std::string> *values,
                      KeyBatchDone done);

}  // namespace net
}  // namespace cloudroute
