/* A frozen copy of the versioned structs as libcloudroute 0.1.0 published
 * them (cloudroute.h of 0.1.0), renamed v01_*. test_versioning.c compiles an
 * "old caller" against these layouts and runs it against the current
 * library. Never edit this file: it is the first public layout. */
#ifndef CR_LAYOUTS_V0_1_H
#define CR_LAYOUTS_V0_1_H

#include <stddef.h>
#include <stdint.h>

typedef struct v01_parse_options {
  uint32_t struct_size;
  uint32_t max_elements;
  uint32_t max_depth;
  uint64_t max_bulk_len;
  uint64_t max_total_bytes;
  const char *default_host;
} v01_parse_options;

typedef struct v01_node_info {
  uint32_t struct_size;
  const char *id;
  const char *host;
  const char *ip;
  uint16_t port;
  uint16_t tls_port;
  int role;
  int health;
  const char *zone;
  uint32_t shard;
} v01_node_info;

typedef struct v01_router_options {
  uint32_t struct_size;
  int policy;
  uint32_t nearest_margin_us;
  uint32_t failure_threshold;
  uint32_t down_cooldown_ms;
  uint64_t seed;
} v01_router_options;

typedef struct v01_route {
  uint32_t struct_size;
  uint16_t slot;
  uint32_t shard;
  uint32_t node;
  const char *host;
  uint16_t port;
  int role;
  int tier;
} v01_route;

typedef struct v01_candidate {
  uint32_t struct_size;
  uint32_t node;
  const char *host;
  uint16_t port;
  int role;
  int tier;
  uint32_t rank;
  uint32_t weight;
  uint32_t rtt_us;
  int down;
} v01_candidate;

typedef struct v01_ring_options {
  uint32_t struct_size;
  int algo;
  int hash;
  int naming;
  int key_tags;
} v01_ring_options;

typedef struct v01_client_options {
  uint32_t struct_size;
  uint32_t connect_timeout_ms;
  uint32_t command_timeout_ms[5];
  uint32_t pool_size;
  uint32_t pool_idle_ms;
  uint32_t refresh_interval_ms;
  uint32_t refresh_min_gap_ms;
  uint32_t max_redirects;
  uint32_t max_retries;
  uint32_t retry_backoff_ms;
  uint32_t failures_before_refresh;
  uint32_t tcp_keepalive_s;
  uint32_t tcp_user_timeout_ms;
  uint32_t max_reply_elements;
  uint64_t max_bulk_len;
  uint64_t max_reply_bytes;
  const char *username;
  const char *password;
  const char *client_name;
  uint32_t tls;
  uint32_t tls_verify;
  const char *tls_ca_file;
  const char *tls_ca_dir;
  const char *tls_cert_file;
  const char *tls_key_file;
  const char *tls_server_name;
  uint64_t replica_max_lag_bytes;
  uint32_t replica_max_lag_s;
} v01_client_options;

typedef struct v01_client_stats {
  uint32_t struct_size;
  uint64_t reads;
  uint64_t reads_by_tier[5];
  uint64_t writes;
  uint64_t fallbacks;
  uint64_t moved;
  uint64_t ask;
  uint64_t retries;
  uint64_t conn_errors;
  uint64_t timeouts;
  uint64_t server_errors;
  uint64_t refreshes;
  uint64_t refresh_failures;
  uint64_t connections;
} v01_client_stats;

typedef struct v01_sentinel_options {
  uint32_t struct_size;
  uint32_t connect_timeout_ms;
  uint32_t command_timeout_ms[5];
  uint32_t sentinel_timeout_ms;
  uint32_t reask_interval_ms;
  uint32_t pool_size;
  uint32_t pool_idle_ms;
  uint32_t max_retries;
  uint32_t retry_backoff_ms;
  uint32_t tcp_keepalive_s;
  uint32_t tcp_user_timeout_ms;
  const char *username;
  const char *password;
  const char *sentinel_username;
  const char *sentinel_password;
  const char *client_name;
} v01_sentinel_options;

#endif
