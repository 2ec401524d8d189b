/* JNI: io.cloudroute.Router and Snapshot. */
#include <stdlib.h>

#include "jni_route.h"

#define ROUTER(h) ((cr_router *)CRJ_PTR(h))

JNIEXPORT jstring JNICALL Java_io_cloudroute_HostCache_hostAt(JNIEnv *env, jclass cls, jlong ptr) {
  return crj_string(env, (const char *)CRJ_PTR(ptr));
}

jlongArray crj_candidates(JNIEnv *env, crj_candidates_fn fn, const void *self, const void *key,
                          size_t len, int slot) {
  cr_candidate stack[32];
  cr_candidate *c = stack;
  size_t cap = 32, needed = 0;
  stack[0] = (cr_candidate)CR_CANDIDATE_INIT;
  cr_status st = fn(c, cap, &needed, self, key, len, slot);
  while (st == CR_EBUFS) {
    if (c != stack) free(c);
    cap = needed;
    c = malloc(cap * sizeof(cr_candidate));
    if (c == NULL) {
      (*env)->ThrowNew(env, crj.oom, "libcloudroute: candidates");
      return NULL;
    }
    c[0] = (cr_candidate)CR_CANDIDATE_INIT;
    st = fn(c, cap, &needed, self, key, len, slot);
  }
  jlongArray out = NULL;
  if (st != CR_OK) {
    crj_throw(env, st);
  } else {
    jlong packed[CRJ_CANDIDATE_LONGS * 32];
    jlong *p = needed <= 32 ? packed : malloc(needed * CRJ_CANDIDATE_LONGS * sizeof(jlong));
    if (p == NULL) {
      (*env)->ThrowNew(env, crj.oom, "libcloudroute: candidates");
    } else {
      for (size_t i = 0; i < needed; ++i) crj_pack_candidate(p + i * CRJ_CANDIDATE_LONGS, &c[i]);
      jsize n = (jsize)(needed * CRJ_CANDIDATE_LONGS);
      out = (*env)->NewLongArray(env, n);
      if (out != NULL) (*env)->SetLongArrayRegion(env, out, 0, n, p);
      if (p != packed) free(p);
    }
  }
  if (c != stack) free(c);
  return out;
}

