/*
 * cloudroute.h — the one stable C ABI of libcloudroute.
 *
 * libcloudroute decides which Redis node serves a key: the master for a
 * write, and an ordered list of nodes — cloud-local ones first — for a read.
 *
 * Conventions (they hold for every declaration below unless its doc says
 * otherwise; docs/c-api.md explains them and how the ABI evolves):
 *  - Names: functions cr_<module>_<verb>[_<object>]; property reads are
 *    cr_<module>_get_<property>, changes cr_<module>_set_<property>; the
 *    variant of a call that takes a slot instead of a key appends _slot, the
 *    variant for many keys at once appends _batch. Enum values are
 *    CR_<ENUM TYPE NAME>_<VALUE> (cr_ring_algo -> CR_RING_ALGO_JEDIS); status
 *    codes are CR_OK and CR_E<NAME>.
 *  - Errors: functions that can fail return cr_status (CR_OK == 0, errors <
 *    0) and set a thread-local message readable with cr_last_error(). Calls
 *    that cannot fail (or only on a NULL handle) return their value.
 *  - Arguments: out-parameters first, then the handle, then inputs.
 *    Variable-size output goes into caller memory as (out, cap, needed):
 *    at most cap elements (bytes, for text) are written; *needed receives
 *    the number the whole result has (for text, including its NUL); the call
 *    fails with CR_EBUFS when cap < *needed (after writing the first cap).
 *  - Types, one per kind of value: slot uint16_t (0-16383; a larger value is
 *    CR_EINVAL); shard, group and node indexes and node handles uint32_t;
 *    counts and lengths size_t; weights uint32_t; ports uint16_t; booleans
 *    int (0 false, 1 true); binary data (keys, values) and whole documents
 *    (a reply's bytes, a configuration text) as pointer + length; names
 *    (hosts, CIDRs, locations, shard and group names) as NUL-terminated
 *    UTF-8. A node
 *    is named by (host, port) in routing calls and by "host:port" text (or
 *    its node id) in configuration text.
 *  - A "node handle" is the router's number for an address (cr_route
 *    .node_handle), valid while the node is in the router's current or
 *    previous topology or in a snapshot someone holds; after that the router
 *    reclaims the node and refuses its handle with CR_ENOTFOUND (a handle is
 *    never reused for another address while it could still be held in
 *    practice: see cr_router_update). A "node index" is a position in one
 *    topology (cr_topology_get_node).
 *  - Ownership: handles are opaque and allocated by the library; cr_x_free(
 *    NULL) is a no-op. Strings and buffers passed in are copied; the library
 *    keeps no pointer to caller memory after a call returns. Pointers the
 *    library returns are borrowed unless the doc says "new reference".
 *  - Thread-safety: a handle is used by one thread at a time, EXCEPT
 *    cr_router, cr_shard_groups, cr_client and cr_sentinel_client (safe for
 *    concurrent use by any number of threads, except their _free),
 *    cr_subscription (every call, its _free included: see its section) and
 *    cr_topology / cr_snapshot / a built cr_ring / cr_reply (immutable: safe
 *    to read from any thread; a topology is reference-counted
 *    (cr_topology_ref), a snapshot handle is one reference of its own (each
 *    cr_router_get_snapshot returns a new one); both stay valid after the
 *    router that produced them is freed, so garbage-collected bindings may
 *    finalize in any order). Functions
 *    without a handle are pure and thread-safe.
 *  - Versioned structs begin with `uint32_t struct_size` (the caller's
 *    sizeof). Initialise option structs with the _INIT macro or
 *    cr_<x>_options_init(&opts, sizeof opts), output structs with their
 *    _INIT macro. Structs only grow at the end. Every call accepts any size
 *    from the struct's first public layout (0.1.0) up to its own: fields the
 *    caller does not have take their defaults (inputs) or are not written
 *    (outputs). A larger input struct (from a newer header) is accepted when
 *    every byte past the library's layout is zero, else the call fails with
 *    CR_EVERSION; in a larger output struct the fields past the library's
 *    layout are left as they are. A size below the first layout is
 *    CR_EINVAL. Arrays of output structs: the caller sets out[0].struct_size,
 *    which is the array's stride; the library sets the others'.
 */
#ifndef CLOUDROUTE_H
#define CLOUDROUTE_H

#include <stddef.h>
#include <stdint.h>

/* The single source of the version: CMake, the wheel and the jar read these. */
#define CR_VERSION_MAJOR 0
#define CR_VERSION_MINOR 2
#define CR_VERSION_PATCH 0
#define CR_VERSION_STRING "0.2.0"
#define CR_VERSION_NUMBER (CR_VERSION_MAJOR * 10000 + CR_VERSION_MINOR * 100 + CR_VERSION_PATCH)

#if defined(CR_STATIC)
#define CR_API
#elif defined(_WIN32)
#if defined(CR_BUILDING_LIBRARY)
#define CR_API __declspec(dllexport)
#else
#define CR_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define CR_API __attribute__((visibility("default")))
#else
#define CR_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Status codes and errors
 * ==================================================================== */

/* Values are pinned forever; new codes are only ever appended. Each code's
 * comment starts with the exception family the bindings raise for it
 * ([family], docs/errors.md; scripts/gen_tables.py reads it). */
typedef enum cr_status {
  CR_OK = 0,
  /* [invalid_argument] an argument is invalid (NULL, out of range, bad option) */
  CR_EINVAL = -1,
  /* [internal] allocation failed */
  CR_ENOMEM = -2,
  /* [internal] caller buffer too small; the needed size was reported */
  CR_EBUFS = -3,
  /* [parse] malformed input: RESP reply, config text, CIDR, address */
  CR_EPARSE = -4,
  /* [parse] input exceeds a safety cap (elements, bulk length, size) */
  CR_ELIMIT = -5,
  /* [parse] input ends before the reply does */
  CR_EINCOMPLETE = -6,
  /* [unavailable] the router has not been given a topology yet */
  CR_ENOTOPOLOGY = -7,
  /* [unavailable] the key's slot is served by no shard (like CLUSTERDOWN) */
  CR_ESLOT_UNCOVERED = -8,
  /* [unavailable] every candidate is marked down or has no known endpoint */
  CR_EUNAVAILABLE = -9,
  /* [not_found] the named node or shard is not known */
  CR_ENOTFOUND = -10,
  /* [internal] a bug in libcloudroute: please report it */
  CR_EINTERNAL = -11,
  /* [connection] a Redis node could not be reached or dropped the connection */
  CR_ECONN = -12,
  /* [connection] a connect or command deadline passed */
  CR_ETIMEOUT = -13,
  /* [server] the server answered with an error (its text in cr_last_error) */
  CR_EREDIS = -14,
  /* [version] a struct from a newer header sets fields this library lacks */
  CR_EVERSION = -15
} cr_status;

/* Static text naming a status ("CR_EPARSE: malformed input"); "CR_?: unknown
 * status" for a value that is none. Never NULL. Pure function.
 * docs/errors.md says when each status happens and what a caller should do. */
CR_API const char *cr_status_str(cr_status status);

/* The message of the last failed call on this thread. Never NULL ("" when
 * there is none). Ownership: thread-local storage of the library, valid until
 * the next failing call on the same thread. */
CR_API const char *cr_last_error(void);

/* The runtime library's version ("0.2.0", static text) and its number
 * (CR_VERSION_NUMBER of the header it was built from); compare with the
 * macros of the header a program was compiled against. Pure functions. */
CR_API const char *cr_version(void);
CR_API uint32_t cr_version_number(void);

/* ======================================================================
 * Key slots (Redis Cluster: CRC16/XMODEM mod 16384, with {hash tags})
 * ==================================================================== */

#define CR_SLOT_COUNT 16384

/* The slot of a key. The hash tag rule: when the key has a '{' followed later
 * by a '}' with at least one byte between them, only those bytes are hashed.
 * key may be NULL when len is 0 (a NULL key with len > 0 gives slot 0; use
 * cr_keyslot_batch for checked input). Pure function; never fails. */
CR_API uint16_t cr_keyslot(const void *key, size_t len);

/* Slots of n keys at once (one crossing for many keys, for bindings):
 * out_slots[i] = cr_keyslot(keys[i], lens[i]). Errors: CR_EINVAL when an
 * array is NULL (with n > 0) or keys[i] is NULL with lens[i] > 0 (nothing
 * is written then). Pure function. */
CR_API cr_status cr_keyslot_batch(uint16_t *out_slots, const void *const *keys, const size_t *lens,
                                  size_t n);

/* CRC16/XMODEM (poly 0x1021, init 0) of a buffer: cr_crc16("123456789", 9)
 * == 0x31C3. data may be NULL when len is 0. Pure function; never fails. */
CR_API uint16_t cr_crc16(const void *data, size_t len);

/* ======================================================================
 * Topology: an immutable snapshot of shards and nodes
 * ==================================================================== */

typedef struct cr_topology cr_topology;

typedef enum cr_topology_format {
  CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS = 0, /* reply to CLUSTER SLOTS (RESP2 or RESP3 bytes) */
  CR_TOPOLOGY_FORMAT_CLUSTER_SHARDS = 1 /* reply to CLUSTER SHARDS (RESP2 or RESP3 bytes) */
} cr_topology_format;

typedef enum cr_role { CR_ROLE_MASTER = 0, CR_ROLE_REPLICA = 1 } cr_role;

/* Role names: "master", "replica"; "?" for a value that is none. */
CR_API const char *cr_role_name(cr_role role);

/* Health as the server reported it (CLUSTER SHARDS); CLUSTER SLOTS does not
 * report it and gives CR_REPORTED_HEALTH_ONLINE. */
typedef enum cr_reported_health {
  CR_REPORTED_HEALTH_ONLINE = 0,
  CR_REPORTED_HEALTH_LOADING = 1,
  CR_REPORTED_HEALTH_FAILED = 2
} cr_reported_health;

/* Safety caps of the RESP parser. A CLUSTER SLOTS/SHARDS reply is at most a
 * few MB; the defaults refuse anything far beyond that in milliseconds.
 * Whatever the caps, the parser also holds each reply to its shape (nesting,
 * fields per node, replicas per shard) and to at most 16 bytes of memory per
 * byte of reply plus 1 MiB (CR_ELIMIT beyond). */
typedef struct cr_parse_options {
  uint32_t struct_size;
  uint32_t max_elements;    /* per aggregate (array/map/set); default 1048576 */
  uint32_t max_depth;       /* nesting; default 8, at most 64 (CR_EINVAL) */
  uint64_t max_bulk_len;    /* per bulk/verbatim string; default 65536 */
  uint64_t max_total_bytes; /* whole reply; default 64 MiB */
  const char *default_host; /* used where a node's endpoint is "" (the address
                               that was asked); NULL: such nodes are unknown */
} cr_parse_options;

#define CR_PARSE_OPTIONS_INIT \
  { (uint32_t)sizeof(cr_parse_options), 1048576u, 8u, 65536u, 67108864u, NULL }

/* Writes the defaults into the first `size` bytes of opts (size = the
 * caller's sizeof) and sets struct_size; bytes past the library's layout
 * are zeroed. Nothing beyond size is written. Errors: CR_EINVAL for NULL or
 * a size below the first public layout. Every cr_<x>_options_init below
 * follows the same rule. */
CR_API cr_status cr_parse_options_init(cr_parse_options *opts, size_t size);

/* Parse a saved or received reply (len bytes) into a topology.
 * out: receives a new topology (refcount 1) on CR_OK, NULL otherwise.
 * opts may be NULL for defaults. Errors: CR_EPARSE (malformed or
 * contradictory, with the byte offset or the conflict in the message),
 * CR_ELIMIT (beyond a cap), CR_EINCOMPLETE (the bytes end before the reply),
 * CR_EINVAL (NULL arguments, an unknown format), CR_EVERSION (opts).
 * Trailing bytes after the reply are an error (CR_EPARSE). */
CR_API cr_status cr_topology_parse(cr_topology **out, const void *reply, size_t len,
                                   cr_topology_format format, const cr_parse_options *opts);

/* A topology from a small text config, for users without cluster mode.
 * One shard per line; '#' starts a comment:
 *   shard slots=0-8191,10000 master=10.0.0.1:6379 replicas=10.1.0.1:6379,10.2.0.1:6379 [id=NAME]
 * `slots=` may be omitted on a single-shard file (then it owns every slot).
 * Hosts are IP literals (IPv6 in brackets: [::1]:6379) or RFC 1123 hostnames
 * without a trailing dot. A key given twice on a line, a master on two lines
 * and an address in two roles are errors. text is len bytes (no NUL
 * needed). out: a new topology (refcount 1) on CR_OK, NULL otherwise.
 * Errors: CR_EPARSE (naming the line), CR_EINVAL (NULL arguments). */
CR_API cr_status cr_topology_parse_static(cr_topology **out, const char *text, size_t len);

/* A node of a topology, as filled by cr_topology_get_node(). Strings point
 * into the topology and stay valid while the caller holds a reference to
 * it. An output struct: set struct_size (CR_NODE_INFO_INIT). */
typedef struct cr_node_info {
  uint32_t struct_size;
  const char *id;   /* node id ("" when the reply gave none) */
  const char *host; /* endpoint: hostname or IP; "?" when unknown */
  const char *ip;   /* IP when the reply gave one separately, else "" */
  uint16_t port;
  uint16_t tls_port; /* 0 when none */
  cr_role role;
  cr_reported_health health;
  const char *zone; /* server-reported availability zone, "" when none */
  uint32_t shard;   /* index of the node's shard */
} cr_node_info;

#define CR_NODE_INFO_INIT                                                   \
  {                                                                         \
    (uint32_t)sizeof(cr_node_info), NULL, NULL, NULL, 0, 0, CR_ROLE_MASTER, \
        CR_REPORTED_HEALTH_ONLINE, NULL, 0                                  \
  }

/* Adds a reference (for another owner, e.g. another thread); drops one.
 * The last cr_topology_free frees it. NULL is a no-op for both.
 * Thread-safety: safe from any thread (the count is atomic). */
CR_API void cr_topology_ref(cr_topology *t);
CR_API void cr_topology_free(cr_topology *t);

/* Counts of shards and nodes; 0 for NULL. */
CR_API size_t cr_topology_get_shard_count(const cr_topology *t);
CR_API size_t cr_topology_get_node_count(const cr_topology *t);

/* Fills info with the node at node_index (0 <= node_index < node count).
 * Errors: CR_EINVAL (NULL, struct_size below the first layout),
 * CR_ENOTFOUND (node_index out of range). */
CR_API cr_status cr_topology_get_node(cr_node_info *info, const cr_topology *t,
                                      uint32_t node_index);

/* The shard's identity: its master's node id (or "host:port" when the reply
 * gave no ids). *out_id points into the topology. Errors: CR_EINVAL (NULL),
 * CR_ENOTFOUND (shard out of range). */
CR_API cr_status cr_topology_get_shard_id(const char **out_id, const cr_topology *t,
                                          uint32_t shard);

/* Slot ranges of a shard, inclusive, sorted by start, as (out, cap, needed)
 * pairs starts[i]..ends[i]. Errors: CR_EINVAL (NULL with cap > 0),
 * CR_ENOTFOUND (shard out of range), CR_EBUFS. */
CR_API cr_status cr_topology_get_shard_ranges(uint16_t *starts, uint16_t *ends, size_t cap,
                                              size_t *needed, const cr_topology *t, uint32_t shard);

/* The shard serving a slot. Errors: CR_EINVAL (NULL, slot > 16383),
 * CR_ESLOT_UNCOVERED (no shard serves it). */
CR_API cr_status cr_topology_get_slot_shard(uint32_t *out_shard, const cr_topology *t,
                                            uint16_t slot);

/* ======================================================================
 * Configuration: locality, policy, weights, health (an opaque builder)
 * ==================================================================== */

typedef struct cr_config cr_config;

typedef enum cr_policy {
  CR_POLICY_MASTER = 0,               /* reads on the master only (Jedis default) */
  CR_POLICY_PREFER_REPLICA = 1,       /* replicas (nearest tier first), then the master */
  CR_POLICY_LOCAL = 2,                /* per tier, nearest first: master, then replicas */
  CR_POLICY_LOCAL_REPLICAS_FIRST = 3, /* per tier, nearest first: replicas, then master */
  CR_POLICY_NEAREST = 4,              /* by measured RTT, with a tolerance band */
  CR_POLICY_LOCAL_SPREAD = 5, /* per tier, nearest first: master and replicas share by weight */
  CR_POLICY_REPLICA_ONLY = 6 /* replicas only, nearest tier first; never a master (fails instead) */
} cr_policy;

/* How far a node is from the client: the first level at which their
 * locations differ. Smaller is nearer. */
typedef enum cr_tier {
  CR_TIER_LOCAL = 0,       /* same zone (or matched by a local CIDR) */
  CR_TIER_SAME_REGION = 1, /* same cloud and region, other zone */
  CR_TIER_SAME_CLOUD = 2,  /* same cloud, other region */
  CR_TIER_OTHER_CLOUD = 3,
  CR_TIER_UNKNOWN = 4 /* the node's or the client's location is unknown */
} cr_tier;

/* The config builder. Every cr_config_* call: Errors: CR_EINVAL (a NULL
 * argument or a value out of range), CR_EPARSE (malformed text: a location,
 * CIDR or address, named in the message), CR_ENOMEM. Ownership: text is
 * copied; a router or client copies the whole config when it is created,
 * so later changes do not affect it. Thread-safety: one thread at a time. */
CR_API cr_status cr_config_new(cr_config **out);
CR_API void cr_config_free(cr_config *cfg);

/* The client's own location: "cloud[/region[/zone]]" (e.g. "aws/us-east-1/use1-az1"). */
CR_API cr_status cr_config_set_client_location(cr_config *cfg, const char *location);

/* Nodes whose address is in cidr ("10.0.0.0/24", "fd00::/8") are in the
 * client's own zone (tier LOCAL). */
CR_API cr_status cr_config_add_local_cidr(cr_config *cfg, const char *cidr);

/* Nodes whose address is in cidr are at location "cloud[/region[/zone]]".
 * The longest matching prefix wins. */
CR_API cr_status cr_config_add_location_rule(cr_config *cfg, const char *cidr,
                                             const char *location);

