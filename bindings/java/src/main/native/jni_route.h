/* Packing of routes and candidates into long[] for the Java side (see
 * io.cloudroute.Route.unpack and Candidate.unpack). Hosts travel as pointers
 * that stay valid while the router / table is open; Java turns each into a
 * String once per node handle (HostCache). */
#ifndef CLOUDROUTE_JNI_ROUTE_H
#define CLOUDROUTE_JNI_ROUTE_H

#include "jni_common.h"

#define CRJ_ROUTE_LONGS 3
#define CRJ_CANDIDATE_LONGS 4

static inline void crj_pack_route(jlong *o, const cr_route *r) {
  o[0] = (jlong)((uint64_t)r->node_handle | (uint64_t)r->port << 32 | (uint64_t)r->slot << 48 |
                 (uint64_t)(r->role & 1) << 62);
  o[1] = (jlong)((uint64_t)r->shard | (uint64_t)r->tier << 32);
  o[2] = (jlong)(intptr_t)r->host;
}

static inline void crj_pack_candidate(jlong *o, const cr_candidate *c) {
  o[0] =
      (jlong)((uint64_t)c->node_handle | (uint64_t)c->port << 32 | (uint64_t)(c->role & 1) << 48 |
              (uint64_t)(c->tier & 7) << 49 | (uint64_t)(c->down != 0) << 52);
  o[1] = (jlong)((uint64_t)c->rank | (uint64_t)c->weight << 32);
  o[2] = (jlong)c->rtt_us;
  o[3] = (jlong)(intptr_t)c->host;
}

/* Candidates as a new long[] of CRJ_CANDIDATE_LONGS per candidate, from a
 * call of the (out, cap, needed) form. */
typedef cr_status (*crj_candidates_fn)(cr_candidate *out, size_t cap, size_t *needed,
                                       const void *self, const void *key, size_t len, int slot);
jlongArray crj_candidates(JNIEnv *env, crj_candidates_fn fn, const void *self, const void *key,
                          size_t len, int slot);

#endif