static cr_status router_candidates(cr_candidate *out, size_t cap, size_t *needed, const void *r,
                                   const void *key, size_t len, int slot) {
  if (slot >= 0) return cr_router_candidates_slot(out, cap, needed, r, (uint16_t)slot);
  return cr_router_candidates(out, cap, needed, r, key, len);
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_Router_create(JNIEnv *env, jclass cls, jlong cfg) {
  cr_router *r = NULL;
  cr_status st = cr_router_new(&r, (const cr_config *)CRJ_PTR(cfg));
  if (st != CR_OK) {
    crj_throw(env, st);
    return 0;
  }
  return CRJ_HANDLE(r);
}

JNIEXPORT void JNICALL Java_io_cloudroute_Router_update0(JNIEnv *env, jclass cls, jlong h,
                                                         jlong topology) {
  cr_status st = cr_router_update(ROUTER(h), (cr_topology *)CRJ_PTR(topology));
  if (st != CR_OK) crj_throw(env, st);
}

/* op: 0 read, 1 write on a router; 2 read, 3 write on a snapshot. */
static cr_status route(int op, cr_route *r, jlong h, const void *key, size_t len) {
  switch (op) {
    case 0:
      return cr_router_route_read(r, ROUTER(h), key, len);
    case 1:
      return cr_router_route_write(r, ROUTER(h), key, len);
    case 2:
      return cr_snapshot_route_read(r, (const cr_snapshot *)CRJ_PTR(h), key, len);
    default:
      return cr_snapshot_route_write(r, (const cr_snapshot *)CRJ_PTR(h), key, len);
  }
}

static void finish(JNIEnv *env, cr_status st, const cr_route *r, jlongArray out) {
  if (st != CR_OK) {
    crj_throw(env, st);
    return;
  }
  jlong packed[CRJ_ROUTE_LONGS];
  crj_pack_route(packed, r);
  (*env)->SetLongArrayRegion(env, out, 0, CRJ_ROUTE_LONGS, packed);
}

JNIEXPORT void JNICALL Java_io_cloudroute_Router_routeBytes(JNIEnv *env, jclass cls, jlong h,
                                                            jint op, jbyteArray key, jint off,
                                                            jint len, jlongArray out) {
  crj_bytes b;
  if (!crj_bytes_critical(env, &b, key, off, len, "key")) return;
  cr_route r = CR_ROUTE_INIT;
  cr_status st = route(op, &r, h, b.data, b.len);
  crj_bytes_release(env, &b);
  finish(env, st, &r, out);
}

JNIEXPORT void JNICALL Java_io_cloudroute_Router_routeString(JNIEnv *env, jclass cls, jlong h,
                                                             jint op, jstring key, jlongArray out) {
  crj_bytes b;
  if (!crj_bytes_utf8(env, &b, key, "key")) return;
  cr_route r = CR_ROUTE_INIT;
  cr_status st = route(op, &r, h, b.data, b.len);
  crj_bytes_release(env, &b);
  finish(env, st, &r, out);
}

JNIEXPORT void JNICALL Java_io_cloudroute_Router_routeSlot(JNIEnv *env, jclass cls, jlong h,
                                                           jint write, jint slot, jlongArray out) {
  if (slot < 0 || slot > 16383) {
    crj_throw_invalid(env, "slot outside 0-16383");
    return;
  }
  cr_route r = CR_ROUTE_INIT;
  cr_status st = write ? cr_router_route_write_slot(&r, ROUTER(h), (uint16_t)slot)
                       : cr_router_route_read_slot(&r, ROUTER(h), (uint16_t)slot);
  finish(env, st, &r, out);
}

/* Reads of n packed keys on one snapshot (cr_router_route_read_batch); out
 * gets CRJ_ROUTE_LONGS per key and statuses the status of each. */
JNIEXPORT void JNICALL Java_io_cloudroute_Router_routeReadPacked(JNIEnv *env, jclass cls, jlong h,
                                                                 jbyteArray data, jintArray ends,
                                                                 jint n, jlongArray out,
                                                                 jintArray statuses) {
  crj_packed p;
  if (!crj_packed_open(env, &p, data, ends, n)) return;
  cr_route *routes = malloc((p.n + 1) * sizeof(cr_route));
  cr_status *sts = malloc((p.n + 1) * sizeof(cr_status));
  jlong *packed = malloc((p.n * CRJ_ROUTE_LONGS + 1) * sizeof(jlong));
  jint *codes = malloc((p.n + 1) * sizeof(jint));
  int ok = routes != NULL && sts != NULL && packed != NULL && codes != NULL;
  if (ok) {
    routes[0] = (cr_route)CR_ROUTE_INIT;
    /* Every key gets its status; the call returns the first failure, if any. */
    cr_router_route_read_batch(routes, sts, ROUTER(h), p.keys, p.lens, p.n);
  }
  crj_packed_close(env, &p);
  if (!ok) {
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: route batch");
  } else {
    for (size_t i = 0; i < (size_t)n; ++i) {
      codes[i] = sts[i];
      if (sts[i] == CR_OK) crj_pack_route(packed + i * CRJ_ROUTE_LONGS, &routes[i]);
    }
    (*env)->SetLongArrayRegion(env, out, 0, n * CRJ_ROUTE_LONGS, packed);
    (*env)->SetIntArrayRegion(env, statuses, 0, n, codes);
  }
  free(routes);
  free(sts);
  free(packed);
  free(codes);
}

JNIEXPORT jlongArray JNICALL Java_io_cloudroute_Router_candidates0(JNIEnv *env, jclass cls, jlong h,
                                                                   jobject key, jint slot) {
  if (slot >= 0) return crj_candidates(env, router_candidates, ROUTER(h), NULL, 0, slot);
  crj_bytes b;
  if (!crj_bytes_object(env, &b, key, 1)) return NULL;
  jlongArray out = crj_candidates(env, router_candidates, ROUTER(h), b.data, b.len, -1);
  crj_bytes_release(env, &b);
  return out;
}

JNIEXPORT jstring JNICALL Java_io_cloudroute_Router_explain0(JNIEnv *env, jclass cls, jlong h,
                                                             jobject key) {
  crj_bytes b;
  if (!crj_bytes_object(env, &b, key, 1)) return NULL;
  size_t needed = 0;
  char small[1024];
  char *buf = small;
  cr_status st = cr_router_explain(buf, sizeof small, &needed, ROUTER(h), b.data, b.len);
  if (st == CR_EBUFS) {
    buf = malloc(needed);
    st =
        buf == NULL ? CR_ENOMEM : cr_router_explain(buf, needed, &needed, ROUTER(h), b.data, b.len);
  }
  crj_bytes_release(env, &b);
  jstring out = NULL;
  if (st != CR_OK) {
    crj_throw(env, st);
  } else {
    out = crj_string(env, buf);
  }
  if (buf != small) free(buf);
  return out;
}

JNIEXPORT void JNICALL Java_io_cloudroute_Router_redirect(JNIEnv *env, jclass cls, jlong h,
                                                          jint ask, jint slot, jstring host,
                                                          jint port, jlongArray out) {
  if (slot < 0 || slot > 16383 || port <= 0 || port > 65535) {
    crj_throw_invalid(env, "slot outside 0-16383 or port outside 1-65535");
    return;
  }
  char *hs;
  if (!crj_cstring(env, host, &hs)) return;
  cr_route r = CR_ROUTE_INIT;
  cr_status st = ask ? cr_router_report_ask(&r, ROUTER(h), (uint16_t)slot, hs, (uint16_t)port)
                     : cr_router_report_moved(ROUTER(h), (uint16_t)slot, hs, (uint16_t)port);
  free(hs);
  if (st != CR_OK) {
    crj_throw(env, st);
  } else if (ask) {
    finish(env, st, &r, out);
  }
}

/* op: 0 failure, 1 success, 2 rtt (value), 3 slot migrating (handle = slot). */
JNIEXPORT void JNICALL Java_io_cloudroute_Router_feedback(JNIEnv *env, jclass cls, jlong h, jint op,
                                                          jint handle, jint value) {
  cr_status st;
  if (op <= 2 && (!crj_unsigned(env, handle, "node handle") ||
                  (op == 2 && !crj_unsigned(env, value, "rtt_us")))) {
    return;
  }
  switch (op) {
    case 0:
      st = cr_router_report_failure(ROUTER(h), (uint32_t)handle);
      break;
    case 1:
      st = cr_router_report_success(ROUTER(h), (uint32_t)handle);
      break;
    case 2:
      st = cr_router_set_rtt(ROUTER(h), (uint32_t)handle, (uint32_t)value);
      break;
    default:
      if (handle < 0 || handle > 16383) {
        crj_throw_invalid(env, "slot outside 0-16383");
        return;
      }
      st = cr_router_set_slot_migrating(ROUTER(h), (uint16_t)handle, value);
      break;
  }
  if (st != CR_OK) crj_throw(env, st);
}

/* op: 0 node zone (text), 1 replica lagging (flag); -1 find node (returns the handle or -1). */
JNIEXPORT jlong JNICALL Java_io_cloudroute_Router_nodeOp(JNIEnv *env, jclass cls, jlong h, jint op,
                                                         jstring host, jint port, jstring text,
                                                         jint flag) {
  if (port <= 0 || port > 65535) {
    crj_throw_invalid(env, "port outside 1-65535");
    return -1;
  }
  char *hs, *ts;
  if (!crj_cstring(env, host, &hs)) return -1;
  if (!crj_cstring(env, text, &ts)) {
    free(hs);
    return -1;
  }
  cr_status st;
  jlong result = 0;
  if (op == 0) {
    st = cr_router_set_node_zone(ROUTER(h), hs, (uint16_t)port, ts);
  } else if (op == 1) {
    st = cr_router_set_replica_lagging(ROUTER(h), hs, (uint16_t)port, flag);
  } else {
    uint32_t handle = 0;
    st = cr_router_find_node(&handle, ROUTER(h), hs, (uint16_t)port);
    result = handle;
    if (st == CR_ENOTFOUND) {
      st = CR_OK;
      result = -1;
    }
  }
  free(hs);
  free(ts);
  if (st != CR_OK) crj_throw(env, st);
  return result;
}

/* op: 0 refresh needed, 1 slot migrating (arg = slot). */
JNIEXPORT jboolean JNICALL Java_io_cloudroute_Router_flag(JNIEnv *env, jclass cls, jlong h, jint op,
                                                          jint arg) {
  if (op == 0) return cr_router_get_refresh_needed(ROUTER(h)) != 0;
  if (arg < 0 || arg > 16383) return JNI_FALSE;
  return cr_router_get_slot_migrating(ROUTER(h), (uint16_t)arg) != 0;
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_Router_snapshot0(JNIEnv *env, jclass cls, jlong h) {
  cr_snapshot *s = NULL;
  cr_status st = cr_router_get_snapshot(&s, ROUTER(h));
  if (st != CR_OK) {
    crj_throw(env, st);
    return 0;
  }
  return CRJ_HANDLE(s);
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_Snapshot_generation0(JNIEnv *env, jclass cls, jlong h) {
  return (jlong)cr_snapshot_get_generation((const cr_snapshot *)CRJ_PTR(h));
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_Snapshot_topology0(JNIEnv *env, jclass cls, jlong h) {
  return CRJ_HANDLE(cr_snapshot_get_topology((const cr_snapshot *)CRJ_PTR(h)));
}