/* An exact location for one node, by "host:port" (IPv6 in brackets) or by
 * node id. Highest precedence. Text with ':' or '[' must be a valid address
 * and anything else a node id (printable, no spaces): CR_EPARSE otherwise. */
CR_API cr_status cr_config_add_node_location(cr_config *cfg, const char *node,
                                             const char *location);

/* What a server-reported zone name means: zone "use1-az1" is at
 * "aws/us-east-1/use1-az1". Without an entry a reported zone is known only as
 * a zone name (two nodes in equal zone names are still LOCAL to each other). */
CR_API cr_status cr_config_add_zone(cr_config *cfg, const char *zone, const char *location);

/* The client's zone, by the name the servers report (their availability-zone,
 * e.g. "use1-az2"; GLIDE's client_az): a node reporting that zone is
 * CR_TIER_LOCAL, a node reporting any other zone is CR_TIER_SAME_REGION (a
 * cluster's zones are taken as the zones of one region, the client's). Only
 * reported zones without a cr_config_add_zone entry are read this way; a node
 * reporting no zone keeps the tier the other rules give it. No zone table
 * needed. Setting it again replaces it. Errors: CR_EINVAL (NULL, empty, a
 * control byte, named in the message). */
CR_API cr_status cr_config_set_client_zone(cr_config *cfg, const char *zone);

/* Relative read weight of a node ("host:port" or node id, validated as for
 * cr_config_add_node_location) among candidates of equal rank; default 1.
 * weight 0 keeps the node as a last resort only. */
CR_API cr_status cr_config_set_weight(cr_config *cfg, const char *node, uint32_t weight);

/* Dial a node somewhere else than the address the cluster announces for it:
 * "host:port" as announced → "host:port" to connect to (NAT, a TCP proxy, a
 * private endpoint). Routing, statistics and MOVED handling keep using the
 * announced address; only the live client's connections are re-pointed.
 * IPv6 hosts in brackets. CR_EPARSE on a malformed address (hosts are IP
 * literals or RFC 1123 hostnames without a trailing dot). */
CR_API cr_status cr_config_add_address_remap(cr_config *cfg, const char *announced,
                                             const char *dial);

typedef struct cr_router_options {
  uint32_t struct_size;
  cr_policy policy; /* default CR_POLICY_LOCAL */
  uint32_t
      nearest_margin_us; /* NEAREST: nodes within this of the fastest are equal; default 1000 */
  uint32_t failure_threshold; /* consecutive failures that open the breaker; default 3 */
  uint32_t down_cooldown_ms;  /* how long a node is skipped before a probe; default 2000 */
  uint64_t seed;              /* seed of the weighted choice: reproduces this router's picks per
                                 thread (its first 128 threads), whatever other routers the
                                 thread uses; 0 = from the clock */
} cr_router_options;

#define CR_ROUTER_OPTIONS_INIT \
  { (uint32_t)sizeof(cr_router_options), CR_POLICY_LOCAL, 1000u, 3u, 2000u, 0u }
/* Defaults into the caller's struct, as cr_parse_options_init. */
CR_API cr_status cr_router_options_init(cr_router_options *opts, size_t size);
/* The routing options of the config (copied). Errors: CR_EINVAL (NULL, an
 * unknown policy, failure_threshold 0), CR_EVERSION. */
CR_API cr_status cr_config_set_router_options(cr_config *cfg, const cr_router_options *opts);

/* Parse a policy name: "master", "prefer-replica", "local",
 * "local-replicas-first", "nearest", "local-spread", "replica-only"
 * (case-insensitive, '_' == '-').
 * Errors: CR_EINVAL (NULL, or no such policy). Pure function. */
CR_API cr_status cr_policy_from_name(cr_policy *out, const char *name);
/* Names of policies and tiers ("local", "same-region", …): static text, "?"
 * for a value that is none. Pure functions. */
CR_API const char *cr_policy_name(cr_policy policy);
CR_API const char *cr_tier_name(cr_tier tier);

/* ---- read selection: how a read picks among candidates of equal rank ---- */

typedef enum cr_selection {
  /* weighted random from the router's seeded streams (the default) */
  CR_SELECTION_RANDOM = 0,
  /* steady weighted round-robin per shard: over every W consecutive reads of
   * a shard (W = the total weight of its first rank) each of that rank's
   * nodes is tried first exactly `weight` times, interleaved; a node that is
   * down is skipped as under random selection */
  CR_SELECTION_ROUND_ROBIN = 1,
  /* load-aware: two weighted random draws among the rank, and the one with
   * fewer requests in flight times its recent latency wins (a pair within
   * a fifth of each other, or under 100 us of latency, is a tie: the first
   * drawn), so a slow or busy node loses share while equal nodes keep
   * equal shares; a latency not measured within the last second counts as
   * unknown (only requests in flight compare). The live client feeds both
   * per node; a router used for routing only has neither and draws as
   * random. A node that is down is skipped as under random selection */
  CR_SELECTION_LEAST_LOADED = 2
} cr_selection;

/* The selection of routers, clients and shard-group tables made from cfg
 * (default CR_SELECTION_RANDOM). Errors: CR_EINVAL (NULL, an unknown value).
 * Thread-safety: as every cr_config_* call. */
CR_API cr_status cr_config_set_selection(cr_config *cfg, cr_selection selection);
/* Parse "random", "round-robin" or "least-loaded" (case-insensitive, '_' == '-').
 * Errors: CR_EINVAL (NULL, or no such selection). Pure function. */
CR_API cr_status cr_selection_from_name(cr_selection *out, const char *name);
/* "random", "round-robin", "least-loaded": static text, "?" for a value that
 * is none. Pure function. */
CR_API const char *cr_selection_name(cr_selection selection);

/* ======================================================================
 * Router: thread-safe routing on the current snapshot
 * ==================================================================== */

typedef struct cr_router cr_router;
typedef struct cr_snapshot cr_snapshot;

/* The outcome of a routing decision (an output struct: CR_ROUTE_INIT).
 * host points to storage owned by the router's node registry: valid while
 * the node's handle is (its node in the router's current or previous
 * topology, or in a snapshot taken from it that is still alive). */
typedef struct cr_route {
  uint32_t struct_size;
  uint16_t slot;
  uint32_t shard;       /* index in the snapshot's topology */
  uint32_t node_handle; /* node handle for cr_router_report_* (lifetime: see top) */
  const char *host;
  uint16_t port;
  cr_role role;
  cr_tier tier;
} cr_route;

#define CR_ROUTE_INIT \
  { (uint32_t)sizeof(cr_route), 0, 0, 0, NULL, 0, CR_ROLE_MASTER, CR_TIER_UNKNOWN }

/* cr_route.shard of a route that names no shard of the snapshot (an ASK
 * target). */
#define CR_SHARD_NONE 0xFFFFFFFFu

/* A router with a copy of cfg (later changes to cfg do not affect it); cfg
 * may be NULL for defaults. It has no topology until cr_router_update().
 * Errors: CR_EINVAL (out NULL), CR_ENOMEM. Ownership: free with
 * cr_router_free; snapshots taken from it outlive it. */
CR_API cr_status cr_router_new(cr_router **out, const cr_config *cfg);
/* REQUIRES: no other call on r is running or will run. NULL is a no-op. */
CR_API void cr_router_free(cr_router *r);

/* Install a topology: candidate sets are rebuilt for every shard from each
 * node's role and locality, then swapped in atomically (readers never see a
 * half-built snapshot). The router takes its own reference to t. Nodes in
 * neither t nor the topology it replaces (nor in a snapshot still held, nor
 * an ASK target since the previous update) are then reclaimed: their
 * handles are refused (CR_ENOTFOUND) and their memory reused, so a client
 * whose nodes move to new addresses keeps a bounded registry. A handle's
 * number comes back only after about four million further reclaims.
 * Errors: CR_EINVAL (NULL), CR_ELIMIT (more than 1048576 nodes alive at
 * once). Thread-safety: may run concurrently with routing calls; updates
 * serialize. */
CR_API cr_status cr_router_update(cr_router *r, cr_topology *t);

/* Every routing call below: Thread-safety: lock-free, from any number of
 * threads, concurrently with updates and feedback. Never allocates on
 * success. Errors: CR_EINVAL (NULL arguments, a key NULL with len > 0, a
 * slot > 16383, struct_size below the first layout),
 * CR_ENOTOPOLOGY (no cr_router_update yet), CR_ESLOT_UNCOVERED (no shard
 * serves the slot), CR_EUNAVAILABLE (as each call says). */

/* Route a read: the chosen node among the key's shard's candidates (weighted
 * among equal rank, skipping nodes marked down). CR_EUNAVAILABLE when every
 * candidate is marked down or has no known endpoint. */
CR_API cr_status cr_router_route_read(cr_route *out, const cr_router *r, const void *key,
                                      size_t len);

/* Route a write: always the shard's master, whatever its health (writes fail
 * fast at the caller rather than silently going elsewhere).
 * CR_EUNAVAILABLE when the master's endpoint is unknown ("?"). */
CR_API cr_status cr_router_route_write(cr_route *out, const cr_router *r, const void *key,
                                       size_t len);

/* The same by slot (0-16383) instead of key, for clients that already
 * computed the slot (redis-py's node selection works on slots). */
CR_API cr_status cr_router_route_read_slot(cr_route *out, const cr_router *r, uint16_t slot);
CR_API cr_status cr_router_route_write_slot(cr_route *out, const cr_router *r, uint16_t slot);

/* Route n reads at once, all on one snapshot: out[i] and statuses[i] per
 * key (out laid out with stride out[0].struct_size). statuses may be NULL:
 * then the first failure stops the batch and is returned (its message names
 * the key's index). One crossing for bindings. */
CR_API cr_status cr_router_route_read_batch(cr_route *out, cr_status *statuses, const cr_router *r,
                                            const void *const *keys, const size_t *lens, size_t n);

/* A candidate of a shard's ordered read set (an output struct:
 * CR_CANDIDATE_INIT). */
typedef struct cr_candidate {
  uint32_t struct_size;
  uint32_t node_handle; /* stable node handle */
  const char *host;
  uint16_t port;
  cr_role role;
  cr_tier tier;
  uint32_t rank; /* equal rank = chosen among by weight; lower is tried first */
  uint32_t weight;
  uint32_t rtt_us; /* the RTT the order was built with, 0 when none (CR_POLICY_NEAREST rebuilds
                      on each cr_router_set_rtt; other policies at their next rebuild) */
  int down;        /* 1 when the health breaker currently skips this node */
} cr_candidate;

#define CR_CANDIDATE_INIT \
  { (uint32_t)sizeof(cr_candidate), 0, NULL, 0, CR_ROLE_MASTER, CR_TIER_UNKNOWN, 0, 0, 0, 0 }

/* The key's shard's read candidates in rank order — the order the policy
 * ranks them, not one draw of the weighted pick (cr_shard_groups_candidates
 * gives a draw) — as (out, cap, needed). Errors: those of routing, and
 * CR_EBUFS. */
CR_API cr_status cr_router_candidates(cr_candidate *out, size_t cap, size_t *needed,
                                      const cr_router *r, const void *key, size_t len);

/* The same for a slot (0-16383) instead of a key. */
CR_API cr_status cr_router_candidates_slot(cr_candidate *out, size_t cap, size_t *needed,
                                           const cr_router *r, uint16_t slot);

/* Why each candidate of the key sits where it does, as text: a line naming
 * the slot, shard, policy and write node, then one line per candidate (what
 * `cloudroute route --explain` prints), as (buf, cap, needed) NUL-terminated
 * text. Allocates (it is a diagnostic). Errors: those of routing, and
 * CR_EBUFS (buf then holds "" when cap > 0). */
CR_API cr_status cr_router_explain(char *buf, size_t cap, size_t *needed, const cr_router *r,
                                   const void *key, size_t len);

/* Feedback (below): Thread-safety: safe from any number of threads,
 * concurrently with routing (which stays lock-free); a change that alters
 * routing builds and swaps in a new snapshot. */

/* A MOVED reply: slot now lives at host:port. Patches that slot at once (to
 * the shard whose master is host:port, or a new shard for an unknown node),
 * clears the slot's migrating mark and flags a refresh (see
 * cr_router_get_refresh_needed). Errors: CR_EINVAL (NULL, empty host, port
 * 0, slot > 16383), CR_ENOTOPOLOGY, CR_ELIMIT. */
CR_API cr_status cr_router_report_moved(cr_router *r, uint16_t slot, const char *host,
                                        uint16_t port);

/* An ASK reply: a one-shot redirect. out is the node to send ASKING + the
 * command to, once: its host, port and node_handle are set, shard is
 * CR_SHARD_NONE (the target need not be in the snapshot), role is
 * CR_ROLE_MASTER and tier CR_TIER_UNKNOWN. It also marks slot as migrating
 * (see cr_router_set_slot_migrating): later reads of it go to its master.
 * Errors: as cr_router_report_moved. */
CR_API cr_status cr_router_report_ask(cr_route *out, cr_router *r, uint16_t slot, const char *host,
                                      uint16_t port);

/* Slot migration feedback, for clients that do their own I/O. During a slot
 * migration (CLUSTER SETSLOT MIGRATING + MIGRATE) the source master answers
 * ASK for keys already moved, but its replicas know nothing of it and answer
 * nil: a silent wrong read. So while slot is marked migrating, reads of it
 * route to its master (which redirects correctly) instead of replicas, as
 * long as the master is not marked down.
 * migrating != 0 marks slot (evidence: an ASK for it — cr_router_report_ask
 * does this — or "[slot->-nodeid]" on the "myself" line of CLUSTER NODES asked
 * of its master; Redis prints it nowhere else). 0 clears it (evidence: the
 * master's CLUSTER NODES no longer lists it; a MOVED for the slot —
 * cr_router_report_moved — clears it too). A mark expires 60 s after it was
 * last set (cr_router_get_slot_migrating says 0 at once; routing follows at the
 * next rebuild, e.g. cr_router_update), so one never sticks. A mark appearing
 * or going rebuilds the snapshot once: the slot then reads its shard's
 * candidates master first, so routing itself pays nothing. Errors:
 * CR_EINVAL for a NULL router or a slot outside 0-16383. */
CR_API cr_status cr_router_set_slot_migrating(cr_router *r, uint16_t slot, int migrating);

/* 1 while reads of slot go to its master because it is marked migrating
 * (and not expired); 0 otherwise, also for a NULL router or a bad slot. */
CR_API int cr_router_get_slot_migrating(const cr_router *r, uint16_t slot);

/* Health feedback for a node handle from a cr_route/cr_candidate. After
 * failure_threshold consecutive failures the node is skipped for
 * down_cooldown_ms, then one probe is let through (half-open); a success
 * closes the breaker. Errors: CR_EINVAL (NULL), CR_ENOTFOUND (a handle this
 * router never gave, or whose node it reclaimed: find the node again). */
CR_API cr_status cr_router_report_failure(cr_router *r, uint32_t node_handle);
CR_API cr_status cr_router_report_success(cr_router *r, uint32_t node_handle);

/* A measured round-trip time for a node (used by CR_POLICY_NEAREST; the
 * candidate order is rebuilt). Errors: as cr_router_report_failure. */
CR_API cr_status cr_router_set_rtt(cr_router *r, uint32_t node_handle, uint32_t rtt_us);

/* A zone a node reported about itself (HELLO / INFO). The candidate order is
 * rebuilt. Errors: CR_EINVAL (NULL, empty host, port 0), CR_ELIMIT. */
CR_API cr_status cr_router_set_node_zone(cr_router *r, const char *host, uint16_t port,
                                         const char *zone);

/* Marks a replica as lagging behind its master past the bound the caller
 * enforces (lagging = 1) — it is then read only after every other
 * candidate — or clears the mark (0). The live client does this itself when
 * cr_client_options' replica lag bounds are set. Rebuilds only on a change.
 * Errors: CR_EINVAL (NULL, empty host, port 0, lagging not 0 or 1). */
CR_API cr_status cr_router_set_replica_lagging(cr_router *r, const char *host, uint16_t port,
                                               int lagging);

/* 1 when a MOVED asked for a topology refresh since the last
 * cr_router_update(); 0 otherwise (also for NULL). */
CR_API int cr_router_get_refresh_needed(const cr_router *r);

/* The handle of host:port. Errors: CR_EINVAL (NULL), CR_ENOTFOUND (never
 * seen by this router, or reclaimed since: see cr_router_update). */
CR_API cr_status cr_router_find_node(uint32_t *out_node_handle, const cr_router *r,
                                     const char *host, uint16_t port);

/* The current snapshot (a new reference; free with cr_snapshot_free). Routing
 * on a snapshot is exactly routing on the router at that moment, with no
 * synchronisation at all: take one per batch. Errors: CR_EINVAL (NULL),
 * CR_ENOTOPOLOGY (none installed yet). Thread-safety of a snapshot: immutable;
 * use and free it from any thread. */
CR_API cr_status cr_router_get_snapshot(cr_snapshot **out, const cr_router *r);
/* Drops the reference. NULL is a no-op. */
CR_API void cr_snapshot_free(cr_snapshot *s);
/* Increases by one with every snapshot the router installs; 0 for NULL. */
CR_API uint64_t cr_snapshot_get_generation(const cr_snapshot *s);
/* Routing on the snapshot, as cr_router_route_read / _write (its errors
 * but CR_ENOTOPOLOGY). */
CR_API cr_status cr_snapshot_route_read(cr_route *out, const cr_snapshot *s, const void *key,
                                        size_t len);
CR_API cr_status cr_snapshot_route_write(cr_route *out, const cr_snapshot *s, const void *key,
                                         size_t len);
/* The topology the snapshot was built from: a new reference (free with
 * cr_topology_free); NULL for NULL. */
CR_API cr_topology *cr_snapshot_get_topology(const cr_snapshot *s);

/* ======================================================================
 * Consistent hashing rings and shard groups
 *
 * Client-side sharding that places every key exactly where an existing
 * client does: Jedis's ShardedJedis ring, libmemcached / twemproxy ketama,
 * jump consistent hash, or hash % N. A ring knows shard names and weights
 * only — never addresses — so re-pointing a name to a new host:port moves
 * no key. Addresses live in a shard-group table: N groups, each a master
 * plus replicas as Redis Sentinel reports them (or a master only: the
 * address book of a plain sharded deployment), ring shard i being group i.
 * ==================================================================== */

