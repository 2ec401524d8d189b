// ClusterScan: SCAN over the whole cluster (or every group of shard groups)
// as one iterator — every shard
// once, in shard order, each on one node chosen like a read of the shard
// (the read policy's first admitted candidate: a local replica where the
// policy prefers one), with MATCH / COUNT / TYPE passed through.
//
// The shards are those of the topology when the scan starts. A node that
// fails before its shard's first reply is replaced by the shard's next
// candidate (in candidate order); one that fails mid-shard ends the scan
// with the error (going on elsewhere could repeat or miss keys). As with
// SCAN itself, a key added or removed during the scan may or may not be
// returned; a key present throughout is returned (once per shard scan, so
// once, unless the server's own SCAN repeats it during a rehash).
//
// Thread-safety: one thread at a time; the executor and context must
// outlive it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cloudroute/net/call_options.hpp"
#include "cloudroute/net/command_executor.hpp"

namespace cloudroute {
namespace net {

struct ScanOptions {
  bool has_match = false;
  std::string match;        // MATCH pattern (binary-safe)
  uint32_t count = 0;       // COUNT hint per round trip; 0 = the server's default
  std::string type;         // TYPE filter; "" = none
  uint32_t timeout_ms = 0;  // per round trip; 0 = the node's tier timeout
};

class ClusterScan {
 public:
  ClusterScan(ClientContext *ctx, CommandExecutor *exec, ScanOptions opts)
      : ctx_(ctx), exec_(exec), opts_(std::move(opts)) {}

  // The next batch of keys (possibly empty: MATCH and TYPE filter on the
  // server); *done once every shard is finished. After an error the scan is
  // finished too.
  Status Next(std::vector<std::string> *keys, bool *done);
  // The node the current (or last) shard is scanned on; null before the first.
  const NodeEntry *node() const { return node_; }

 private:
  Status Start();
  // SCAN <cursor_> on node_; on a failure before the shard's first reply,
  // the next untried candidate.
  Result<ReplyPtr> RoundTrip();
  Args Command() const;

  ClientContext *const ctx_;
  CommandExecutor *const exec_;
  const ScanOptions opts_;
  std::shared_ptr<const Snapshot> snap_;  // the topology the scan covers
  size_t shard_ = 0;
  bool started_ = false, finished_ = false, shard_begun_ = false;
  std::string cursor_ = "0";
  NodeEntry *node_ = nullptr;
  Tier tier_ = Tier::kUnknown;
};

}  // namespace net
}  // namespace cloudroute
