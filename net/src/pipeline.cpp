// A batch of any commands, run on FanOut (see pipeline.hpp).
#include "cloudroute/net/pipeline.hpp"

#include <utility>

#include "cloudroute/core/topology.hpp"

namespace cloudroute {
namespace net {

Pipeline::Pipeline(Client *client) : Pipeline(&client->topology(), &client->executor()) {}

void Pipeline::Add(Access access, size_t key_index, std::vector<std::string_view> argv) {
  jobs_.emplace_back();
  Job &j = jobs_.back();
  j.access = access;
  j.slot = topo_->Place(argv[key_index].data(), argv[key_index].size());
  j.argv = std::move(argv);
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
  std::vector<Job> jobs = std::move(jobs_);
  jobs_.clear();
  exec_->Run(&jobs);
  pins_.Clear();
  return jobs;
}

}  // namespace net
}  // namespace cloudroute