typedef struct cr_ring cr_ring;

/* Which placement a ring reproduces. Values are pinned. */
typedef enum cr_ring_algo {
  CR_RING_ALGO_JEDIS = 0,  /* Jedis Sharded: 160 x weight points per shard, first point >= the
                         key's hash in Java's signed 64-bit order, wrapping; on a point
                         collision the later shard wins (TreeMap.put) */
  CR_RING_ALGO_KETAMA = 1, /* libmemcached KETAMA_WEIGHTED / twemproxy ketama: MD5, 4 points per
                         digest, 160 points per server scaled by weight (computed in float,
                         as they do); shard name = the server's twemproxy name, or
                         "host:port", or "host" when the port is 11211 */
  CR_RING_ALGO_JUMP = 2,   /* jump consistent hash (Lamping & Veach) of the key's hash, as an
                         unsigned 64-bit value; unweighted, shards add and leave at the end */
  CR_RING_ALGO_MODULO = 3  /* the key's hash as an unsigned 64-bit value, modulo the shard count
                         (Java: Long.remainderUnsigned). NOT consistent: changing the count
                         moves most keys; for deployments that already place keys this way */
} cr_ring_algo;

/* The hash of keys (and of Jedis ring points). Values are pinned. */
typedef enum cr_hash_algo {
  CR_HASH_ALGO_DEFAULT = 0, /* the algorithm's own: MURMUR, except MD5 for CR_RING_ALGO_KETAMA */
  CR_HASH_ALGO_MURMUR = 1,  /* Jedis Hashing.MURMUR_HASH: MurmurHash64A, seed 0x1234ABCD, over
                          the key's bytes, read as a signed 64-bit long */
  CR_HASH_ALGO_MD5 = 2      /* Jedis Hashing.MD5: MD5 digest bytes 0-3 as a little-endian
                          unsigned 32-bit value (0 .. 2^32-1) */
} cr_hash_algo;

/* How a named Jedis shard names its virtual nodes (n = 0 .. 160 x weight - 1).
 * Unnamed shards are always "SHARD-<index>-NODE-<n>". */
typedef enum cr_ring_naming {
  CR_RING_NAMING_JEDIS3 = 0, /* name + "*" + n            (Jedis 2.10 and later) */
  CR_RING_NAMING_JEDIS2 = 1  /* name + "*" + weight + n   (Jedis 2.9 and earlier: weight 1,
                                n 0 -> "name*10") */
} cr_ring_naming;

typedef struct cr_ring_options {
  uint32_t struct_size;
  cr_ring_algo algo; /* default CR_RING_ALGO_JEDIS */
  cr_hash_algo hash; /* default CR_HASH_ALGO_DEFAULT; CR_HASH_ALGO_MURMUR with KETAMA is refused */
  cr_ring_naming naming; /* CR_RING_ALGO_JEDIS only; default CR_RING_NAMING_JEDIS3 */
  int key_tags;          /* 1: hash only the key tag of Jedis's default pattern \{(.+?)\}
                            (first match, group 1). Unlike Redis Cluster's hash tag the tag may
                            begin with '}' ("foo{}{bar}" hashes "}{bar") and may not span a line
                            terminator. Jedis applies tags to String keys only. Default 0. */
} cr_ring_options;

#define CR_RING_OPTIONS_INIT                                                     \
  {                                                                              \
    (uint32_t)sizeof(cr_ring_options), CR_RING_ALGO_JEDIS, CR_HASH_ALGO_DEFAULT, \
        CR_RING_NAMING_JEDIS3, 0                                                 \
  }
/* Defaults into the caller's struct, as cr_parse_options_init. */
CR_API cr_status cr_ring_options_init(cr_ring_options *opts, size_t size);

/* A new, empty ring. opts may be NULL for defaults. Errors: CR_EINVAL (out
 * NULL; an unknown algorithm, hash or naming; key_tags not 0 or 1; a
 * struct_size below the first layout), CR_EVERSION.
 * Lifecycle: cr_ring_add_shard() for each shard, in the order the existing
 * client lists them (the order is part of the placement), then
 * cr_ring_build(), then cr_ring_locate().
 * Thread-safety: one thread until cr_ring_build() returns; a built ring is
 * immutable and cr_ring_locate*() may then run on any number of threads. */
CR_API cr_status cr_ring_new(cr_ring **out, const cr_ring_options *opts);
CR_API void cr_ring_free(cr_ring *ring);

/* Appends shard number cr_ring_get_shard_count(). name is NUL-terminated
 * UTF-8 (copied); name NULL adds an unnamed shard (CR_RING_ALGO_JEDIS, JUMP
 * and MODULO; a ketama shard needs its name). Errors (CR_EINVAL): ring NULL,
 * weight 0 or above 1000000, a weight other than 1 for JUMP and MODULO, an
 * empty name, a duplicate name, a ring already built; CR_ELIMIT past 65536
 * shards. */
CR_API cr_status cr_ring_add_shard(cr_ring *ring, const char *name, uint32_t weight);

/* Freezes the ring and computes its points. CR_EINVAL on an empty ring or a
 * ketama name too long for twemproxy's 85-byte point names; CR_ELIMIT past
 * 4194304 points (a Jedis ring has 160 x total weight). */
CR_API cr_status cr_ring_build(cr_ring *ring);

/* The 0-based index of the shard owning a key. Never allocates.
 * CR_EINVAL: a NULL argument, key NULL with len > 0, a ring not built. */
CR_API cr_status cr_ring_locate(uint32_t *out_shard, const cr_ring *ring, const void *key,
                                size_t len);

/* n keys at once: out_shards[i] = the shard of keys[i] (lens[i] bytes).
 * Errors: as cr_ring_locate, for any key (nothing is written then). */
CR_API cr_status cr_ring_locate_batch(uint32_t *out_shards, const cr_ring *ring,
                                      const void *const *keys, const size_t *lens, size_t n);

/* Shards added so far (0 for NULL). */
CR_API size_t cr_ring_get_shard_count(const cr_ring *ring);

/* Jedis's Hashing.<algo>.hash(key): CR_HASH_ALGO_MURMUR gives the signed long,
 * CR_HASH_ALGO_MD5 a value in 0 .. 2^32-1 (CR_HASH_ALGO_DEFAULT means MURMUR). The key
 * bytes are hashed as given (Jedis hashes a String's UTF-8 bytes).
 * Errors: CR_EINVAL (out NULL, key NULL with len > 0, an unknown algo).
 * Pure function. */
CR_API cr_status cr_jedis_hash(int64_t *out, cr_hash_algo algo, const void *key, size_t len);

/* Jump consistent hash: the bucket (0 .. num_buckets-1) of a 64-bit key, as
 * the paper's code and Guava's Hashing.consistentHash(long, int) compute it.
 * CR_EINVAL when num_buckets is 0 or above 2147483647. Pure function. */
CR_API cr_status cr_jump_hash(uint32_t *out_bucket, uint64_t key, uint32_t num_buckets);

/* A buffer this size always holds a family key and its NUL. */
#define CR_FAMILY_KEY_SIZE 21

/* The key to store for (family, key) in the family-key design that lets
 * several businesses share shard groups: the decimal text of the signed
 * Jedis MurmurHash (CR_HASH_ALGO_MURMUR) of family + ":" + key, e.g.
 * "-4379428740924957012". Route and store that text instead of the key.
 * NOTE: it hides the original key from Redis — SCAN, KEYS, MONITOR and
 * keyspace events show only numbers, and the key cannot be recovered.
 * family is a NUL-terminated name, non-empty and without ':' (so the pair
 * splits one way only): CR_EINVAL otherwise, and for key NULL with
 * key_len > 0. Output as (buf, cap, needed) NUL-terminated text (at most
 * CR_FAMILY_KEY_SIZE bytes); CR_EBUFS when cap < *needed. Pure function. */
CR_API cr_status cr_family_key(char *buf, size_t cap, size_t *needed, const char *family,
                               const void *key, size_t key_len);

/* ---- family-key variants: which Java hash wrote the stored keys ---- */

typedef enum cr_family_key_variant {
  /* Jedis Hashing.MURMUR_HASH.hash(String): MurmurHash64A, seed 0x1234ABCD
   * (what cr_family_key computes) */
  CR_FAMILY_KEY_VARIANT_JEDIS = 0,
  /* commons-codec MurmurHash2.hash64(String): MurmurHash64A, seed 0xe17a1465 */
  CR_FAMILY_KEY_VARIANT_COMMONS_CODEC = 1
} cr_family_key_variant;

/* cr_family_key with the hash of the given variant. Both Java classes hash
 * the String's UTF-8 bytes, so pass family and key as UTF-8 to match keys
 * stored from Java. Errors: as cr_family_key, and CR_EINVAL for an unknown
 * variant. Pure function. */
CR_API cr_status cr_family_key_as(char *buf, size_t cap, size_t *needed,
                                  cr_family_key_variant variant, const char *family,
                                  const void *key, size_t key_len);
/* Parse "jedis" or "commons-codec" (case-insensitive, '_' == '-').
 * Errors: CR_EINVAL (NULL, or no such variant). Pure function. */
CR_API cr_status cr_family_key_variant_from_name(cr_family_key_variant *out, const char *name);
/* "jedis", "commons-codec": static text, "?" for a value that is none. Pure function. */
CR_API const char *cr_family_key_variant_name(cr_family_key_variant variant);

typedef struct cr_shard_groups cr_shard_groups;

/* A shard-group table with a copy of cfg (NULL for defaults). Of cfg it uses
 * the locality (client location, CIDR rules, zones, node locations), the
 * per-instance read weights (cr_config_set_weight by "host:port") and the
 * breaker settings and seed of the router options; the read policy does not
 * apply (see cr_shard_groups_route_read).
 * Thread-safety: safe for concurrent use by any number of threads. Routing
 * takes no lock; every change publishes a complete new state atomically.
 * Errors (every cr_shard_groups_* call): CR_EINVAL for NULL arguments (a
 * key NULL with len > 0), besides what each call says. Ownership: free with
 * cr_shard_groups_free (REQUIRES: no other call on it running; NULL is a
 * no-op). */
CR_API cr_status cr_shard_groups_new(cr_shard_groups **out, const cr_config *cfg);
CR_API void cr_shard_groups_free(cr_shard_groups *groups);

/* An address: a host (NUL-terminated) and a port. */
typedef struct cr_address {
  const char *host;
  uint16_t port;
} cr_address;

/* Adds a group — typically the name Sentinel monitors it under — and gives
 * its index (0, 1, ...). CR_EINVAL on an empty or duplicate name. */
CR_API cr_status cr_shard_groups_add(uint32_t *out_group, cr_shard_groups *groups,
                                     const char *name);

/* The index of a group by name (for Sentinel's +switch-master <name> ...).
 * CR_ENOTFOUND when there is none. */
CR_API cr_status cr_shard_groups_find(uint32_t *out_group, const cr_shard_groups *groups,
                                      const char *name);
CR_API size_t cr_shard_groups_get_count(const cr_shard_groups *groups); /* 0 for NULL */

/* Key -> group: ring shard i is group i. The groups keep their own reference
 * to the built ring (the caller may free its cr_ring). CR_EINVAL when the
 * ring is not built or its shard count differs from the group count. A group
 * added later receives keys only once a ring including it is set. */
CR_API cr_status cr_shard_groups_set_ring(cr_shard_groups *groups, const cr_ring *ring);

/* The group's current master, as SENTINEL get-master-addr-by-name or
 * +switch-master reports it; host NULL forgets it (writes then fail with
 * CR_EUNAVAILABLE). CR_ENOTFOUND for an unknown group. */
CR_API cr_status cr_shard_groups_set_master(cr_shard_groups *groups, uint32_t group,
                                            const char *host, uint16_t port);

/* Replaces the group's replicas (SENTINEL replicas <name>, after filtering
 * out those Sentinel flags as down) with n addresses (copied). An entry
 * equal to the master or repeated is ignored. Errors: CR_EINVAL (a NULL or
 * empty host, port 0), CR_ENOTFOUND (unknown group). */
CR_API cr_status cr_shard_groups_set_replicas(cr_shard_groups *groups, uint32_t group,
                                              const cr_address *replicas, size_t n);

/* The group of a key. CR_ENOTOPOLOGY until a ring is set. */
CR_API cr_status cr_shard_groups_locate(uint32_t *out_group, const cr_shard_groups *groups,
                                        const void *key, size_t len);

/* Route a write: the key's group's master, whatever its health.
 * out->shard is the group, out->slot is 0; out->host is owned by the table
 * and stays valid until cr_shard_groups_free() (for a live client's table:
 * see cr_sentinel_client_get_groups). CR_EUNAVAILABLE when no
 * master is known; CR_ENOTOPOLOGY until a ring is set. Never allocates. */
CR_API cr_status cr_shard_groups_route_write(cr_route *out, const cr_shard_groups *groups,
                                             const void *key, size_t len);

/* Route a read: an instance (master or replica) of the key's group. The
 * instances are ranked by locality tier, nearest first (one rank when no
 * locality is configured); inside a rank one is picked at random by weight
 * (uniform when no weights are set), and when its breaker is open the rank's
 * others are polled round-robin from there. CR_EUNAVAILABLE when every
 * instance is down or the group has none. Never allocates. */
CR_API cr_status cr_shard_groups_route_read(cr_route *out, const cr_shard_groups *groups,
                                            const void *key, size_t len);

/* The key's group's candidates in the order to try them, for the "on
 * failure or timeout try the next until one answers or all failed" loop:
 * one draw of the weighted pick, then the rest of its rank round-robin,
 * then the next ranks likewise; the instances whose breaker is open come
 * last, with down = 1. Each call draws a new weighted start. Output as
 * (out, cap, needed), stride out[0].struct_size; rtt_us is 0. Report each
 * attempt with cr_shard_groups_report_*. Errors: CR_ENOTOPOLOGY (no ring),
 * CR_EBUFS. */
CR_API cr_status cr_shard_groups_candidates(cr_candidate *out, size_t cap, size_t *needed,
                                            const cr_shard_groups *groups, const void *key,
                                            size_t len);

/* Health feedback for an instance handle (cr_route.node_handle,
 * cr_candidate.node_handle), with the breaker of cr_router_report_failure /
 * _success. CR_ENOTFOUND for an unknown handle (or, in a live client's
 * table, one whose instance left it and was reclaimed). */
CR_API cr_status cr_shard_groups_report_failure(cr_shard_groups *groups, uint32_t node_handle);
CR_API cr_status cr_shard_groups_report_success(cr_shard_groups *groups, uint32_t node_handle);

/* ======================================================================
 * Live cluster client (hiredis): discovery, refresh, pooled connections
 *
 * A cr_client reads the topology of a live Redis Cluster from seed nodes,
 * routes every command through its own cr_router — reads to the key's read
 * candidates in order (local ones first), writes to the master — and keeps
 * the topology fresh in a background thread it owns (periodically, on MOVED,
 * after repeated connection failures; rate-limited). Reads keep routing on
 * the old snapshot until the new one is swapped in.
 *
 * Failures: a read that meets a connection error or a timeout marks the
 * node and moves on to the next candidate — a timeout opens the node's
 * breaker at once, a connection error after failure_threshold in a row — so
 * a stalled node costs one tier timeout (a new connection's handshake is
 * bounded by it too); a write is never re-sent once it may have reached the
 * server.
 * MOVED is followed (the slot is patched and a refresh triggered), ASK is
 * followed once, TRYAGAIN / CLUSTERDOWN / LOADING are retried with backoff.
 * Errors: CR_ECONN, CR_ETIMEOUT, CR_EREDIS (an error reply: its text, e.g.
 * "WRONGTYPE Operation against a key holding the wrong kind of value", is
 * cr_last_error()), CR_EUNAVAILABLE (every candidate is marked down),
 * CR_ESLOT_UNCOVERED, CR_ELIMIT (a reply beyond the caps below).
 *
 * Thread-safety: a cr_client is safe for concurrent use by any number of
 * threads, except cr_client_free. A cr_reply is immutable: read it from any
 * thread; free it once.
 * ==================================================================== */

typedef struct cr_client cr_client;
typedef struct cr_reply cr_reply;

#define CR_TIER_COUNT 5 /* entries of per-tier arrays, indexed by cr_tier */

/* ---- hedged reads ---- */
typedef enum cr_hedge_mode {
  CR_HEDGE_MODE_OFF = 0,     /* never hedge */
  CR_HEDGE_MODE_FIXED = 1,   /* hedge after hedge_delay_ms */
  CR_HEDGE_MODE_ADAPTIVE = 2 /* hedge after the node's recent hedge_percentile latency
                                (at least hedge_min_delay_ms) */
} cr_hedge_mode;
/* Deprecated: the names before the values took their type's prefix, kept so
 * that code written against 0.x compiles; to be removed with the next major
 * version. */
#define CR_HEDGE_OFF CR_HEDGE_MODE_OFF
#define CR_HEDGE_FIXED CR_HEDGE_MODE_FIXED
#define CR_HEDGE_ADAPTIVE CR_HEDGE_MODE_ADAPTIVE

