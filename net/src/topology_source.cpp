// The topology kinds the engine serves (see topology_source.hpp).
#include "cloudroute/net/topology_source.hpp"

#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

namespace {

// A redirect from a ring's server: it runs in cluster mode, which a ring's
// servers must not (a key's group is the ring's answer, not the server's).
Status RedirectRefused(const char *kind, uint32_t slot, const std::string &host, uint16_t port) {
  return Error(kServerError, std::string("refused ") + kind + " " + std::to_string(slot) + " " +
                                 FormatAddress(host, port) +
                                 ": the group's server is in cluster mode; shard groups place "
                                 "keys on their ring and follow no redirect");
}

}  // namespace

uint16_t TopologySource::RingPlace(const void *key, size_t len) const {
  uint32_t group = 0;
  if (groups_->Locate(key, len, &group) != Code::kOk || group >= kNoPlace) return kNoPlace;
  return static_cast<uint16_t>(group);
}

Status GroupSource::Check() const {
  if (groups_->group_count() > kNoPlace) {
    return Error(Code::kLimit, "a live client serves at most " + std::to_string(kNoPlace) +
                                   " groups (" + std::to_string(groups_->group_count()) +
                                   " given)");
  }
  uint32_t group = 0;
  if (groups_->Locate("", 0, &group) == Code::kNoTopology) {
    return Error(Code::kNoTopology, "no ring set on the groups");
  }
  return Status::Ok();
}

std::string GroupSource::Where(uint16_t place) const {
  const std::shared_ptr<const Snapshot> snap = Current();
  if (place == kNoPlace || snap == nullptr || place >= snap->sets.size()) {
    return "a group past the first " + std::to_string(kNoPlace) + " (no place)";
  }
  return "group '" + std::string(snap->sets[place].shard_id) + "'";
}

Status GroupSource::ReportMoved(uint32_t slot, const std::string &host, uint16_t port) {
  return RedirectRefused("MOVED", slot, host, port);
}

Result<NodeEntry *> GroupSource::ReportAsk(uint32_t slot, const std::string &host, uint16_t port) {
  return RedirectRefused("ASK", slot, host, port);
}

}  // namespace net
}  // namespace cloudroute
