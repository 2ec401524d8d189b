// Internal to capi/: the handle structs of the rings and shard-groups
// section (cloudroute.h), shared by ring.cpp and shard_groups.cpp.
#pragma once

#include <memory>

#include "cloudroute/core/ring.hpp"
#include "cloudroute/core/shard_group.hpp"

struct cr_ring {
  explicit cr_ring(cloudroute::RingOptions opts) : builder(opts) {}
  cloudroute::RingBuilder builder;
  std::shared_ptr<const cloudroute::Ring> built;  // set by cr_ring_build; immutable after
};

struct cr_shard_groups {
  explicit cr_shard_groups(cloudroute::RouterConfig cfg) : groups(std::move(cfg)) {}
  cloudroute::ShardGroups groups;
};