typedef struct cr_client_options {
  uint32_t struct_size;
  uint32_t connect_timeout_ms;                /* default 1000 */
  uint32_t command_timeout_ms[CR_TIER_COUNT]; /* by the node's cr_tier; default
                                                 500, 1000, 1000, 2000, 2000 */
  uint32_t pool_size;                         /* connections per node at most; default 8 */
  uint32_t pool_idle_ms;                      /* idle connections closed after; default 60000 */
  uint32_t refresh_interval_ms;               /* periodic refresh; default 30000; 0 = none */
  uint32_t refresh_min_gap_ms;      /* at most one triggered refresh per gap; default 1000 */
  uint32_t max_redirects;           /* MOVED/ASK followed per command; default 5 */
  uint32_t max_retries;             /* TRYAGAIN/CLUSTERDOWN/LOADING; default 3 */
  uint32_t retry_backoff_ms;        /* first backoff (doubles up to 1 s, jittered); default 50 */
  uint32_t failures_before_refresh; /* consecutive connection failures; default 3 */
  uint32_t tcp_keepalive_s;         /* TCP keepalive idle time; default 15; 0 = off */
  uint32_t tcp_user_timeout_ms;     /* TCP_USER_TIMEOUT; default 10000; 0 = kernel default */
  uint32_t max_reply_elements;      /* per aggregate; default 16777216 */
  uint64_t max_bulk_len;            /* per string; default 67108864 (64 MiB) */
  uint64_t max_reply_bytes;         /* per reply, as it really costs while it is read:
                                       ~100 bytes a node plus its string heap, plus the
                                       read buffer (a string costs about twice its length
                                       while it arrives); default 268435456 (256 MiB).
                                       All the replies a client is reading at once, on
                                       every connection, share a budget of twice this
                                       (default 512 MiB); past either: CR_ELIMIT naming
                                       the cap and the node, the connection closed. A
                                       binding's conversion of a reply (Python, Java
                                       objects) may take as much again */
  const char *username;             /* AUTH username (ACL); NULL = the default user */
  const char *password;             /* AUTH password; NULL = no AUTH. Copied; never logged,
                                       printed or put in an error message */
  const char *client_name;          /* CLIENT SETNAME; NULL = none */
  /* --- TLS (OpenSSL). A caller built against a header without these
   * fields passes a smaller struct_size: TLS stays off. */
  int tls;                     /* 1 = every connection uses TLS; default 0. Nodes are
                                  dialed on the tls-port CLUSTER SHARDS reports (over
                                  TLS, CLUSTER SLOTS and MOVED already give TLS ports);
                                  the seeds must be TLS ports */
  int tls_verify;              /* default 1: the chain must lead to a trusted CA AND the
                                  certificate must name the host dialed (an IP against
                                  its IP SANs, a name against its DNS SANs). 0 turns
                                  every check off — for tests only */
  const char *tls_ca_file;     /* PEM bundle of trusted CAs; NULL with tls_ca_dir
                                  NULL = the system store */
  const char *tls_ca_dir;      /* OpenSSL hashed directory of CAs; may be NULL */
  const char *tls_cert_file;   /* client certificate chain (PEM), for servers
                                  with tls-auth-clients; NULL = none */
  const char *tls_key_file;    /* its unencrypted PEM private key; with cert */
  const char *tls_server_name; /* verify (and send as SNI) this name instead of
                                  each node's host; NULL = the host */
  /* --- Replica lag (off by default). On each refresh the client reads INFO
   * replication from every master and reads a replica only after every other
   * candidate while it is behind by more than either bound (or not in sync):
   * stale reads are bounded, not just accepted. An older caller's smaller
   * struct_size leaves both off. */
  uint64_t replica_max_lag_bytes; /* master_repl_offset - replica offset; 0 = no bound */
  uint32_t replica_max_lag_s;     /* seconds since the replica's last ack; 0 = no bound */
  /* ---- hedged reads (off by default). A single-key read whose node has not
   * answered within the hedge delay is sent to the next read candidate too
   * (never the same node; only when it is up) and the first answer wins; the
   * other connection is closed, its reply unread. MGET and pipelines hedge
   * the same way per node's share (a leg): a leg of reads only that has not
   * fully answered within its node's delay sends its open reads to their
   * next candidates, one hedge per leg; a leg carrying a write, a read after
   * a write of its slot, a script or a blocking command is not hedged.
   * Writes, blocking commands, commands with a call-level timeout and
   * scripts are never hedged. A node that loses 3 hedges in a row is set
   * aside like one that timed out. cr_client_stats counts hedges. An older
   * caller's smaller struct_size leaves hedging off. */
  cr_hedge_mode hedge_mode;      /* default CR_HEDGE_MODE_OFF */
  uint32_t hedge_delay_ms;       /* FIXED: the delay; ADAPTIVE: the delay until the node has
                                    64 recent samples. 1-60000; default 20 */
  uint32_t hedge_min_delay_ms;   /* ADAPTIVE: the delay is never shorter; default 2 */
  uint32_t hedge_budget_percent; /* hedges at most this % of hedgeable reads (of a fan-out:
                                    legs), plus a burst of 10; 1-100; default 10 */
  double hedge_percentile;       /* ADAPTIVE: the percentile of the node's recent round
                                    trips used as its delay; (0, 100]; default 99.0 */
  /* ---- read your writes across calls (off by default). Within one batch
   * (a cr_pipeline, MGET/MSET/DEL) a read of a slot an earlier command of
   * the batch writes always goes to the slot's master. With this set, after
   * this client writes to a slot (any write: a command, a pipeline's write,
   * MSET, DEL, a script, a pinned transaction), its reads of that slot go to
   * the master for this many ms from the write's end, then to replicas
   * again. A read so placed fails rather than read a replica when the
   * master fails. Cost: those reads take the master's path (a cross-cloud
   * hop when the master is remote) and load it; 128 KiB per client; a clock
   * read per read. A time bound, not replication offsets: see
   * docs/architecture.md. An older caller's smaller struct_size leaves it
   * off. */
  uint32_t read_your_writes_ms; /* 0 = off; default 0 */
  /* ---- the database (default 0). Every new connection — to a node, and
   * to a seed asked for the topology — sends SELECT db in its handshake
   * (the same round trip as AUTH and CLIENT SETNAME, within its timeout),
   * so reconnects, failovers and slot migrations keep it; SELECT from callers
   * stays refused (CR_EINVAL). A cluster serves databases other than 0 only
   * when it allows them (Valkey 9's cluster-databases); otherwise
   * cr_client_new fails with CR_EREDIS naming the server's reply to SELECT.
   * An older caller's smaller struct_size keeps database 0. */
  uint32_t db; /* 0-2147483647; default 0 (no SELECT sent) */
  /* ---- shared connections (2 by default). With n > 0, every command
   * that does not block (and every leg of a pipeline, MGET, MSET and DEL)
   * goes on at most n connections per node that all calling threads share:
   * requests are written back to back on them (by the calling thread when
   * the connection can take it, else by the client's engine thread, which
   * reads every reply) and each reply is matched to its request in order,
   * every request closed by a marker (PING <tag>) whose echo proves that no
   * reply was added or lost before it. Blocking commands, pinned
   * transactions and hedged reads (hedging on: fan-outs too) keep pooled
   * connections (pool_size). A node that does not answer in time fails
   * every request on its connection (a read moves to its next candidate, a
   * write that was sent says it may have run); a call's own timeout fails
   * only that call. 0: every command takes a pooled connection of its own
   * (up to pool_size per node). An older caller's smaller struct_size gets
   * the default, 2, too. */
  uint32_t shared_connections; /* 0 = off; 1-16; default 2 */
} cr_client_options;

#define CR_CLIENT_OPTIONS_INIT                                                                     \
  {                                                                                                \
    (uint32_t)sizeof(cr_client_options), 1000u, {500u, 1000u, 1000u, 2000u, 2000u}, 8u, 60000u,    \
        30000u, 1000u, 5u, 3u, 50u, 3u, 15u, 10000u, 16777216u, 67108864u, 268435456u, NULL, NULL, \
        NULL, 0, 1, NULL, NULL, NULL, NULL, NULL, 0u, 0u, CR_HEDGE_MODE_OFF, 20u, 2u, 10u, 99.0,   \
        0u, 0u, 2u                                                                                 \
  }
/* Defaults into the caller's struct, as cr_parse_options_init. The first
 * public layout of cr_client_options ends at client_name (before tls). */
CR_API cr_status cr_client_options_init(cr_client_options *opts, size_t size);

/* A client for the cluster reachable through seeds ("host:port[,host:port…]",
 * IPv6 hosts in brackets). cfg (locality, policy, weights, health; may be
 * NULL) is copied into the client's router; opts may be NULL for defaults.
 * Returns once the topology has been read from a seed (each is tried in
 * turn: CLUSTER SHARDS, else CLUSTER SLOTS) and installed.
 * Errors: CR_EINVAL (bad seeds or options; with TLS, a CA, certificate or
 * key file that does not load, named with OpenSSL's reason), CR_ECONN /
 * CR_ETIMEOUT / CR_EREDIS (no seed answered; the message names each seed and
 * why — "TLS certificate verification failed: <reason> (expected <host>)"
 * for a refused certificate), CR_EPARSE (a seed's reply was malformed, or
 * the seeds kept contradicting themselves: see below).
 * CR_EVERSION (opts from a newer header).
 * A topology that contradicts itself (two masters for a shard: what nodes
 * say for a moment during a failover) is never installed; while the seeds
 * answer only so, they are asked again with a short backoff (25 ms growing
 * to 250 ms) for up to connect_timeout_ms plus the unknown tier's
 * command_timeout_ms (3 s by default), and the client starts on the first
 * consistent answer; the error, if none comes, says how often and how long
 * every seed was asked. A hard failure at any seed (AUTH refused, cluster
 * support disabled) ends the start at once.
 * On any error no client is made (*out is NULL) and nothing keeps trying in
 * the background: when no seed answers yet (every seed down at start), call
 * cr_client_new again, for example with backoff, until one does. A seed that
 * accepts connections but never answers costs one connect or command
 * timeout. Once made, a client keeps itself current: its refreshes ask the
 * nodes of its topology and then the seeds again.
 * Ownership: free with cr_client_free. */
CR_API cr_status cr_client_new(cr_client **out, const cr_config *cfg, const cr_client_options *opts,
                               const char *seeds);
/* Stops the refresh thread and closes every connection. NULL is a no-op.
 * From c's log callback (cr_config_set_log_callback) it returns at once and
 * c is freed on a thread of the library's once the callback has returned
 * (the callback may run on c's refresher thread, which freeing joins).
 * REQUIRES: no other call on c is running or will run — a callback on a
 * caller's thread runs inside that caller's call: free c there only once
 * the call has returned (the bindings hold such frees until then). */
CR_API void cr_client_free(cr_client *c);

/* Whether a command only reads (may be served by a replica, and is tried on
 * the next candidate after a failure) or writes (the master only, never
 * re-sent once it may have arrived).
 * CR_ACCESS_AUTO: the server decides, by its own command table (COMMAND,
 * learned on the client's first such call over a connection of its own to a
 * master, once per client and shared by the clients of the process that talk
 * to the same server version): a read when the server flags the command (or
 * its subcommand: OBJECT ENCODING) readonly, a write otherwise, and a write
 * for a command the server does not list. key_index 0 lets the server's key
 * specs find the keys (EVAL_RO / FCALL_RO numkeys, OBJECT ENCODING key,
 * XREAD ... STREAMS, MIGRATE ... KEYS); a command whose keys are in several
 * slots is refused before anything is sent (CR_EINVAL, "CROSSSLOT"), one that
 * names no key is CR_EINVAL (send it with cr_client_command_nodes); key_index
 * > 0 routes by argv[key_index] instead. An unknown command is routed by its
 * first argument after the name. When the server refuses COMMAND (ACL) or
 * answers it with anything but a command table, the client routes by a
 * static table of read-only commands instead, and says so in a warn log
 * event ("command table refused: routing by the static table"). For the
 * cluster client and its pipelines only: the Sentinel client refuses it
 * (CR_EINVAL). */
typedef enum cr_access { CR_ACCESS_READ = 0, CR_ACCESS_WRITE = 1, CR_ACCESS_AUTO = 2 } cr_access;

/* Any command on one key: argc arguments argv[i] of argvlen[i] bytes
 * (binary-safe, copied), routed by the key argv[key_index] (1 for most
 * commands: GET key, HSET key f v, EXPIRE key s …).
 * out: receives the reply on CR_OK (free with cr_reply_free); NULL on any
 * error, including an error reply (CR_EREDIS, its text in cr_last_error()).
 * Errors: CR_EINVAL (NULL pointers, argc 0, key_index >= argc; a command that
 * would change a pooled connection's state — SUBSCRIBE and the rest of its
 * family, MONITOR, CLIENT REPLY, SELECT, HELLO, AUTH, RESET, QUIT, MULTI /
 * EXEC / WATCH outside cr_client_pin … — refused before anything is sent),
 * CR_EPARSE (the node's replies stopped matching the requests: an extra
 * reply, or a reply of a shape the command cannot produce, such as an
 * integer for GET; the connection was closed; docs/errors.md), and those of
 * the section above. The same rules hold for every command of the live
 * clients: pipelines, node commands, the typed calls, the Sentinel client. */
CR_API cr_status cr_client_command(cr_reply **out, cr_client *c, cr_access access, size_t key_index,
                                   size_t argc, const void *const *argv, const size_t *argvlen);

/* GET: out receives a CR_REPLY_TYPE_STRING, or CR_REPLY_TYPE_NIL when the key does not
 * exist. */
CR_API cr_status cr_client_cmd_get(cr_reply **out, cr_client *c, const void *key, size_t len);
/* SET, with a time to live when ttl_ms > 0 (SET … PX ttl_ms). */
CR_API cr_status cr_client_cmd_set(cr_client *c, const void *key, size_t key_len, const void *value,
                                   size_t value_len, uint64_t ttl_ms);
/* MGET of n >= 1 keys in any slots: split by slot, one MGET per slot, every
 * node's share pipelined and all nodes asked at once. out receives an
 * CR_REPLY_TYPE_ARRAY of n elements in key order (STRING or NIL). */
CR_API cr_status cr_client_cmd_mget(cr_reply **out, cr_client *c, const void *const *keys,
                                    const size_t *lens, size_t n);
/* MSET of n >= 1 pairs, split by slot like cr_client_cmd_mget. Not atomic across
 * slots: on an error some slots may have been written. */
CR_API cr_status cr_client_cmd_mset(cr_client *c, const void *const *keys, const size_t *key_lens,
                                    const void *const *values, const size_t *value_lens, size_t n);
/* DEL of n >= 1 keys, split by slot; out_deleted (may be NULL) receives how
 * many existed. */
CR_API cr_status cr_client_cmd_del(int64_t *out_deleted, cr_client *c, const void *const *keys,
                                   const size_t *lens, size_t n);

/* Re-read the topology now, on the calling thread (the background thread
 * does the same on its own schedule). Errors as for cr_client_new, and
 * CR_EINVAL when called from c's log callback while a refresh of c runs
 * (a callback never waits for one: on its own thread — "refresh started",
 * "refresh done" ... — it would wait for itself, on another for a refresh
 * that may wait for the callback; the refresh under way is the one asked
 * for). */
CR_API cr_status cr_client_refresh(cr_client *c);

/* The client's router, for inspection (cr_router_candidates,
 * cr_router_explain, cr_router_get_snapshot …) and feedback
 * (cr_router_set_node_zone …); NULL for NULL. Borrowed: valid until
 * cr_client_free(c); never free it. */
CR_API cr_router *cr_client_get_router(cr_client *c);

typedef struct cr_client_stats {
  uint32_t struct_size;
  uint64_t reads;                        /* read commands a node answered */
  uint64_t reads_by_tier[CR_TIER_COUNT]; /* … by the serving node's cr_tier */
  uint64_t writes;                       /* write commands a master answered */
  uint64_t fallbacks;                    /* reads served by a later candidate after one failed */
  uint64_t moved;                        /* MOVED redirects followed */
  uint64_t ask;                          /* ASK redirects followed */
  uint64_t retries;                      /* TRYAGAIN / CLUSTERDOWN / LOADING retries */
  uint64_t conn_errors;                  /* failed connects and broken connections */
  uint64_t timeouts;                     /* connect and command deadlines that passed */
  uint64_t server_errors;                /* error replies returned to the caller */
  uint64_t refreshes;                    /* topology refreshes that succeeded */
  uint64_t refresh_failures;
  uint64_t connections; /* connections opened */
  /* ---- hedged reads (cr_client_options.hedge_mode) */
  uint64_t hedges;        /* reads (fan-out legs) also sent to the next candidate */
  uint64_t hedges_won;    /* ... that the next candidate answered first (for a leg:
                             for at least one of its reads) */
  uint64_t hedges_denied; /* reads (legs) past their hedge delay the budget did not hedge */
  /* ---- connection integrity */
  uint64_t poisoned; /* connections closed because what a server sent stopped matching what
                        was asked: an unsolicited reply, a reply of a shape its command cannot
                        produce (docs/errors.md) */
} cr_client_stats;

#define CR_CLIENT_STATS_INIT                                                                     \
  {                                                                                              \
    (uint32_t)sizeof(cr_client_stats), 0u, {0u, 0u, 0u, 0u, 0u}, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, \
        0u, 0u, 0u, 0u, 0u, 0u, 0u                                                               \
  }

/* Counters since the client was created (an output struct:
 * CR_CLIENT_STATS_INIT). Errors: CR_EINVAL (NULL, struct_size below the
 * first layout). */
CR_API cr_status cr_client_get_stats(cr_client_stats *out, const cr_client *c);

typedef struct cr_client_node_stats {
  uint32_t struct_size;
  uint32_t node_handle; /* stable node handle (as in cr_route.node_handle) */
  const char *host;     /* as cr_route.host: valid while the node is in the client's
                           current or previous topology (copy it to keep it) */
  uint16_t port;
  uint64_t reads; /* read commands this node answered */
  uint64_t writes;
  uint64_t errors;           /* connection errors and timeouts */
  uint64_t connections;      /* connections opened */
  uint32_t latency_us;       /* moving average of round trips; 0 = none yet */
  uint32_t open_connections; /* pooled and shared connections open to the node */
  uint32_t idle_connections; /* pooled connections waiting to be reused */
} cr_client_node_stats;

#define CR_CLIENT_NODE_STATS_INIT \
  { (uint32_t)sizeof(cr_client_node_stats), 0u, NULL, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u }

/* Per-node statistics of every node the client has talked to, by handle,
 * as (out, cap, needed) with stride out[0].struct_size. The measured
 * latencies also feed CR_POLICY_NEAREST (cr_router_set_rtt), about once a
 * second. Errors: CR_EINVAL, CR_EBUFS. */
CR_API cr_status cr_client_get_node_stats(cr_client_node_stats *out, size_t cap, size_t *needed,
                                          const cr_client *c);

/* ---- operator view: log events and Prometheus metrics of the client ---- */

typedef enum cr_log_level {
  CR_LOG_LEVEL_DEBUG = 0, /* every refresh, failed probes of a node already down */
  CR_LOG_LEVEL_INFO = 1,  /* node marked up, MOVED/ASK redirects */
  CR_LOG_LEVEL_WARN = 2,  /* node marked down, failover seen, refresh failed, read fallback */
  CR_LOG_LEVEL_ERROR = 3
} cr_log_level;

