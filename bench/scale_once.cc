// One parse + install of a synthetic CLUSTER SLOTS or CLUSTER SHARDS reply
// (tests/common/scale_replies.hpp), in a noinline function `Once`, for
// instruction counts under callgrind (load-independent, unlike wall time):
//   valgrind --tool=callgrind --toggle-collect='Once*'
//       build-bench/bench/cloudroute_scale_once slots|shards SHARDS [refresh]
// "refresh": the router first installs the cluster as it was (uncounted),
// then Once installs it after a failover in its middle shard.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_util.hpp"
#include "cloudroute/core/cluster_reply.hpp"
#include "cloudroute/core/router.hpp"
#include "common/scale_replies.hpp"

namespace {

bool Install(cloudroute::Router &router, const std::string &reply, bool slots) {
  auto t = slots ? cloudroute::ParseClusterSlots(reply, cloudroute::ClusterReplyOptions{})
                 : cloudroute::ParseClusterShards(reply, cloudroute::ClusterReplyOptions{});
  return t.ok() && router.Update(std::move(*t)).ok();
}

}  // namespace

// Outside the anonymous namespace: callgrind's --toggle-collect='Once*'
// matches the symbol's name from its start.
__attribute__((noinline)) bool Once(cloudroute::Router &router, const std::string &reply,
                                    bool slots) {
  return Install(router, reply, slots);
}

int main(int argc, char **argv) {
  const bool slots = argc > 1 && std::strcmp(argv[1], "slots") == 0;
  const bool shards_reply = argc > 1 && std::strcmp(argv[1], "shards") == 0;
  const int n = argc > 2 ? std::atoi(argv[2]) : 0;
  const bool refresh = argc > 3 && std::strcmp(argv[3], "refresh") == 0;
  if ((!slots && !shards_reply) || n < 2 || n > 16384 || (argc > 3 && !refresh)) {
    std::fprintf(stderr, "usage: %s slots|shards SHARDS(2-16384) [refresh]\n", argv[0]);
    return 2;
  }
  using crscale::ClusterShards;
  using crscale::ClusterSlots;
  cloudroute::Router router(crbench::MakeCoreConfig(cloudroute::Policy::kLocal));
  if (refresh && !Install(router, slots ? ClusterSlots(n) : ClusterShards(n), slots)) {
    std::fprintf(stderr, "scale_once: the generated reply was refused\n");
    return 1;
  }
  const std::string reply = refresh ? (slots ? ClusterSlots(n, n / 2) : ClusterShards(n, n / 2))
                                    : (slots ? ClusterSlots(n) : ClusterShards(n));
  if (!Once(router, reply, slots)) {
    std::fprintf(stderr, "scale_once: the generated reply was refused\n");
    return 1;
  }
  return 0;
}
