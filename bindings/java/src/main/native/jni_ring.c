/* JNI: io.cloudroute.Ring and ShardGroups. */
#include <stdlib.h>

#include "jni_route.h"

#define RING(h) ((cr_ring *)CRJ_PTR(h))
#define GROUPS(h) ((cr_shard_groups *)CRJ_PTR(h))

/* A built ring from options and shards (names[i] may be null: unnamed). */
JNIEXPORT jlong JNICALL Java_io_cloudroute_Ring_build0(JNIEnv *env, jclass cls, jint algo,
                                                       jint hash, jint naming, jboolean key_tags,
                                                       jobjectArray names, jintArray weights) {
  cr_ring_options o = CR_RING_OPTIONS_INIT;
  o.algo = (cr_ring_algo)algo;
  o.hash = (cr_hash_algo)hash;
  o.naming = (cr_ring_naming)naming;
  o.key_tags = key_tags ? 1 : 0;
  cr_ring *ring = NULL;
  cr_status st = cr_ring_new(&ring, &o);
  if (st != CR_OK) {
    crj_throw(env, st);
    return 0;
  }
  if (!crj_need(env, names, "names") || !crj_need(env, weights, "weights")) {
    cr_ring_free(ring);
    return 0;
  }
  jsize n = (*env)->GetArrayLength(env, names);
  if ((*env)->GetArrayLength(env, weights) < n) {
    cr_ring_free(ring);
    crj_throw_invalid(env, "ring: fewer weights than shards");
    return 0;
  }
  for (jsize i = 0; i < n && st == CR_OK; ++i) {
    jstring name = (jstring)(*env)->GetObjectArrayElement(env, names, i);
    char *c;
    int ok = crj_cstring(env, name, &c);
    (*env)->DeleteLocalRef(env, name);
    if (!ok) {
      cr_ring_free(ring);
      return 0;
    }
    jint w = 0;
    (*env)->GetIntArrayRegion(env, weights, i, 1, &w);
    st = w < 0 ? CR_EINVAL : cr_ring_add_shard(ring, c, (uint32_t)w);
    free(c);
    if (w < 0) {
      cr_ring_free(ring);
      crj_throw_invalid(env, "negative weight");
      return 0;
    }
  }
  if (st == CR_OK) st = cr_ring_build(ring);
  if (st != CR_OK) {
    crj_throw(env, st);
    cr_ring_free(ring);
    return 0;
  }
  return CRJ_HANDLE(ring);
}

/* Locates b's key, releases b, and returns the shard (or -1 with a pending
 * exception). */
static jint locate_and_release(JNIEnv *env, jlong h, crj_bytes *b) {
  uint32_t shard = 0;
  cr_status st = cr_ring_locate(&shard, RING(h), b->data, b->len);
  crj_bytes_release(env, b);
  if (st != CR_OK) {
    crj_throw(env, st);
    return -1;
  }
  return (jint)shard;
}

JNIEXPORT jint JNICALL Java_io_cloudroute_Ring_locateBytes(JNIEnv *env, jclass cls, jlong h,
                                                           jbyteArray key, jint off, jint len) {
  crj_bytes b;
  if (!crj_bytes_critical(env, &b, key, off, len, "key")) return -1;
  return locate_and_release(env, h, &b);
}

JNIEXPORT jint JNICALL Java_io_cloudroute_Ring_locateString(JNIEnv *env, jclass cls, jlong h,
                                                            jstring key) {
  crj_bytes b;
  if (!crj_bytes_utf8(env, &b, key, "key")) return -1;
  return locate_and_release(env, h, &b);
}

JNIEXPORT void JNICALL Java_io_cloudroute_Ring_locatePacked(JNIEnv *env, jclass cls, jlong h,
                                                            jbyteArray data, jintArray ends, jint n,
                                                            jintArray out) {
  crj_packed p;
  if (!crj_packed_open(env, &p, data, ends, n)) return;
  uint32_t *shards = malloc((p.n + 1) * sizeof(uint32_t));
  cr_status st =
      shards == NULL ? CR_ENOMEM : cr_ring_locate_batch(shards, RING(h), p.keys, p.lens, p.n);
  crj_packed_close(env, &p);
  if (st != CR_OK) {
    crj_throw(env, st);
  } else {
    (*env)->SetIntArrayRegion(env, out, 0, n, (const jint *)shards);
  }
  free(shards);
}

/* ---- shard groups ---- */

JNIEXPORT jlong JNICALL Java_io_cloudroute_ShardGroups_create(JNIEnv *env, jclass cls, jlong cfg) {
  cr_shard_groups *g = NULL;
  cr_status st = cr_shard_groups_new(&g, (const cr_config *)CRJ_PTR(cfg));
  if (st != CR_OK) {
    crj_throw(env, st);
    return 0;
  }
  return CRJ_HANDLE(g);
}