/* One structured field of a log event, e.g. {"node", "10.0.0.5:6379"},
 * {"slot", "1234"}, {"tier", "other-cloud"}, {"error", "..."}: NUL-terminated UTF-8. */
typedef struct cr_log_field {
  const char *key;
  const char *value;
} cr_log_field;

/* Receives one event: its level, message ("node marked down", "failover
 * seen", "refresh failed", "MOVED redirect", "read fell back to a later
 * candidate", ...) and fields. Called on the thread where the event
 * happened — a caller's, or one of the client's own (the refresher, the
 * recovery prober, a dial) — possibly from several threads at once; it must
 * not block for long. It may call the client: cr_client_refresh while a
 * refresh runs fails with CR_EINVAL instead of waiting for it,
 * and cr_client_free is deferred until the callback returns (see each).
 * Every pointer is valid during the call only. Events that can
 * happen per request are rate-limited (one a second per kind and node, with
 * a "suppressed" count). No event ever carries a password. */
typedef void (*cr_log_callback)(cr_log_level level, const char *message, const cr_log_field *fields,
                                size_t field_count, void *payload);

/* Clients made from cfg call callback(…, payload) for each event at or above
 * min_level; callback NULL (the default) keeps them silent. Ownership: the
 * payload is borrowed and must outlive every client made from cfg.
 * Errors: CR_EINVAL (cfg NULL, an unknown level). Thread-safety: as every
 * cr_config_* call. */
CR_API cr_status cr_config_set_log_callback(cr_config *cfg, cr_log_level min_level,
                                            cr_log_callback callback, void *payload);
/* "debug", "info", "warn", "error": static text, "?" for a value that is none. Pure function. */
CR_API const char *cr_log_level_name(cr_log_level level);

/* The client's statistics as Prometheus text exposition (version 0.0.4),
 * NUL-terminated, as (buf, cap, needed): cloudroute_reads_total by tier
 * (the share of reads that crossed clouds is
 * cloudroute_reads_total{tier="other-cloud"} over their sum), writes, read
 * fallbacks, redirects by kind, retries, timeouts, connection and server
 * errors, refreshes by result, connections, and per node (label node=
 * "host:port") reads, writes, errors, cloudroute_node_up and the
 * cloudroute_node_latency_seconds histogram of round trips.
 * Errors: CR_EINVAL (NULL), CR_EBUFS (cap < *needed). Thread-safety: safe
 * concurrently with other calls on c. */
CR_API cr_status cr_client_get_metrics_text(char *buf, size_t cap, size_t *needed,
                                            const cr_client *c);

/* The type of a reply. Values are pinned. */
typedef enum cr_reply_type {
  CR_REPLY_TYPE_STRING = 0, /* bulk string (binary-safe) */
  CR_REPLY_TYPE_STATUS = 1, /* simple string: "OK" */
  CR_REPLY_TYPE_INTEGER = 2,
  CR_REPLY_TYPE_NIL = 3,
  CR_REPLY_TYPE_ARRAY = 4,  /* also RESP3 sets and pushes */
  CR_REPLY_TYPE_ERROR = 5,  /* in an array (EXEC), a pipeline result; else CR_EREDIS */
  CR_REPLY_TYPE_MAP = 6,    /* RESP3 map: elements are key, value, key, value, … */
  CR_REPLY_TYPE_DOUBLE = 7, /* RESP3 double, as text */
  CR_REPLY_TYPE_BOOL = 8,   /* RESP3 boolean: cr_reply_get_integer gives 0 or 1 */
  CR_REPLY_TYPE_BIGNUM = 9  /* RESP3 big number, as text */
} cr_reply_type;

/* Reply accessors never fail: on NULL or a reply of another type they give
 * CR_REPLY_TYPE_NIL, NULL (with *len 0), 0, 0 and NULL. Thread-safety: a
 * reply is immutable; read it from any thread. */
CR_API cr_reply_type cr_reply_get_type(const cr_reply *r);
/* The bytes of a STRING, STATUS, ERROR, DOUBLE or BIGNUM reply, followed by
 * a NUL (not counted in *len; len may be NULL). Points into r. */
CR_API const char *cr_reply_get_string(const cr_reply *r, size_t *len);
/* An INTEGER (or BOOL) reply's value. */
CR_API int64_t cr_reply_get_integer(const cr_reply *r);
/* Elements of an ARRAY or MAP reply (a map counts keys and values). */
CR_API size_t cr_reply_get_count(const cr_reply *r);
/* Element i of an ARRAY or MAP; NULL when i is out of range. Borrowed:
 * valid while the top-level reply is. */
CR_API const cr_reply *cr_reply_get_element(const cr_reply *r, size_t i);
/* Frees a top-level reply and its elements. NULL is a no-op. */
CR_API void cr_reply_free(cr_reply *r);

/* ---- Live client: per-call options, node-targeted commands, SCAN, scripts, transactions ---- */

/* Options of one call (an input versioned struct: CR_CALL_OPTIONS_INIT or
 * cr_call_options_init). NULL wherever a call takes one means the defaults.
 *
 * timeout_ms replaces the node's tier timeout (cr_client_options
 * .command_timeout_ms) for this call: for a blocking or slow command
 * (BLPOP, BRPOP, XREAD … BLOCK, WAIT, a SCAN with a large COUNT). When the
 * deadline of such a call passes the call fails with CR_ETIMEOUT, but the
 * node is not marked (its breaker does not see it) and no other candidate
 * is tried: the node was waiting as asked. Without a call timeout, a
 * blocking command (BLPOP, BRPOP, BLMOVE, BLMPOP, BRPOPLPUSH, BZPOPMIN,
 * BZPOPMAX, BZMPOP, XREAD / XREADGROUP with BLOCK, WAIT, WAITAOF) gets its
 * own wait on top of the tier timeout, and its timing out is not a node
 * failure either; one that waits forever (timeout 0) needs a call timeout
 * to wait longer than the tier timeout. */
typedef struct cr_call_options {
  uint32_t struct_size;
  uint32_t timeout_ms; /* 0 = the node's tier timeout (default) */
} cr_call_options;

#define CR_CALL_OPTIONS_INIT \
  { (uint32_t)sizeof(cr_call_options), 0u }
/* Defaults into the caller's struct, as cr_parse_options_init. */
CR_API cr_status cr_call_options_init(cr_call_options *opts, size_t size);

/* An interrupt check for the calling thread (a binding's way back to its
 * interpreter for a signal: Python's KeyboardInterrupt): while a call of a
 * live client (cluster or Sentinel) made on this thread waits for a socket,
 * it waits in slices of about 50 ms and calls check(payload) between them.
 * A nonzero answer ends the wait: the connection is closed (never reused,
 * so no later call can read the abandoned reply) and the call fails with
 * CR_ECONN ("interrupted by the caller ..."); the node is not counted as
 * failed and no other candidate is tried. A command already sent may have
 * run on the server: a write may be applied, and an element a blocking pop
 * (BLPOP ...) took while the reply was on its way is lost with it.
 * cr_client_new's wait before asking disagreeing seeds again ends the same
 * way. Dialing a new connection, a retry's back-off, a hedged read's (or
 * fan-out's) socket wait and
 * the worker threads of multi-key commands are not interrupted (their
 * timeouts bound them). check NULL
 * removes the thread's check. Errors: none (always CR_OK).
 * Thread-safety: per thread; check runs on this thread only, inside the
 * call, and may call nothing of this library. */
typedef int (*cr_interrupt_check)(void *payload);
CR_API cr_status cr_thread_set_interrupt_check(cr_interrupt_check check, void *payload);

/* cr_client_command with call options (opts may be NULL). Errors: as
 * cr_client_command, and CR_EVERSION (opts from a newer header). */
CR_API cr_status cr_client_command_opts(cr_reply **out, cr_client *c, const cr_call_options *opts,
                                        cr_access access, size_t key_index, size_t argc,
                                        const void *const *argv, const size_t *argvlen);

/* Which nodes a node-targeted command goes to. Values are pinned. */
typedef enum cr_target {
  CR_TARGET_NODE = 0,     /* the one node named "host:port" (of the current topology) */
  CR_TARGET_MASTERS = 1,  /* every master (each shard's) */
  CR_TARGET_ALL_NODES = 2 /* every master and replica */
} cr_target;

/* The per-node answers of cr_client_command_nodes. Immutable; free once. */
typedef struct cr_node_replies cr_node_replies;

/* A keyless or node-targeted command (PING, INFO, DBSIZE, FLUSHALL, SCRIPT
 * LOAD, CONFIG GET …) sent to the target nodes at once; node: "host:port"
 * for CR_TARGET_NODE (as the topology announces it), NULL otherwise. Nothing
 * is redirected, retried or skipped: a node marked down is still asked.
 * out receives every target's answer (masters in slot order, each followed
 * by its replicas for CR_TARGET_ALL_NODES): the call succeeds when the
 * targets were found, whatever each answered; check each entry (or
 * cr_node_replies_get_failed). Errors: CR_EINVAL (NULL pointers, argc 0, a
 * bad target, node NULL for CR_TARGET_NODE or set for the others),
 * CR_ENOTFOUND (no such node in the topology), CR_ENOTOPOLOGY, CR_EVERSION.
 * Ownership: free out with cr_node_replies_free. */
CR_API cr_status cr_client_command_nodes(cr_node_replies **out, cr_client *c,
                                         const cr_call_options *opts, cr_target target,
                                         const char *node, size_t argc, const void *const *argv,
                                         const size_t *argvlen);
/* How many nodes were asked; how many of them gave no reply or an error
 * reply. 0 for NULL. */
CR_API size_t cr_node_replies_get_count(const cr_node_replies *r);
CR_API size_t cr_node_replies_get_failed(const cr_node_replies *r);
/* Entry i's node, "host:port"; its role; NULL / CR_ROLE_MASTER when i is
 * out of range. Borrowed: valid while r is. */
CR_API const char *cr_node_replies_get_address(const cr_node_replies *r, size_t i);
CR_API cr_role cr_node_replies_get_role(const cr_node_replies *r, size_t i);
/* Entry i's outcome: CR_OK with a reply; CR_EREDIS for an error reply;
 * CR_ECONN / CR_ETIMEOUT when it did not answer (CR_EINVAL when i is out of
 * range). Its message ("" for CR_OK; it names the node) is
 * cr_node_replies_get_error. */
CR_API cr_status cr_node_replies_get_status(const cr_node_replies *r, size_t i);
CR_API const char *cr_node_replies_get_error(const cr_node_replies *r, size_t i);
/* Entry i's reply (an error reply is CR_REPLY_TYPE_ERROR); NULL when the
 * node did not answer. Borrowed: valid while r is; never free it. */
CR_API const cr_reply *cr_node_replies_get_reply(const cr_node_replies *r, size_t i);
/* NULL is a no-op. */
CR_API void cr_node_replies_free(cr_node_replies *r);

/* SCAN over the whole cluster (an input versioned struct:
 * CR_SCAN_OPTIONS_INIT or cr_scan_options_init). */
typedef struct cr_scan_options {
  uint32_t struct_size;
  const void *match; /* MATCH pattern (binary-safe); NULL = every key */
  size_t match_len;
  uint32_t count;      /* COUNT hint per round trip; 0 = the server's default */
  const char *type;    /* TYPE filter ("string", "hash" …); NULL = every type */
  uint32_t timeout_ms; /* per round trip; 0 = the node's tier timeout */
} cr_scan_options;

#define CR_SCAN_OPTIONS_INIT \
  { (uint32_t)sizeof(cr_scan_options), NULL, 0u, 0u, NULL, 0u }
/* Defaults into the caller's struct, as cr_parse_options_init. */
CR_API cr_status cr_scan_options_init(cr_scan_options *opts, size_t size);

/* A SCAN iterator over every shard of the topology current at the first
 * cr_scan_next: each shard once, in shard order, on the node a read of the
 * shard would use (the read policy's first candidate that is not marked
 * down: a local replica when the policy prefers one). A node that fails
 * before its shard's first reply is replaced by the shard's next candidate;
 * one that fails part-way ends the scan with its error (going on elsewhere
 * would repeat or miss keys). A key present for the whole scan is returned
 * once (unless the server's SCAN itself repeats it during a rehash).
 * Errors: CR_EINVAL (NULL, options), CR_EVERSION.
 * Ownership: free with cr_scan_free before cr_client_free(c).
 * Thread-safety: one thread at a time. */
typedef struct cr_scan cr_scan;
CR_API cr_status cr_scan_new(cr_scan **out, cr_client *c, const cr_scan_options *opts);
/* The next batch: out receives an ARRAY of key STRINGs (possibly empty:
 * MATCH and TYPE filter on the server), or NULL once every shard is done.
 * Errors: those of the live client section; after an error the scan is
 * over (the next call gives NULL). Free each batch with cr_reply_free. */
CR_API cr_status cr_scan_next(cr_reply **out, cr_scan *s);
/* "host:port" of the node the last batch came from; NULL before the first.
 * Borrowed: valid until cr_scan_free. */
CR_API const char *cr_scan_get_address(const cr_scan *s);
/* NULL is a no-op. */
CR_API void cr_scan_free(cr_scan *s);

/* A Lua script: its body and SHA1, for cr_client_eval. Immutable: safe to
 * share between threads. Errors: CR_EINVAL (NULL with len > 0, len 0).
 * Ownership: free with cr_script_free (NULL is a no-op). */
typedef struct cr_script cr_script;
CR_API cr_status cr_script_new(cr_script **out, const void *body, size_t len);
/* The SHA1 of the body as 40 lowercase hex digits (what EVALSHA names);
 * NULL for NULL. Borrowed: valid while s is. */
CR_API const char *cr_script_get_sha(const cr_script *s);
CR_API void cr_script_free(cr_script *s);

/* EVALSHA script numkeys keys… args… (EVALSHA_RO when read_only is 1: a
 * replica may answer, tried like any read), routed by its keys: every key
 * must hash to one slot, else CR_EINVAL ("CROSSSLOT …") before anything is
 * sent; with no keys, a random shard. A node that answers NOSCRIPT (it was
 * restarted, flushed with SCRIPT FLUSH, or promoted) gets SCRIPT LOAD of the
 * body and the EVALSHA once more, in one round trip. Errors: as for
 * cr_client_command, and CR_EVERSION (opts from a newer header); a script
 * error is CR_EREDIS. */
CR_API cr_status cr_client_eval(cr_reply **out, cr_client *c, const cr_call_options *opts,
                                const cr_script *script, int read_only, size_t numkeys,
                                const void *const *keys, const size_t *key_lens, size_t nargs,
                                const void *const *args, const size_t *arg_lens);
/* FCALL function numkeys keys… args… (FCALL_RO when read_only is 1), routed
 * by its keys as cr_client_eval (errors too). The function must be loaded
 * on the masters (FUNCTION LOAD through cr_client_command_nodes). */
CR_API cr_status cr_client_fcall(cr_reply **out, cr_client *c, const cr_call_options *opts,
                                 const char *function, int read_only, size_t numkeys,
                                 const void *const *keys, const size_t *key_lens, size_t nargs,
                                 const void *const *args, const size_t *arg_lens);

/* A connection pinned to the master of one slot, for a transaction: WATCH,
 * reads, MULTI, commands, EXEC all on one connection. Each command names
 * its keys by position; a key of another slot is refused with CR_EINVAL
 * ("CROSSSLOT …") before that command is sent. Nothing is redirected or
 * retried: a MOVED (the slot moved since the pin) is CR_EREDIS, and the
 * caller pins again. A connection error or timeout marks the master and
 * breaks the pin (later commands: CR_ECONN). cr_pinned_free releases it,
 * sending DISCARD (an open MULTI) or UNWATCH first.
 * Ownership: free with cr_pinned_free before cr_client_free(c).
 * Thread-safety: one thread at a time. */
typedef struct cr_pinned cr_pinned;
/* Pins the master of key's slot (or of slot). Errors: CR_EINVAL,
 * CR_ENOTOPOLOGY, CR_ESLOT_UNCOVERED, CR_EUNAVAILABLE, CR_ECONN, CR_ETIMEOUT. */
CR_API cr_status cr_client_pin(cr_pinned **out, cr_client *c, const void *key, size_t len);
CR_API cr_status cr_client_pin_slot(cr_pinned **out, cr_client *c, uint16_t slot);
/* One command on the pinned connection: argv as cr_client_command;
 * key_indexes[0..nkeys-1] say which arguments are keys (none for MULTI,
 * EXEC, DISCARD, UNWATCH). out receives the reply (QUEUED inside MULTI;
 * EXEC's array, or NIL when a WATCHed key changed). Errors: CR_EINVAL (bad
 * arguments, an index >= argc, CROSSSLOT), CR_EREDIS (an error reply),
 * CR_ECONN, CR_ETIMEOUT, CR_EVERSION. */
CR_API cr_status cr_pinned_command(cr_reply **out, cr_pinned *p, const cr_call_options *opts,
                                   size_t nkeys, const size_t *key_indexes, size_t argc,
                                   const void *const *argv, const size_t *argvlen);
/* The pinned slot; 0 for NULL. */
CR_API uint16_t cr_pinned_get_slot(const cr_pinned *p);
/* Releases the connection (see above). NULL is a no-op. */
CR_API void cr_pinned_free(cr_pinned *p);

