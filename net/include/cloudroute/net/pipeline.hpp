// Pipeline: a batch of any commands for one live client (Client, or a
// client of shard groups: ShardedClient) — GET, HGETALL, ZRANGE, SET … in
// any mix and any places (slots, or a ring's groups) — queued, then run at once: each routed by
// its key and its access (or sent to a node the caller names, for keyless
// commands), grouped per node, every node's group pipelined on one
// connection and all nodes in flight together; the results come back in the
// order the commands were queued, an error in place of a command that
// failed. Redirects, retries and read fallback follow FanOut's rules
// (fan_out.hpp): only the affected commands go again, and a write that may
// have reached its node is never re-sent.
//
// Arguments are views: nothing is copied until the wire buffer is built.
//
// Thread-safety: one thread at a time; the client it runs on is shared.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cloudroute/net/client.hpp"
#include "cloudroute/net/fan_out.hpp"

namespace cloudroute {
namespace net {

class Pipeline {
 public:
  // REQUIRES: client (or topo and exec, a client's engine) outlives the
  // pipeline.
  explicit Pipeline(Client *client);
  Pipeline(TopologySource *topo, CommandExecutor *exec) : topo_(topo), exec_(exec) {}

  // A command routed by argv[key_index].
  // REQUIRES: key_index < argv.size(); the bytes argv views stay valid and
  // unchanged until Execute() or Clear() returns.
  void Add(Access access, size_t key_index, std::vector<std::string_view> argv);
  // A command classed and placed by the server's command table, as
  // Client::ExecuteAuto (key_index > 0: routed by argv[key_index]).
  // A command that would change the connection's state is queued and
  // refused in its place, as with Add.
  // Errors: kInvalid for a command with no key (AddForNode it), and as
  // Classify.
  // REQUIRES: key_index < argv.size(); as Add.
  Status AddAuto(size_t key_index, std::vector<std::string_view> argv);
  // A command for the node host:port only (keyless commands: PING, INFO,
  // DBSIZE …), sent once: a redirect or a failure is its result.
  // Errors: kNotFound when the client's topology has never named the node.
  // REQUIRES: as Add.
  Status AddForNode(Access access, const std::string &host, uint16_t port,
                    std::vector<std::string_view> argv);

  // How the server's command table classes argv (CR_ACCESS_AUTO): its
  // access and key positions, as Client::Classify.
  // Errors: kInvalid on a pipeline of shard groups (only a cluster client
  // learns a command table).
  Result<CommandRoute> Classify(const std::vector<std::string_view> &argv) const;

  size_t size() const { return jobs_.size(); }
  // The cluster client it was made for (whose engine submits it); null for
  // shard groups.
  Client *client() const { return client_; }
  // Runs every queued command; results in queue order (each Job's reply or
  // status). The queue is empty afterwards.
  std::vector<Job> Execute();
  // The queued commands, for a caller that runs them itself (an
  // asynchronous pipeline: AsyncCalls::SubmitJobs); *pins receives the
  // nodes AddForNode named (keep it until they ran). The queue is empty
  // afterwards.
  std::vector<Job> Take(NodePins *pins);
  void Clear() {
    jobs_.clear();
    pins_.Clear();
  }

 private:
  Client *const client_ = nullptr;
  TopologySource *const topo_;
  CommandExecutor *const exec_;
  std::vector<Job> jobs_;
  NodePins pins_;  // the nodes AddForNode named: not reclaimed while queued
};

}  // namespace net
}  // namespace cloudroute
