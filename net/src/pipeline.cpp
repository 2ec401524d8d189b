// A batch of any commands, run on FanOut (see pipeline.hpp).
#include "cloudroute/net/pipeline.hpp"

#include <utility>

#include "cloudroute/core/topology.hpp"
#include "cloudroute/net/command_rules.hpp"

namespace cloudroute {
namespace net {

Pipeline::Pipeline(Client *client)
    : client_(client), topo_(&client->topology()), exec_(&client->executor()) {}

void Pipeline::Add(Access access, size_t key_index, std::vector<std::string_view> argv) {
  jobs_.emplace_back();
  Job &j = jobs_.back();
  j.access = access;
  j.slot = topo_->Place(argv[key_index].data(), argv[key_index].size());
  j.argv = std::move(argv);
}

Result<CommandRoute> Pipeline::Classify(const std::vector<std::string_view> &argv) const {
  if (client_ == nullptr) {
    return Error(Code::kInvalid,
                 "the server's command table (CR_ACCESS_AUTO) is for a cluster client's "
                 "pipeline: give read or write");
  }
  return client_->Classify(argv);
}

Status Pipeline::AddAuto(size_t key_index, std::vector<std::string_view> argv) {
  // A state change (SSUBSCRIBE …) is queued as it is: Execute refuses it in
  // its place, as for Add, whatever the table says of its keys.
  if (!RefuseStateChange(argv, ConnectionUse::kShared).ok()) {
    const size_t at = key_index > 0 ? key_index : argv.size() > 1 ? 1 : 0;
    Add(Access::kWrite, at, std::move(argv));
    return Status::Ok();
  }
  Result<CommandRoute> classed = Classify(argv);
  if (!classed.ok()) return classed.status();
  CommandRoute route = std::move(*classed);
  if (key_index > 0) route.keys = {key_index};
  if (route.keys.empty()) {
    return Error(Code::kInvalid, std::string(argv[0].substr(0, 64)) +
                                     " names no key to route it by: send it to a node by name");
  }
  // Several keys: the first places it (the server answers CROSSSLOT when
  // they are in different slots).
  Add(route.access, route.keys.front(), std::move(argv));
  return Status::Ok();
}

Status Pipeline::AddForNode(Access access, const std::string &host, uint16_t port,
                            std::vector<std::string_view> argv) {
  const std::string address = FormatAddress(host, port);
  NodeRegistry &reg = topo_->registry();
  uint32_t handle = 0;
  // Pinned until the command ran (a node no one pins is about to be reclaimed).
  NodeEntry *node = reg.FindHandle(address, &handle) ? reg.Pin(handle) : nullptr;
  if (node == nullptr) {
    return Error(Code::kNotFound, "node " + address + " is not part of the client's topology");
  }
  pins_.Add(node);
  NodeRegistry::Unpin(node);
  jobs_.emplace_back();
  Job &j = jobs_.back();
  j.access = access;
  j.pinned = node;
  j.argv = std::move(argv);
  return Status::Ok();
}

std::vector<Job> Pipeline::Execute() {
  NodePins pins;
  std::vector<Job> jobs = Take(&pins);
  exec_->Run(&jobs);
  return jobs;
}

std::vector<Job> Pipeline::Take(NodePins *pins) {
  std::vector<Job> jobs = std::move(jobs_);
  jobs_.clear();
  *pins = std::move(pins_);
  pins_.Clear();
  return jobs;
}

}  // namespace net
}  // namespace cloudroute