/* ---- Live client: publish / subscribe ----
 *
 * A cr_subscription receives the messages of channels (SUBSCRIBE), patterns
 * (PSUBSCRIBE) and shard channels (SSUBSCRIBE) of one cr_client, on
 * connections of its own (never the client's pooled ones) served by one
 * thread of its own. Messages and events arrive on one queue, read with
 * cr_subscription_next:
 *  - Channels and patterns share one connection to the node a read would
 *    use first (the read policy's order: a local replica first), any shard's.
 *  - A shard channel is subscribed on its slot's shard, on the node a read
 *    of the slot would use (its local replica first; the servers accept
 *    SSUBSCRIBE on replicas), one connection per node used.
 *  - A subscription lost — its node failed or closed the connection, sent a
 *    frame that is not a valid push (the connection is closed, never
 *    reused), or (a shard channel) its slot moved: the server's
 *    sunsubscribe, or a MOVED answer — gives a CR_MESSAGE_TYPE_MOVING event
 *    per name with the reason, then, once subscribed on the next node
 *    (failures reported to the client's node health; for a moved slot, after
 *    the client's topology refresh names the new owner, on its master unless
 *    a replica has served under it for 1 s), a
 *    CR_MESSAGE_TYPE_RESUBSCRIBED event with that node. Every message
 *    published after the RESUBSCRIBED event (SUBSCRIBED, first time) is
 *    delivered; messages published while a name was moving may be lost.
 *    Placements are checked again whenever the client's topology changes.
 *  - A planned move back to a nearer node: a name left on a worse tier (after
 *    a failover, the new master in another cloud while the local replica
 *    was still syncing) moves to a read candidate of a better tier — for a
 *    shard channel, of its slot; for channels and patterns, of any shard —
 *    once that node has been a healthy candidate (listed online, breaker
 *    closed, not failed by this subscription lately) for 1 s. Never between
 *    nodes of the same tier, at most once per name per 30 s. It is
 *    make-before-break: a MOVING event with the node it leaves and the
 *    reason "a nearer node is ready: host:port (tier)"; the name is
 *    subscribed on the new node (and a PING there answered: a node still
 *    loading refuses it), then unsubscribed from the old one; once that is
 *    confirmed, RESUBSCRIBED with the new node. No message is lost across a
 *    planned move (at least once): those published between MOVING and
 *    RESUBSCRIBED may be delivered twice, once from each node (get_node
 *    tells which). A planned move that fails (the new node refuses or
 *    cannot be reached) keeps the old subscription, which never stopped:
 *    RESUBSCRIBED names the old node, and nothing was lost. It is tried
 *    again (MOVING, RESUBSCRIBED each time) once the node is no longer
 *    avoided (1 s, doubling to 8 s) and has been healthy for 1 s again; a
 *    refused attempt does not count towards the 30 s between moves.
 * Payloads are binary-safe. The queue holds at most 64 MiB of messages;
 * past that the subscription stops reading its sockets until the caller
 * catches up (the servers buffer, up to their client-output-buffer-limit).
 * Ownership: free with cr_subscription_free before cr_client_free(c).
 * Thread-safety: every cr_subscription call may be made from any thread,
 * concurrently (cr_subscription_add / _remove while another thread waits in
 * cr_subscription_next); cr_subscription_free also while other threads wait
 * in cr_subscription_next (they return at once, with no message). */
typedef struct cr_subscription cr_subscription;
typedef struct cr_message cr_message;

/* What a subscribed name is. Values are pinned. */
typedef enum cr_channel_kind {
  CR_CHANNEL_KIND_CHANNEL = 0, /* a channel: SUBSCRIBE, PUBLISH */
  CR_CHANNEL_KIND_PATTERN = 1, /* a glob-style pattern of channels: PSUBSCRIBE */
  CR_CHANNEL_KIND_SHARD = 2    /* a shard channel, placed by its slot: SSUBSCRIBE, SPUBLISH */
} cr_channel_kind;

/* What cr_subscription_next gave. Values are pinned. */
typedef enum cr_message_type {
  CR_MESSAGE_TYPE_MESSAGE = 0,      /* a published message: channel, payload (and pattern) */
  CR_MESSAGE_TYPE_SUBSCRIBED = 1,   /* the name is subscribed on node (first time) */
  CR_MESSAGE_TYPE_RESUBSCRIBED = 2, /* the name is subscribed again, on node, after MOVING */
  CR_MESSAGE_TYPE_MOVING = 3,       /* the name lost its subscription on node (reason); moving */
  CR_MESSAGE_TYPE_UNSUBSCRIBED = 4  /* cr_subscription_remove took the name off node */
} cr_message_type;

/* A new subscription of c, with no names yet (cr_subscription_add), and its
 * thread. Errors: CR_EINVAL (NULL), CR_ENOMEM (no thread could start).
 * Ownership: free with cr_subscription_free before cr_client_free(c). */
CR_API cr_status cr_client_subscribe(cr_subscription **out, cr_client *c);
/* Subscribes n names of one kind (binary-safe, copied; names[i] may be NULL
 * only when lens[i] is 0). Returns at once: each name's SUBSCRIBED event
 * (or MOVING, while its node cannot be reached) follows on the queue. A
 * name already subscribed is left as it is. Errors: CR_EINVAL (NULL
 * pointers, n 0, a kind none of cr_channel_kind's, an empty name). */
CR_API cr_status cr_subscription_add(cr_subscription *s, cr_channel_kind kind, size_t n,
                                     const void *const *names, const size_t *lens);
/* Unsubscribes n names of one kind; each subscribed one gives an
 * UNSUBSCRIBED event (messages already queued for it stay queued). A name
 * not subscribed is ignored. Errors: as cr_subscription_add. */
CR_API cr_status cr_subscription_remove(cr_subscription *s, cr_channel_kind kind, size_t n,
                                        const void *const *names, const size_t *lens);
/* The next message or event, in arrival order, waiting for one at most
 * timeout_ms (0: do not wait; UINT32_MAX: no bound). *out is NULL — with
 * CR_OK — when none came in time, when cr_subscription_wake was called, or
 * when the subscription is being freed. Errors: CR_EINVAL (NULL pointers).
 * Ownership: free *out with cr_message_free. */
CR_API cr_status cr_subscription_next(cr_message **out, cr_subscription *s, uint32_t timeout_ms);
/* Makes one cr_subscription_next return at once with no message: the one
 * waiting now, else the next call (a binding's interrupt, or its close).
 * Safe from any thread; errors: CR_EINVAL (NULL). */
CR_API cr_status cr_subscription_wake(cr_subscription *s);
/* Unsubscribes nothing on the servers: closes the subscription's
 * connections, stops its thread, wakes every cr_subscription_next waiting on
 * it (each returns CR_OK with no message before this returns) and drops the
 * messages still queued. NULL is a no-op. No call may start on s once this
 * started. */
CR_API void cr_subscription_free(cr_subscription *s);

/* Accessors of a message or event. They never fail: on NULL they give
 * CR_MESSAGE_TYPE_MESSAGE, CR_CHANNEL_KIND_CHANNEL, NULL (*len 0). Borrowed
 * pointers are valid while m is; strings end with a NUL not counted in *len
 * (len may be NULL). Thread-safety: a message is immutable. */
CR_API cr_message_type cr_message_get_type(const cr_message *m);
/* The kind of the subscribed name the message or event is about: a message
 * matched by a pattern is CR_CHANNEL_KIND_PATTERN. */
CR_API cr_channel_kind cr_message_get_kind(const cr_message *m);
/* A message: the channel it was published on. An event: the name. */
CR_API const char *cr_message_get_channel(const cr_message *m, size_t *len);
/* A message matched by a pattern: the pattern; NULL otherwise. */
CR_API const char *cr_message_get_pattern(const cr_message *m, size_t *len);
/* A message: its payload (binary-safe); NULL for events. */
CR_API const char *cr_message_get_payload(const cr_message *m, size_t *len);
/* "host:port" of the node (as the topology announces it) the message came
 * from, or the event is about; "" when none. */
CR_API const char *cr_message_get_node(const cr_message *m);
/* A MOVING event: why ("connection lost: ...", "slot 1234 moved: the
 * server sent sunsubscribe", "malformed push frame: ...", "a nearer node is
 * ready: host:port (tier)" for a planned move); "" otherwise. */
CR_API const char *cr_message_get_reason(const cr_message *m);
/* NULL is a no-op. */
CR_API void cr_message_free(cr_message *m);

/* PUBLISH channel message, sent to the master of the channel's slot (any
 * node would do: the cluster forwards it to every node); *out_receivers
 * (may be NULL) receives the number of subscribers of that node that got
 * it. SPUBLISH: to the master of the shard channel's slot (MOVED is
 * followed); *out_receivers counts the subscribers in that shard. Neither
 * is re-sent after a failure that may have reached the server.
 * Errors: CR_EINVAL (NULL client, channel NULL with a length, message NULL
 * with a length), and those of cr_client_command. */
CR_API cr_status cr_client_publish(int64_t *out_receivers, cr_client *c, const void *channel,
                                   size_t channel_len, const void *message, size_t message_len);
CR_API cr_status cr_client_spublish(int64_t *out_receivers, cr_client *c, const void *channel,
                                    size_t channel_len, const void *message, size_t message_len);
/* ---- pipelines ---- */
/* ======================================================================
 * Pipelines: any commands in any slots, run at once
 *
 * A cr_pipeline queues commands for one cr_client — GET, HGETALL, ZRANGE,
 * SET … in any mix — and cr_pipeline_execute runs them together: each is
 * routed by its key and its cr_access (or sent to the node the caller
 * names), the commands are grouped per node, every node's group is written
 * on one connection and all nodes are in flight at once (about one round
 * trip for the whole pipeline), and the results come back in queue order
 * with an error in place of each command that failed.
 *
 * Inside a pipeline, as for cr_client_command: a MOVED or ASK (ASKING
 * first) is followed for the commands it concerns only; TRYAGAIN /
 * CLUSTERDOWN are retried with backoff; a read whose node fails (connection
 * error, timeout, a replica still LOADING) goes to its next candidate; a
 * write that may have reached its node is never re-sent — its result is an
 * error saying so. The commands are not a transaction: each node runs its
 * group in order, different nodes independently.
 *
 * Ownership: unlike the rest of this API, cr_pipeline_add and
 * cr_pipeline_add_node do NOT copy the arguments: argv, argvlen and the
 * bytes they point to are borrowed and must stay valid and unchanged until
 * cr_pipeline_execute, cr_pipeline_clear or cr_pipeline_free returns (the
 * wire buffer built at execute is the only copy made).
 *
 * Thread-safety: a cr_pipeline is used by one thread at a time; several
 * pipelines may run on one cr_client at once. Free every pipeline before
 * its client.
 * ==================================================================== */

typedef struct cr_pipeline cr_pipeline;

/* An empty pipeline for c. Errors: CR_EINVAL (NULL). Ownership: free with
 * cr_pipeline_free, before cr_client_free(c). */
CR_API cr_status cr_pipeline_new(cr_pipeline **out, cr_client *c);
/* NULL is a no-op. */
CR_API void cr_pipeline_free(cr_pipeline *p);

/* Queues a command routed by its key argv[key_index], as cr_client_command
 * (arguments borrowed: see above); CR_ACCESS_AUTO as there (key_index 0: the
 * server's key specs find the key — the first one places the command, and
 * keys in several slots get the server's CROSSSLOT error in place; the
 * first call may learn the server's command table, a round trip). Errors: CR_EINVAL (NULL pointers,
 * argc 0, key_index >= argc, CR_ACCESS_AUTO for a command that names no key — a keyless command
 * needs cr_pipeline_add_node, where CR_ACCESS_AUTO classes it too). */
CR_API cr_status cr_pipeline_add(cr_pipeline *p, cr_access access, size_t key_index, size_t argc,
                                 const void *const *argv, const size_t *argvlen);
/* Queues a command for the node host:port only — keyless commands (PING,
 * INFO, DBSIZE …) or a key the caller places itself. It is sent once: a
 * redirect, an error reply or a failure is its result. Errors: CR_EINVAL,
 * CR_ENOTFOUND (the client has never seen that node). */
CR_API cr_status cr_pipeline_add_node(cr_pipeline *p, cr_access access, const char *host,
                                      uint16_t port, size_t argc, const void *const *argv,
                                      const size_t *argvlen);
/* How many commands are queued; 0 for NULL. */
CR_API size_t cr_pipeline_get_count(const cr_pipeline *p);
/* Empties the queue without sending it. NULL is a no-op. */
CR_API void cr_pipeline_clear(cr_pipeline *p);

/* Runs every queued command and empties the queue. Results by position in
 * (out, cap, needed) shape: *needed receives the command count; when cap is
 * at least that, replies[i] receives command i's result (free each with
 * cr_reply_free) and statuses[i] (may be NULL) its status: CR_OK with the
 * reply, or the error — CR_EREDIS (an error reply), CR_ECONN, CR_ETIMEOUT,
 * CR_EUNAVAILABLE, CR_ESLOT_UNCOVERED … — with replies[i] a
 * CR_REPLY_TYPE_ERROR reply holding the message (the server's text for
 * CR_EREDIS; for a write that failed once sent, the message ends with "the
 * command may have reached the server and was not re-sent").
 * Returns CR_OK when every command succeeded, else the first failed
 * command's status (cr_last_error() names its position and message): every
 * result is in place either way. Errors before anything is sent (the queue
 * is kept, nothing written): CR_EINVAL (NULL p, needed, or replies with
 * cap > 0), CR_EBUFS (cap < *needed; call with cap 0 to learn it). */
CR_API cr_status cr_pipeline_execute(cr_reply **replies, cr_status *statuses, size_t cap,
                                     size_t *needed, cr_pipeline *p);

/* ======================================================================
 * Sentinel client (hiredis): shard groups kept current by Redis Sentinel
 *
 * A cr_sentinel_client owns a cr_shard_groups table (one group per Sentinel
 * master name, keys placed by a built cr_ring: ring shard i is group i) and
 * keeps it current: it asks the sentinels (SENTINEL get-master-addr-by-name,
 * SENTINEL replicas, SENTINEL master — replicas flagged s_down, o_down or
 * disconnected are left out, and so, while the master is healthy, are those
 * whose role-reported is not "slave", as a demoted master's is until
 * Sentinel converts it) before
 * cr_sentinel_client_new returns, then a thread it owns stays subscribed on
 * one sentinel to +switch-master (applied at once) and to the instance
 * events (+sdown, -sdown, +odown, -odown, +slave, +convert-to-slave,
 * +failover-end; the group is re-asked), moves to the next sentinel when
 * that one fails (and re-asks everything: events may have been missed), and
 * re-asks every group each reask_interval_ms.
 *
 * Commands run on the same engine as cr_client's (its connection pools,
 * failure rules, hedged reads, recovery probes, log events and counters):
 * reads go to the key's group's instances in candidate order (see
 * cr_shard_groups_candidates); a connection error, a timeout (which sets
 * the instance aside at once, as in cr_client), or a LOADING / MASTERDOWN
 * reply marks the instance and moves on, so reads keep being served by
 * replicas while the master moves. Writes go to the master only; a write
 * whose master is unknown, could not be dialed, or refused it as READONLY
 * (a demoted master) was not executed and is retried after re-asking the
 * sentinels (up to max_retries); one that may have reached the server is
 * never re-sent. A MOVED or ASK from an instance (a server in cluster mode)
 * is refused (CR_EREDIS), never followed. Log events go to cfg's log
 * callback (cr_config_set_log_callback), as cr_client's do, and also name
 * the group ("failover seen" when Sentinel moves a master; "refresh failed"
 * when no sentinel answered about a group; "sentinel subscription lost").
 * Instances Sentinel stops reporting keep their entry in the client's table
 * (no reclamation; their idle connections close after pool_idle_ms).
 * Errors: CR_ECONN, CR_ETIMEOUT, CR_EREDIS (an error reply, its text in
 * cr_last_error()), CR_EUNAVAILABLE (no master known / no instance
 * answered), CR_ELIMIT.
 *
 * Thread-safety: a cr_sentinel_client is safe for concurrent use by any
 * number of threads, except cr_sentinel_client_free. Its threads: the
 * watcher (the subscription and the periodic re-asks), the refresher (the
 * re-asks that failures trigger), the recovery prober; a command runs on
 * its caller's thread (a dial of a hedged read's first leg on one of its
 * own), as cr_client's do.
 * ==================================================================== */

typedef struct cr_sentinel_client cr_sentinel_client;

typedef struct cr_sentinel_options {
  uint32_t struct_size;
  uint32_t connect_timeout_ms;                /* default 1000 */
  uint32_t command_timeout_ms[CR_TIER_COUNT]; /* by the instance's cr_tier; default
                                                 500, 1000, 1000, 2000, 2000 */
  uint32_t sentinel_timeout_ms;               /* each question to a sentinel; default 1000 */
  uint32_t reask_interval_ms;                 /* every group re-asked; default 5000; 0 = never */
  uint32_t pool_size;                         /* connections per instance at most; default 8 */
  uint32_t pool_idle_ms;                      /* default 60000 */
  uint32_t max_retries;          /* writes not executed (READONLY, not dialed); default 5 */
  uint32_t retry_backoff_ms;     /* first backoff, doubling up to 1 s, jittered; default 50 */
  uint32_t tcp_keepalive_s;      /* default 15; 0 = off */
  uint32_t tcp_user_timeout_ms;  /* default 10000; 0 = kernel default */
  const char *username;          /* data nodes' AUTH username; NULL = default user */
  const char *password;          /* data nodes' AUTH password; NULL = none. Copied, never logged */
  const char *sentinel_username; /* the sentinels' own AUTH; NULL = none */
  const char *sentinel_password;
  const char *client_name; /* CLIENT SETNAME on data nodes; NULL = none */
  /* The database of the data nodes (never sent to the sentinels): SELECT db
   * in every new data connection's handshake, so it holds across reconnects
   * and failovers; a server that refuses it fails the connection with
   * CR_EREDIS naming its reply. 0-2147483647; default 0 (no SELECT sent). An
   * older caller's smaller struct_size keeps database 0. */
  uint32_t db;
  /* --- The engine shared with cr_client. A caller built against a header
   * without these fields passes a smaller struct_size: TLS and hedging stay
   * off, the rest at its defaults. */
  uint32_t failures_before_refresh; /* failed attempts in a row (any instance) after which
                                       every group is re-asked, on the client's refresher
                                       thread; default 3 */
  uint32_t refresh_min_gap_ms;      /* at most one such re-ask per gap; default 1000 */
  /* TLS (OpenSSL), as cr_client_options': 1 = every connection — to the
   * sentinels and to the data nodes — uses TLS (the sentinels' tls-port;
   * they report the instances' TLS ports when they monitor them over TLS,
   * tls-replication yes). The same CA, client certificate and server name
   * serve both. */
  int tls;                     /* default 0 */
  int tls_verify;              /* default 1 (see cr_client_options.tls_verify) */
  const char *tls_ca_file;     /* PEM bundle of trusted CAs; NULL with tls_ca_dir NULL = the
                                  system store */
  const char *tls_ca_dir;      /* OpenSSL hashed directory of CAs; may be NULL */
  const char *tls_cert_file;   /* client certificate chain (PEM); NULL = none */
  const char *tls_key_file;    /* its unencrypted PEM private key; with cert */
  const char *tls_server_name; /* verify (and send as SNI) this name; NULL = each host */
  /* Hedged reads, as cr_client_options' (off by default): a read whose
   * instance has not answered within the hedge delay is sent to the group's
   * next read candidate too; the first answer wins. */
  cr_hedge_mode hedge_mode;      /* default CR_HEDGE_MODE_OFF */
  uint32_t hedge_delay_ms;       /* 1-60000; default 20 */
  uint32_t hedge_min_delay_ms;   /* ADAPTIVE; default 2 */
  uint32_t hedge_budget_percent; /* 1-100; default 10 */
  double hedge_percentile;       /* ADAPTIVE; (0, 100]; default 99.0 */
  /* Shared connections per instance, as cr_client_options' (2 by default;
   * 0: a pooled connection per command in flight). An older caller's
   * smaller struct_size gets the default. */
  uint32_t shared_connections; /* 0-16; default 2 */
} cr_sentinel_options;

