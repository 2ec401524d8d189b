// Internal to capi/: every handle struct behind the opaque typedefs of
// cloudroute.h, in one place.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "cloudroute/core/ring.hpp"
#include "cloudroute/core/router.hpp"
#include "cloudroute/core/shard_group.hpp"
#include "cloudroute/core/topology.hpp"
#include "cloudroute/net/client.hpp"
#include "cloudroute/net/pipeline.hpp"
#include "cloudroute/net/sentinel.hpp"
#include "cloudroute/net/sharded.hpp"

// Reference-counted and immutable (cr_topology_ref / _free).
struct cr_topology {
  std::atomic<int> refs{1};
  std::shared_ptr<const cloudroute::Topology> t;
};

struct cr_config {
  cloudroute::RouterConfig cfg;
  cloudroute::net::LogSink log;  // for clients made from it; no fn = silent
};

struct cr_router {
  explicit cr_router(cloudroute::RouterConfig cfg) : router(std::move(cfg)) {}
  cloudroute::Router router;
};

struct cr_snapshot {
  std::shared_ptr<const cloudroute::Snapshot> s;
};

struct cr_ring {
  explicit cr_ring(cloudroute::RingOptions opts) : builder(opts) {}
  cloudroute::RingBuilder builder;
  std::shared_ptr<const cloudroute::Ring> built;  // set by cr_ring_build; immutable after
};

// live: the table of a Sentinel or pre-sharded client, which reclaims the
// instances that left it (its net layer pins what it uses); a standalone
// table keeps every instance's entry, and its hosts, until it is freed.
struct cr_shard_groups {
  cr_shard_groups(cloudroute::RouterConfig cfg, bool live) : groups(Reclaiming(cfg, live)) {}
  cloudroute::ShardGroups groups;

 private:
  static cloudroute::RouterConfig Reclaiming(cloudroute::RouterConfig cfg, bool live) {
    cfg.reclaim_nodes = live;
    return cfg;
  }
};

// A reply tree owned by the caller (cr_reply_free frees the top level).
struct cr_reply {
  cr_reply_type type = CR_REPLY_TYPE_NIL;
  int64_t integer = 0;
  std::string str;
  std::vector<cr_reply> elements;
};

struct cr_client {
  std::unique_ptr<cr_router> router;  // declared first: outlives the client
  std::unique_ptr<cloudroute::net::Client> client;
};

struct cr_sentinel_client {
  std::unique_ptr<cr_shard_groups> groups;  // declared first: outlives the client
  std::unique_ptr<cloudroute::net::SentinelClient> client;
};

struct cr_sharded_client {
  std::unique_ptr<cr_shard_groups> groups;  // declared first: outlives the client
  std::unique_ptr<cloudroute::net::ShardedClient> client;
};

// ---- Live client: node-targeted commands, SCAN, scripts, transactions ----

struct cr_node_replies {
  struct Entry {
    std::string address;
    cr_role role = CR_ROLE_MASTER;
    cr_status status = CR_OK;
    std::string error;
    std::unique_ptr<cr_reply> reply;  // null when the node did not answer
  };
  std::vector<Entry> entries;
  size_t failed = 0;
};

// A pipeline of any live client's engine (cr_client, cr_sharded_client).
struct cr_pipeline {
  // A cluster client's: CR_ACCESS_AUTO classes by its command table.
  explicit cr_pipeline(cloudroute::net::Client *client) : p(client) {}
  // A client of shard groups'.
  cr_pipeline(cloudroute::net::TopologySource *topo, cloudroute::net::CommandExecutor *exec)
      : p(topo, exec) {}
  cloudroute::net::Pipeline p;
};

struct cr_scan {
  std::unique_ptr<cloudroute::net::ClusterScan> scan;
  std::string address;  // of the last batch's node
};

struct cr_script {
  explicit cr_script(std::string body) : script(std::move(body)) {}
  cloudroute::net::Script script;
};

struct cr_pinned {
  std::unique_ptr<cloudroute::net::Pinned> pinned;
};

// ---- Live client: publish / subscribe ----

// The subscriber and its queue; cr_subscription_free destroys it, which
// wakes and waits out every cr_subscription_next first (PubSubQueue::Close).
struct cr_subscription {
  std::unique_ptr<cloudroute::net::Subscriber> sub;
};

// One message or event (immutable).
struct cr_message {
  cloudroute::net::PubSubItem item;
};