/* op: 0 add, 1 find (returns the group; -1 when not found), 2 set master (group, host, port). */
JNIEXPORT jint JNICALL Java_io_cloudroute_ShardGroups_named(JNIEnv *env, jclass cls, jlong h,
                                                            jint op, jint group, jstring name,
                                                            jint port) {
  char *n;
  if (!crj_cstring(env, name, &n)) return -1;
  uint32_t out = 0;
  cr_status st;
  if (op == 0) {
    st = cr_shard_groups_add(&out, GROUPS(h), n);
  } else if (op == 1) {
    st = cr_shard_groups_find(&out, GROUPS(h), n);
    if (st == CR_ENOTFOUND) {
      free(n);
      return -1;
    }
  } else if (!crj_unsigned(env, group, "group")) {
    free(n);
    return -1;
  } else if (port < 0 || port > 65535 || (n != NULL && port == 0)) {
    free(n);
    crj_throw_invalid(env, "port outside 1-65535");
    return -1;
  } else {
    st = cr_shard_groups_set_master(GROUPS(h), (uint32_t)group, n, (uint16_t)port);
  }
  free(n);
  if (st != CR_OK) {
    crj_throw(env, st);
    return -1;
  }
  return (jint)out;
}

JNIEXPORT jint JNICALL Java_io_cloudroute_ShardGroups_count0(JNIEnv *env, jclass cls, jlong h) {
  return (jint)cr_shard_groups_get_count(GROUPS(h));
}

JNIEXPORT void JNICALL Java_io_cloudroute_ShardGroups_setRing0(JNIEnv *env, jclass cls, jlong h,
                                                               jlong ring) {
  cr_status st = cr_shard_groups_set_ring(GROUPS(h), RING(ring));
  if (st != CR_OK) crj_throw(env, st);
}

JNIEXPORT void JNICALL Java_io_cloudroute_ShardGroups_setReplicas0(JNIEnv *env, jclass cls, jlong h,
                                                                   jint group, jobjectArray hosts,
                                                                   jintArray ports) {
  if (!crj_unsigned(env, group, "group") || !crj_need(env, hosts, "hosts") ||
      !crj_need(env, ports, "ports")) {
    return;
  }
  jsize n = (*env)->GetArrayLength(env, hosts);
  if ((*env)->GetArrayLength(env, ports) < n) {
    crj_throw_invalid(env, "replicas: fewer ports than hosts");
    return;
  }
  cr_address *a = calloc((size_t)n + 1, sizeof(cr_address));
  char **names = calloc((size_t)n + 1, sizeof(char *));
  int ok = a != NULL && names != NULL;
  if (!ok) (*env)->ThrowNew(env, crj.oom, "libcloudroute: replicas");
  for (jsize i = 0; i < n && ok; ++i) {
    jstring s = (jstring)(*env)->GetObjectArrayElement(env, hosts, i);
    ok = crj_cstring(env, s, &names[i]);
    (*env)->DeleteLocalRef(env, s);
    jint port = 0;
    (*env)->GetIntArrayRegion(env, ports, i, 1, &port);
    if (ok && (port <= 0 || port > 65535)) {
      crj_throw_invalid(env, "replica port outside 1-65535");
      ok = 0;
    }
    a[i].host = names[i];
    a[i].port = (uint16_t)port;
  }
  if (ok) {
    cr_status st = cr_shard_groups_set_replicas(GROUPS(h), (uint32_t)group, a, (size_t)n);
    if (st != CR_OK) crj_throw(env, st);
  }
  for (jsize i = 0; names != NULL && i < n; ++i) free(names[i]);
  free(names);
  free(a);
}

/* op: 0 locate (returns the group), 1 route read, 2 route write (into out). */
JNIEXPORT jint JNICALL Java_io_cloudroute_ShardGroups_keyOp(JNIEnv *env, jclass cls, jlong h,
                                                            jint op, jobject key, jlongArray out) {
  crj_bytes b;
  if (!crj_bytes_object(env, &b, key, 0)) return -1;
  uint32_t group = 0;
  cr_route r = CR_ROUTE_INIT;
  cr_status st;
  if (op == 0) {
    st = cr_shard_groups_locate(&group, GROUPS(h), b.data, b.len);
  } else if (op == 1) {
    st = cr_shard_groups_route_read(&r, GROUPS(h), b.data, b.len);
  } else {
    st = cr_shard_groups_route_write(&r, GROUPS(h), b.data, b.len);
  }
  crj_bytes_release(env, &b);
  if (st != CR_OK) {
    crj_throw(env, st);
    return -1;
  }
  if (op != 0) {
    jlong packed[CRJ_ROUTE_LONGS];
    crj_pack_route(packed, &r);
    (*env)->SetLongArrayRegion(env, out, 0, CRJ_ROUTE_LONGS, packed);
  }
  return (jint)group;
}

static cr_status groups_candidates(cr_candidate *out, size_t cap, size_t *needed, const void *g,
                                   const void *key, size_t len, int slot) {
  return cr_shard_groups_candidates(out, cap, needed, g, key, len);
}

JNIEXPORT jlongArray JNICALL Java_io_cloudroute_ShardGroups_candidates0(JNIEnv *env, jclass cls,
                                                                        jlong h, jobject key) {
  crj_bytes b;
  if (!crj_bytes_object(env, &b, key, 1)) return NULL;
  jlongArray out = crj_candidates(env, groups_candidates, GROUPS(h), b.data, b.len, -1);
  crj_bytes_release(env, &b);
  return out;
}

JNIEXPORT void JNICALL Java_io_cloudroute_ShardGroups_report0(JNIEnv *env, jclass cls, jlong h,
                                                              jboolean ok, jint handle) {
  if (!crj_unsigned(env, handle, "node handle")) return;
  cr_status st = ok ? cr_shard_groups_report_success(GROUPS(h), (uint32_t)handle)
                    : cr_shard_groups_report_failure(GROUPS(h), (uint32_t)handle);
  if (st != CR_OK) crj_throw(env, st);
}