#define CR_SENTINEL_OPTIONS_INIT                                                                 \
  {                                                                                              \
    (uint32_t)sizeof(cr_sentinel_options), 1000u, {500u, 1000u, 1000u, 2000u, 2000u}, 1000u,     \
        5000u, 8u, 60000u, 5u, 50u, 15u, 10000u, NULL, NULL, NULL, NULL, NULL, 0u, 3u, 1000u, 0, \
        1, NULL, NULL, NULL, NULL, NULL, CR_HEDGE_MODE_OFF, 20u, 2u, 10u, 99.0, 2u               \
  }
/* Defaults into the caller's struct, as cr_parse_options_init. The first
 * public layout of cr_sentinel_options ends at client_name. */
CR_API cr_status cr_sentinel_options_init(cr_sentinel_options *opts, size_t size);

/* A client for the n_groups Sentinel masters names[0..n_groups-1] (group i
 * is names[i]), asked through sentinels ("host:port[,host:port…]"). ring
 * must be built with n_groups shards (the client keeps its own reference).
 * cfg (locality, weights, breaker; may be NULL) is copied; opts may be NULL.
 * Returns once every group's master and replicas are known.
 * Errors: CR_EINVAL (NULL or bad arguments, a ring not built or of another
 * size, empty or duplicate names), CR_ENOTFOUND (the sentinels monitor no
 * master of a name), CR_ECONN / CR_ETIMEOUT / CR_EREDIS (no sentinel
 * answered; the message names each and why), CR_EVERSION (opts from a
 * newer header).
 * Ownership: free with cr_sentinel_client_free. */
CR_API cr_status cr_sentinel_client_new(cr_sentinel_client **out, const cr_config *cfg,
                                        const cr_sentinel_options *opts, const cr_ring *ring,
                                        const char *const *names, size_t n_groups,
                                        const char *sentinels);
/* Stops the client's threads and closes every connection. NULL is a no-op.
 * From c's log callback it returns at once and c is freed on a thread of
 * the library's once the callback has returned (as cr_client_free).
 * REQUIRES: no other call on c is running or will run. */
CR_API void cr_sentinel_client_free(cr_sentinel_client *c);

/* Any command on one key, as cr_client_command: argv[key_index] places it. */
CR_API cr_status cr_sentinel_client_command(cr_reply **out, cr_sentinel_client *c, cr_access access,
                                            size_t key_index, size_t argc, const void *const *argv,
                                            const size_t *argvlen);

/* GET of a key (binary-safe, copied): out receives a CR_REPLY_TYPE_STRING,
 * or CR_REPLY_TYPE_NIL when the key does not exist (a read: the group's
 * instances nearest first). Errors as cr_sentinel_client_command. */
CR_API cr_status cr_sentinel_client_get(cr_reply **out, cr_sentinel_client *c, const void *key,
                                        size_t len);
/* SET on the key's group's master (binary-safe), with a time to live when
 * ttl_ms > 0 (SET … PX ttl_ms). */
CR_API cr_status cr_sentinel_client_set(cr_sentinel_client *c, const void *key, size_t key_len,
                                        const void *value, size_t value_len, uint64_t ttl_ms);
/* PEXPIRE key ttl_ms (1 to INT64_MAX) on the key's group's master;
 * out_set (may be NULL) receives 1 when the time to live was set, 0 when
 * the key does not exist. Errors: CR_EINVAL (ttl_ms 0 or too large), and
 * those of cr_sentinel_client_command. */
CR_API cr_status cr_sentinel_client_expire(int *out_set, cr_sentinel_client *c, const void *key,
                                           size_t len, uint64_t ttl_ms);

/* ---- Sentinel batches: MGET, MSET, DEL, EXISTS over many keys ----
 * The n >= 1 keys (binary-safe, copied) are grouped per group, one command
 * per group (MGET k1 k2 …, not one per key), and every group's command is
 * sent at once on the engine cr_client's fan-out uses (about one round trip
 * for the batch). Reads (MGET, EXISTS) are served by the group's instances
 * nearest first, moving on when one fails, hedged as configured; writes
 * (MSET, DEL) by its master, tried again after re-asking the sentinels
 * when not executed (READONLY, no master known, not dialed; up to
 * max_retries), never re-sent once they may have arrived.
 * A batch is not a transaction: each group's command succeeds or fails on
 * its own, and the results say which keys failed — statuses[i] (may be
 * NULL) receives key i's status: CR_OK, or its group's error (CR_EUNAVAILABLE,
 * CR_ECONN, CR_ETIMEOUT, CR_EREDIS …, as for cr_pipeline_execute's
 * commands). The call returns CR_OK when every key succeeded, else the
 * first failed key's status with cr_last_error() naming every failed group
 * once, its keys' positions and its error ("3 of 100 keys of the MSET batch
 * failed (the others succeeded): keys 4, 9, 17 (group 'orders'): …"); every
 * result is in place either way. Errors before anything is sent (nothing in
 * the result arrays): CR_EINVAL (NULL client, keys or lens; n 0; a NULL
 * key with a non-zero length). */

/* MGET: replies[i] (required; free each with cr_reply_free) receives key
 * i's value — CR_REPLY_TYPE_STRING, or CR_REPLY_TYPE_NIL when it does not
 * exist — or, when its group failed, a CR_REPLY_TYPE_ERROR reply holding
 * the message (as cr_pipeline_execute's results). */
CR_API cr_status cr_sentinel_client_mget(cr_reply **replies, cr_status *statuses,
                                         cr_sentinel_client *c, const void *const *keys,
                                         const size_t *lens, size_t n);
/* MSET of n pairs keys[i] = values[i]: one MSET per group. */
CR_API cr_status cr_sentinel_client_mset(cr_status *statuses, cr_sentinel_client *c,
                                         const void *const *keys, const size_t *key_lens,
                                         const void *const *values, const size_t *value_lens,
                                         size_t n);
/* DEL: out_count (may be NULL) receives how many of the keys existed,
 * summed over the groups whose DEL succeeded. */
CR_API cr_status cr_sentinel_client_del(int64_t *out_count, cr_status *statuses,
                                        cr_sentinel_client *c, const void *const *keys,
                                        const size_t *lens, size_t n);
/* EXISTS: out_count (may be NULL) receives how many of the keys exist (a
 * key given twice counts twice, as EXISTS does), summed over the groups
 * whose EXISTS succeeded. */
CR_API cr_status cr_sentinel_client_exists(int64_t *out_count, cr_status *statuses,
                                           cr_sentinel_client *c, const void *const *keys,
                                           const size_t *lens, size_t n);

/* Asks the sentinels about every group now, on the calling thread. */
CR_API cr_status cr_sentinel_client_refresh(cr_sentinel_client *c);

/* The client's table, for inspection (cr_shard_groups_route_write,
 * cr_shard_groups_candidates) and health feedback; NULL for NULL. Borrowed:
 * valid until cr_sentinel_client_free(c); never free it, and leave its
 * masters and replicas to the client. Unlike a table of cr_shard_groups_new,
 * a client's table reclaims the instances that left it, as a router
 * reclaims nodes (see cr_router_update): a route's host and handle stay
 * valid while the instance is in the table's current or previous state
 * (one change back); then the handle is refused with CR_ENOTFOUND. */
CR_API cr_shard_groups *cr_sentinel_client_get_groups(cr_sentinel_client *c);

typedef struct cr_sentinel_stats {
  uint32_t struct_size;
  int subscribed;     /* 1 while subscribed to a sentinel's events */
  uint64_t reads;     /* read commands an instance answered */
  uint64_t writes;    /* write commands a master answered */
  uint64_t fallbacks; /* reads served by a later instance after one failed */
  uint64_t retries;   /* writes tried again (not executed the first time) */
  uint64_t conn_errors;
  uint64_t timeouts;
  uint64_t server_errors;  /* error replies returned to the caller */
  uint64_t master_changes; /* a group's master moved */
  uint64_t switch_events;  /* +switch-master messages received */
  uint64_t asks;           /* groups asked about */
  uint64_t ask_failures;   /* … when no sentinel answered */
  uint64_t subscriptions;  /* successful (re)subscriptions */
  /* --- the engine's counters, as cr_client_stats' (a caller built against
   * a header without them passes a smaller struct_size and gets the above) */
  uint64_t reads_by_tier[CR_TIER_COUNT]; /* reads by the serving instance's cr_tier */
  uint64_t connections;                  /* connections opened to instances */
  uint64_t hedges;                       /* reads also sent to the next candidate */
  uint64_t hedges_won;                   /* ... that the next candidate answered first */
  uint64_t hedges_denied;                /* reads past their hedge delay the budget did not hedge */
  uint64_t poisoned;                     /* connections closed: replies stopped matching requests */
} cr_sentinel_stats;

#define CR_SENTINEL_STATS_INIT                                                              \
  {                                                                                         \
    (uint32_t)sizeof(cr_sentinel_stats), 0, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, \
        {0u, 0u, 0u, 0u, 0u}, 0u, 0u, 0u, 0u, 0u                                            \
  }

/* Counters since the client was created (an output struct:
 * CR_SENTINEL_STATS_INIT). Errors: CR_EINVAL. */
CR_API cr_status cr_sentinel_client_get_stats(cr_sentinel_stats *out, const cr_sentinel_client *c);

/* Per-instance statistics of every data node the client has talked to, as
 * cr_client_get_node_stats (the same struct; host valid while the instance
 * is in the client's groups now or before their last change — copy it to
 * keep it). Errors: CR_EINVAL, CR_EBUFS. */
CR_API cr_status cr_sentinel_client_get_node_stats(cr_client_node_stats *out, size_t cap,
                                                   size_t *needed, const cr_sentinel_client *c);

/* The client's statistics as Prometheus text, as cr_client_get_metrics_text
 * (the same metric names; per instance node="host:port"). Errors: CR_EINVAL,
 * CR_EBUFS. Thread-safety: safe concurrently with other calls on c. */
CR_API cr_status cr_sentinel_client_get_metrics_text(char *buf, size_t cap, size_t *needed,
                                                     const cr_sentinel_client *c);

/* ---- Live client: asynchronous calls ----
 *
 * A single-key command submitted without waiting; its completion is a
 * callback. No thread per call: the first attempt is one request on the
 * node's shared connections (cr_client_options.shared_connections; a client
 * with 0 gets one shared connection per node for its asynchronous calls
 * only, its blocking calls keep the pool), written and read by the client's
 * engine thread, which also runs the callback when that attempt settles the
 * call — a reply, or an error reply other than a redirect or a retry. The
 * rest — a failed attempt (a read moves on to its next candidate; a write
 * that may have been sent reports "may have been applied"), MOVED / ASK,
 * TRYAGAIN / CLUSTERDOWN / LOADING with their backoff, a write its master
 * did not execute, and whatever one round trip cannot do (a hedged read, a
 * blocking command, a read that follows the client's own write under
 * read_your_writes_ms) — runs the blocking call's path on one of at most 4
 * worker threads of the client, which then runs the callback: routing,
 * retries and errors are exactly cr_client_command_opts'. Replies are
 * matched to requests by the shared connections' markers: a callback never
 * gets another call's reply.
 *
 * Completion queue: after cr_client_completion_fd, callbacks do not run on
 * the client's threads; they wait in a queue, the returned file descriptor
 * (an eventfd) is readable while one waits, and cr_client_run_completions
 * runs them on its caller's thread — for event loops (poll the fd, then run
 * the completions).
 *
 * What a callback may do: read and keep its reply, call cr_last_error(),
 * submit more calls (cr_client_submit), call any function that does not
 * wait for a Redis node. What it may not do: block (it holds up every
 * other completion of the client, and on the engine thread every shared
 * connection); make a blocking call of this client — cr_client_command and
 * the rest, which wait for the engine thread (refused with CR_EINVAL when
 * made on the engine thread: it would wait for itself); call
 * cr_client_run_completions. cr_client_free from inside a callback frees
 * the client on a thread of its own once the callback returned (as from a
 * log handler). */

/* A call's completion: status CR_OK with reply (a new reference: free it
 * with cr_reply_free; it may be kept past the callback), or an error with
 * reply NULL and the message in cr_last_error() on the callback's thread
 * until the callback returns (a server's error reply is CR_EREDIS with its
 * text). Runs exactly once for each call cr_client_submit accepted. */
typedef void (*cr_completion_fn)(void *ud, cr_status status, cr_reply *reply);

/* Submits a command on one key, as cr_client_command_opts (opts may be
 * NULL; opts->timeout_ms bounds each attempt as it does there, counted
 * from the submit, time queued behind other requests included: once it
 * passes the call completes with CR_ETIMEOUT, its reply is dropped when it
 * comes and the connection serves on). done(ud, ...) runs once, later, on
 * the engine thread, a worker thread of the client, or (completion queue)
 * in cr_client_run_completions — never inside this call. ud is the caller's
 * (the library never touches it). CR_ACCESS_AUTO classes and places the
 * command as cr_client_command does, before the submit returns (a client's
 * first such call learns the server's command table on the calling thread:
 * it waits for that node once). Errors (done will not run): CR_EINVAL (as
 * cr_client_command_opts — NULL pointers, argc 0, key_index >= argc, a
 * command no shared connection may carry, with CR_ACCESS_AUTO a keyless
 * command or keys in several slots —, done NULL, or the client being
 * freed), CR_EVERSION, CR_ENOMEM. Thread-safety: any thread, a callback
 * too. */
CR_API cr_status cr_client_submit(cr_client *c, const cr_call_options *opts, cr_access access,
                                  size_t key_index, size_t argc, const void *const *argv,
                                  const size_t *argvlen, cr_completion_fn done, void *ud);

/* Turns the completion queue on (see above; for calls completing from now
 * on, so call it before the first cr_client_submit) and gives its file
 * descriptor in *out_fd: readable while completions wait, owned by the
 * client (do not close or read it; stop polling it before cr_client_free,
 * which closes it). Calling it again gives the same fd. Errors: CR_EINVAL
 * (NULL), CR_EINTERNAL (no eventfd). */
CR_API cr_status cr_client_completion_fd(int *out_fd, cr_client *c);

/* Runs up to max waiting completions (0: all waiting now) on the calling
 * thread; *out_ran (may be NULL) receives how many ran. The fd stays
 * readable while more wait. Errors: CR_EINVAL (c NULL). Thread-safety: any
 * thread, not from a callback. */
CR_API cr_status cr_client_run_completions(size_t *out_ran, cr_client *c, size_t max);

/* Multi-key calls submitted without waiting: MGET, MSET, DEL and EXISTS of
 * n >= 1 keys in any slots, as cr_client_cmd_mget / _mset / _del (split by
 * slot, one command per slot, every node's share in flight at once; the
 * same routing, retries and errors: a read whose node fails moves on to its
 * next candidate, a write that may have reached its node is not re-sent and
 * says so). The keys and values are copied before the call returns. Each
 * node's share is one request on its shared connections, written and read
 * by the engine thread; when every share answered without a redirect or a
 * retry the engine thread completes the call, else (a node failed, MOVED /
 * ASK, TRYAGAIN …, hedging on) one of the client's at most 4 worker threads
 * runs the rest of the blocking call's rounds and completes it. done(ud,
 * ...) runs once, as for cr_client_submit, with: mget, an ARRAY of n
 * elements in key order (STRING or NIL); mset, a STATUS "OK"; del, an
 * INTEGER (how many existed); exists, an INTEGER (how many exist, a key
 * named twice counting twice). A failed slot fails the call with its
 * status (the first failed slot's; some slots of an MSET or DEL may have
 * been written). Errors (done will not run): CR_EINVAL (NULL c, keys, lens
 * or done, n 0, the client being freed), CR_ENOMEM. Thread-safety: any
 * thread, a callback too. */
CR_API cr_status cr_client_submit_mget(cr_client *c, const void *const *keys, const size_t *lens,
                                       size_t n, cr_completion_fn done, void *ud);
CR_API cr_status cr_client_submit_mset(cr_client *c, const void *const *keys,
                                       const size_t *key_lens, const void *const *values,
                                       const size_t *value_lens, size_t n, cr_completion_fn done,
                                       void *ud);
CR_API cr_status cr_client_submit_del(cr_client *c, const void *const *keys, const size_t *lens,
                                      size_t n, cr_completion_fn done, void *ud);
CR_API cr_status cr_client_submit_exists(cr_client *c, const void *const *keys, const size_t *lens,
                                         size_t n, cr_completion_fn done, void *ud);

/* A submitted pipeline's completion: n results in queue order, as
 * cr_pipeline_execute gives them — replies[i] command i's reply or a
 * CR_REPLY_TYPE_ERROR reply with its error's message (a new reference
 * each: free every one with cr_reply_free; they may be kept), statuses[i]
 * its status. status is CR_OK when every command succeeded, else the first
 * failed command's status, cr_last_error() naming its position and message
 * on the callback's thread until it returns. The arrays themselves are the
 * library's: valid until the callback returns. */
typedef void (*cr_pipeline_completion_fn)(void *ud, cr_status status, size_t n,
                                          cr_reply *const *replies, const cr_status *statuses);

/* Runs every queued command of p without waiting, as cr_pipeline_execute
 * (the same routing, redirects, retries and errors), and empties the queue:
 * the commands' arguments are copied before the call returns, so the
 * buffers cr_pipeline_add borrowed may be reused then, and p may be queued
 * again, submitted again or freed at once. The first round is one request
 * per node on its shared connections (as for cr_client_submit_mget); what
 * it cannot settle runs on a worker. done(ud, ...) runs once, as for
 * cr_client_submit (the engine thread, a worker, or the completion queue;
 * never inside this call); cr_client_free with the pipeline in flight runs
 * it with every command failed CR_ECONN "cancelled: …". Errors (done will
 * not run): CR_EINVAL — NULL p or done, an empty queue, a pipeline of a
 * cr_sharded_client (only the cluster client submits): the queue is kept;
 * the client being freed: the queue is emptied, nothing sent —, CR_ENOMEM.
 * Thread-safety: p as for
 * cr_pipeline_execute (one thread at a time); several pipelines may be in
 * flight on one client. */
CR_API cr_status cr_pipeline_submit(cr_pipeline *p, cr_pipeline_completion_fn done, void *ud);

/* The Sentinel client's asynchronous single-key calls, as cr_client_submit,
 * cr_client_completion_fd and cr_client_run_completions (the same threads,
 * callback rules and completion queue; opts as there), with the routing,
 * retries and errors of cr_sentinel_client_command (a write its group's
 * master did not execute re-asks the sentinels on a worker and is tried
 * again).
 * CR_ACCESS_AUTO is refused (CR_EINVAL), as for the blocking call.
 * cr_sentinel_client_free with calls in flight runs every callback not yet
 * run once, cancelled, before it returns, as cr_client_free does. The
 * batches' asynchronous forms follow (cr_sentinel_client_submit_mget …). */
CR_API cr_status cr_sentinel_client_submit(cr_sentinel_client *c, const cr_call_options *opts,
                                           cr_access access, size_t key_index, size_t argc,
                                           const void *const *argv, const size_t *argvlen,
                                           cr_completion_fn done, void *ud);
CR_API cr_status cr_sentinel_client_completion_fd(int *out_fd, cr_sentinel_client *c);
CR_API cr_status cr_sentinel_client_run_completions(size_t *out_ran, cr_sentinel_client *c,
                                                    size_t max);

/* A submitted Sentinel batch's completion: the results the blocking batch
 * (cr_sentinel_client_mget, _mset, _del, _exists) gives, n of them in key
 * order — statuses[i] key i's status; for MGET, replies[i] key i's value
 * or a CR_REPLY_TYPE_ERROR reply holding its group's error (a new
 * reference each: free every one with cr_reply_free; they may be kept),
 * and replies NULL for the other kinds; count the sum DEL / EXISTS gives
 * (0 for MGET and MSET). status is CR_OK when every key succeeded, else the
 * first failed key's status, cr_last_error() naming every failed group on
 * the callback's thread until it returns. The arrays themselves are the
 * library's: valid until the callback returns. */
typedef void (*cr_batch_completion_fn)(void *ud, cr_status status, size_t n,
                                       cr_reply *const *replies, const cr_status *statuses,
                                       int64_t count);

/* The Sentinel batches submitted without waiting: the keys (and MSET's
 * values; binary-safe) are copied before the call returns, one command per
 * group goes out at once on the groups' shared connections, and done(ud,
 * ...) runs once, as for cr_sentinel_client_submit (the engine thread, a
 * worker — for a group whose instance failed, moving on or re-asking the
 * sentinels as the blocking batch does —, or the completion queue; never
 * inside this call). cr_sentinel_client_free with a batch in flight runs
 * done with every key failed CR_ECONN "cancelled: …". Errors (done will not
 * run): CR_EINVAL (NULL c, keys, lens or done; n 0; a NULL key with a
 * non-zero length; the client being freed), CR_ENOMEM. Thread-safety: any
 * thread, a callback too. */
CR_API cr_status cr_sentinel_client_submit_mget(cr_sentinel_client *c, const void *const *keys,
                                                const size_t *lens, size_t n,
                                                cr_batch_completion_fn done, void *ud);
CR_API cr_status cr_sentinel_client_submit_mset(cr_sentinel_client *c, const void *const *keys,
                                                const size_t *key_lens, const void *const *values,
                                                const size_t *value_lens, size_t n,
                                                cr_batch_completion_fn done, void *ud);
CR_API cr_status cr_sentinel_client_submit_del(cr_sentinel_client *c, const void *const *keys,
                                               const size_t *lens, size_t n,
                                               cr_batch_completion_fn done, void *ud);
CR_API cr_status cr_sentinel_client_submit_exists(cr_sentinel_client *c, const void *const *keys,
                                                  const size_t *lens, size_t n,
                                                  cr_batch_completion_fn done, void *ud);

/* cr_client_free with calls in flight: every callback not yet run runs
 * exactly once before free returns, with CR_ECONN and a message starting
 * "cancelled:" (a write already sent may have run) — on the engine thread,
 * a worker, or, for the completion queue, the thread calling free. A call
 * in a worker's hands ends its wait at once; a dial or a backoff under way
 * ends within its own bound. */
/* ======================================================================
 * Pre-sharded client (hiredis): standalone servers placed on a ring
 *
 * Client-side sharding, as Jedis's ShardedJedis did it: a built cr_ring
 * places each key on a shard (ring shard i is group i of the client's own
 * cr_shard_groups table, named as the ring's shard, or "shard #i" for an
 * unnamed one), and servers[i] serves shard i: "host:port" (its master) or
 * "host:port,host:port,…" (the master, then its replicas). Nothing is
 * asked of the servers: they are standalone (not cluster-mode) servers,
 * and the table changes only through cr_sharded_client_set_servers.
 *
 * Commands run on the same engine as cr_client's and cr_sentinel_client's
 * (its connection pools, failure rules, hedged reads, recovery probes, log
 * events and counters). Reads go to the key's shard's instances in
 * candidate order (locality from cfg, then weights): a connection error, a
 * timeout or a LOADING reply marks the instance and moves on, so a shard
 * whose master died keeps serving reads from its replicas. Writes go to the
 * master only: one that cannot reach it fails (CR_ECONN / CR_ETIMEOUT; the
 * message says whether it may have arrived) — nothing promotes a replica,
 * and a write is never sent to one nor re-sent once it may have reached
 * the server. A MOVED or ASK (a server in cluster mode) is refused
 * (CR_EREDIS), never followed. Multi-key commands and pipelines send one
 * command per shard, every shard at once; scripts and functions run on
 * their keys' shard (keys on different shards: CR_EINVAL before anything is
 * sent); cr_sharded_scan_new scans every shard; node commands go to one
 * instance, every master or every instance. Errors: those of cr_client's
 * calls, and CR_EUNAVAILABLE (a read no instance answered).
 *
 * Thread-safety: a cr_sharded_client is safe for concurrent use by any
 * number of threads (cr_sharded_client_set_servers included), except
 * cr_sharded_client_free. Its one thread is the recovery prober; a command
 * runs on its caller's thread.
 * ==================================================================== */

typedef struct cr_sharded_client cr_sharded_client;

typedef struct cr_sharded_options {
  uint32_t struct_size;
  uint32_t connect_timeout_ms;                /* default 1000 */
  uint32_t command_timeout_ms[CR_TIER_COUNT]; /* by the instance's cr_tier; default
                                                 500, 1000, 1000, 2000, 2000 */
  uint32_t pool_size;                         /* connections per instance at most; default 8 */
  uint32_t pool_idle_ms;                      /* default 60000 */
  uint32_t max_retries;         /* TRYAGAIN / LOADING retries of a command; default 3 */
  uint32_t retry_backoff_ms;    /* first backoff, doubling up to 1 s, jittered; default 50 */
  uint32_t tcp_keepalive_s;     /* default 15; 0 = off */
  uint32_t tcp_user_timeout_ms; /* default 10000; 0 = kernel default */
  const char *username;         /* AUTH username; NULL = default user */
  const char *password;         /* AUTH password; NULL = none. Copied, never logged */
  const char *client_name;      /* CLIENT SETNAME; NULL = none */
  uint32_t db;                  /* SELECT db in every new connection's handshake; 0-2147483647;
                                   default 0 (no SELECT sent) */
  /* TLS (OpenSSL), as cr_client_options' */
  int tls;                     /* default 0 */
  int tls_verify;              /* default 1 */
  const char *tls_ca_file;     /* PEM bundle of trusted CAs; NULL with tls_ca_dir NULL = the
                                  system store */
  const char *tls_ca_dir;      /* OpenSSL hashed directory of CAs; may be NULL */
  const char *tls_cert_file;   /* client certificate chain (PEM); NULL = none */
  const char *tls_key_file;    /* its unencrypted PEM private key; with cert */
  const char *tls_server_name; /* verify (and send as SNI) this name; NULL = each host */
  /* Hedged reads, as cr_client_options' (off by default). */
  cr_hedge_mode hedge_mode;      /* default CR_HEDGE_MODE_OFF */
  uint32_t hedge_delay_ms;       /* 1-60000; default 20 */
  uint32_t hedge_min_delay_ms;   /* ADAPTIVE; default 2 */
  uint32_t hedge_budget_percent; /* 1-100; default 10 */
  double hedge_percentile;       /* ADAPTIVE; (0, 100]; default 99.0 */
  /* Shared connections per server, as cr_client_options' (2 by default;
   * 0: a pooled connection per command in flight). An older caller's
   * smaller struct_size gets the default. */
  uint32_t shared_connections; /* 0-16; default 2 */
} cr_sharded_options;

#define CR_SHARDED_OPTIONS_INIT                                                                  \
  {                                                                                              \
    (uint32_t)sizeof(cr_sharded_options), 1000u, {500u, 1000u, 1000u, 2000u, 2000u}, 8u, 60000u, \
        3u, 50u, 15u, 10000u, NULL, NULL, NULL, 0u, 0, 1, NULL, NULL, NULL, NULL, NULL,          \
        CR_HEDGE_MODE_OFF, 20u, 2u, 10u, 99.0, 2u                                                \
  }
/* Defaults into the caller's struct, as cr_parse_options_init. The first
 * public layout of cr_sharded_options ends at hedge_percentile. */
CR_API cr_status cr_sharded_options_init(cr_sharded_options *opts, size_t size);

/* A client for the n_shards servers servers[0..n_shards-1] (see above),
 * keys placed by ring (built, with n_shards shards; the client keeps its
 * own reference). cfg (locality, weights, breaker; may be NULL) is copied;
 * opts may be NULL. Nothing is dialed: a server that is down is found by
 * the first command to it.
 * Errors: CR_EINVAL (NULL or bad arguments; a ring not built, or with
 * another shard count than n_shards; a server entry that is not
 * "host:port[,host:port…]", the message naming it; duplicate shard names),
 * CR_ELIMIT (more shards than the client can place).
 * Ownership: free with cr_sharded_client_free. */
CR_API cr_status cr_sharded_client_new(cr_sharded_client **out, const cr_config *cfg,
                                       const cr_sharded_options *opts, const cr_ring *ring,
                                       const char *const *servers, size_t n_shards);
/* Stops the client's thread and closes every connection. NULL is a no-op.
 * From c's log callback (or a completion callback) it returns at once and c
 * is freed on a thread of the library's once the callback has returned (as
 * cr_client_free); asynchronous calls in flight complete once, cancelled.
 * REQUIRES: no other call on c is running or will run. */
CR_API void cr_sharded_client_free(cr_sharded_client *c);

/* New addresses for every shard (servers as for cr_sharded_client_new, the
 * same count): the ring and its names stay, so no key changes shard — the
 * way to move a shard to another server (replicate it there, promote the
 * copy, then point the client at it). Every shard's new instances take
 * effect at once, for the commands that start after the call; commands in
 * flight finish on the connections they hold; idle connections to
 * instances no shard names any more are closed now. The same servers again
 * change nothing. Errors: CR_EINVAL (as cr_sharded_client_new; nothing
 * changes). */
CR_API cr_status cr_sharded_client_set_servers(cr_sharded_client *c, const char *const *servers,
                                               size_t n_shards);

/* Any command on one key, as cr_client_command_opts (opts may be NULL):
 * argv[key_index] places it on its shard. */
CR_API cr_status cr_sharded_client_command(cr_reply **out, cr_sharded_client *c,
                                           const cr_call_options *opts, cr_access access,
                                           size_t key_index, size_t argc, const void *const *argv,
                                           const size_t *argvlen);
/* MGET, MSET, DEL and EXISTS of n >= 1 keys on any shards, as
 * cr_client_cmd_mget / _mset / _del: one command per shard, every shard at
 * once; out (mget: an array in key order) or the count (del: keys deleted,
 * exists: keys that exist, a key named twice counting twice; may be NULL).
 * Not atomic across shards: on an error some shards may have been written. */
CR_API cr_status cr_sharded_client_mget(cr_reply **out, cr_sharded_client *c,
                                        const void *const *keys, const size_t *lens, size_t n);
CR_API cr_status cr_sharded_client_mset(cr_sharded_client *c, const void *const *keys,
                                        const size_t *key_lens, const void *const *values,
                                        const size_t *value_lens, size_t n);
CR_API cr_status cr_sharded_client_del(int64_t *out_deleted, cr_sharded_client *c,
                                       const void *const *keys, const size_t *lens, size_t n);
CR_API cr_status cr_sharded_client_exists(int64_t *out_count, cr_sharded_client *c,
                                          const void *const *keys, const size_t *lens, size_t n);
/* Scripts and functions on their keys' shard, as cr_client_eval and
 * cr_client_fcall (keys on different shards: CR_EINVAL, nothing sent; no
 * keys: a random shard). */
CR_API cr_status cr_sharded_client_eval(cr_reply **out, cr_sharded_client *c,
                                        const cr_call_options *opts, const cr_script *script,
                                        int read_only, size_t numkeys, const void *const *keys,
                                        const size_t *key_lens, size_t nargs,
                                        const void *const *args, const size_t *arg_lens);
CR_API cr_status cr_sharded_client_fcall(cr_reply **out, cr_sharded_client *c,
                                         const cr_call_options *opts, const char *function,
                                         int read_only, size_t numkeys, const void *const *keys,
                                         const size_t *key_lens, size_t nargs,
                                         const void *const *args, const size_t *arg_lens);
/* A keyless command to one instance, every master or every instance, as
 * cr_client_command_nodes (shards in ring order). */
CR_API cr_status cr_sharded_client_command_nodes(cr_node_replies **out, cr_sharded_client *c,
                                                 const cr_call_options *opts, cr_target target,
                                                 const char *node, size_t argc,
                                                 const void *const *argv, const size_t *argvlen);
/* A pipeline on the client, used with cr_pipeline_add, _add_node,
 * _execute and _free as cr_pipeline_new's (commands placed by their key's
 * shard). REQUIRES: c outlives the pipeline. */
CR_API cr_status cr_sharded_pipeline_new(cr_pipeline **out, cr_sharded_client *c);
/* SCAN over every shard, in ring order, used with cr_scan_next,
 * cr_scan_get_address and cr_scan_free as cr_scan_new's. REQUIRES: c
 * outlives the scan. */
CR_API cr_status cr_sharded_scan_new(cr_scan **out, cr_sharded_client *c,
                                     const cr_scan_options *opts);

/* The client's table (cr_shard_groups_route_write, _candidates), as
 * cr_sentinel_client_get_groups: borrowed, valid until the client is freed;
 * leave its masters and replicas to the client. NULL for NULL. */
CR_API cr_shard_groups *cr_sharded_client_get_groups(cr_sharded_client *c);
/* Counters since the client was created, in a cr_client_stats (moved, ask,
 * refreshes and refresh_failures stay 0: a ring has no redirects or
 * topology to refresh). Errors: as cr_client_get_stats. */
CR_API cr_status cr_sharded_client_get_stats(cr_client_stats *out, const cr_sharded_client *c);
/* As cr_client_get_node_stats. Errors: CR_EINVAL, CR_EBUFS. */
CR_API cr_status cr_sharded_client_get_node_stats(cr_client_node_stats *out, size_t cap,
                                                  size_t *needed, const cr_sharded_client *c);
/* As cr_client_get_metrics_text. Errors: CR_EINVAL, CR_EBUFS. */
CR_API cr_status cr_sharded_client_get_metrics_text(char *buf, size_t cap, size_t *needed,
                                                    const cr_sharded_client *c);

/* The pre-sharded client's asynchronous calls, as cr_client_submit,
 * cr_client_submit_mget / _mset / _del / _exists, cr_client_completion_fd
 * and cr_client_run_completions (the same threads, callback rules and
 * completion queue; opts as there), with the routing, retries and errors of
 * cr_sharded_client_command and cr_sharded_client_mget …: the first attempt
 * on the server's shared connection, a read's next candidate or a retry on
 * a worker. CR_ACCESS_AUTO is refused (CR_EINVAL), as for the blocking
 * call; a pipeline of the client is not submitted (cr_pipeline_submit
 * refuses it). cr_sharded_client_free with calls in flight runs every
 * callback not yet run once, cancelled, before it returns. */
CR_API cr_status cr_sharded_client_submit(cr_sharded_client *c, const cr_call_options *opts,
                                          cr_access access, size_t key_index, size_t argc,
                                          const void *const *argv, const size_t *argvlen,
                                          cr_completion_fn done, void *ud);
CR_API cr_status cr_sharded_client_submit_mget(cr_sharded_client *c, const void *const *keys,
                                               const size_t *lens, size_t n, cr_completion_fn done,
                                               void *ud);
CR_API cr_status cr_sharded_client_submit_mset(cr_sharded_client *c, const void *const *keys,
                                               const size_t *key_lens, const void *const *values,
                                               const size_t *value_lens, size_t n,
                                               cr_completion_fn done, void *ud);
CR_API cr_status cr_sharded_client_submit_del(cr_sharded_client *c, const void *const *keys,
                                              const size_t *lens, size_t n, cr_completion_fn done,
                                              void *ud);
CR_API cr_status cr_sharded_client_submit_exists(cr_sharded_client *c, const void *const *keys,
                                                 const size_t *lens, size_t n,
                                                 cr_completion_fn done, void *ud);
CR_API cr_status cr_sharded_client_completion_fd(int *out_fd, cr_sharded_client *c);
CR_API cr_status cr_sharded_client_run_completions(size_t *out_ran, cr_sharded_client *c,
                                                   size_t max);

#ifdef __cplusplus
}
#endif

#endif /* CLOUDROUTE_H */
