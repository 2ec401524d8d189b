/* JNI: io.cloudroute.Client and SentinelClient (the live clients). Calls that
 * may block on the network never hold a critical region: keys are copied. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jni_options.h"
#include "jni_reply.h"

#define CLIENT(h) ((cr_client *)CRJ_PTR(h))
#define SENTINEL(h) ((cr_sentinel_client *)CRJ_PTR(h))
#define SHARDED(h) ((cr_sharded_client *)CRJ_PTR(h))

/* ---- options ---- */

int crj_fill_strings(JNIEnv *env, jobjectArray strs, char **out, int n) {
  for (int i = 0; i < n; ++i) out[i] = NULL;
  for (int i = 0; i < n; ++i) {
    jstring s = (jstring)(*env)->GetObjectArrayElement(env, strs, i);
    int ok = crj_cstring(env, s, &out[i]);
    (*env)->DeleteLocalRef(env, s);
    if (!ok) return 0;
  }
  return 1;
}

/* A Java int or long option is refused when negative (it would reach C as a
 * huge unsigned value), with the Python binding's message; the C library
 * judges every other range. A NULL name (a double's bits) is not checked. */
int crj_options_unsigned(JNIEnv *env, const jint *u, const char *const *u_names, int nu,
                         const jlong *w, const char *const *w_names, int nw) {
  for (int i = 0; i < nu; ++i) {
    if (!crj_unsigned(env, u[i], u_names[i])) return 0;
  }
  for (int i = 0; i < nw; ++i) {
    if (w_names[i] != NULL && w[i] < 0) {
      char msg[128];
      snprintf(msg, sizeof msg, "%s must be in 0 .. 2**64-1", w_names[i]);
      crj_throw_invalid(env, msg);
      return 0;
    }
  }
  return 1;
}

/* Reads a Java options object's arrays (the layout of jni_options.h); 0 with
 * an exception pending when one is missing or too short. */
int crj_options_take(JNIEnv *env, jintArray u32, jint *u, int nu, jlongArray u64, jlong *w,
                     int nw) {
  if (!crj_need(env, u32, "u32") || !crj_need(env, u64, "u64")) return 0;
  (*env)->GetIntArrayRegion(env, u32, 0, nu, u);
  (*env)->GetLongArrayRegion(env, u64, 0, nw, w);
  return !(*env)->ExceptionCheck(env);
}

JNIEXPORT void JNICALL Java_io_cloudroute_ClientOptions_defaults(JNIEnv *env, jclass cls,
                                                                 jintArray u32, jlongArray u64) {
  crj_client_options_defaults(env, u32, u64);
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_Client_create(JNIEnv *env, jclass cls, jlong cfg,
                                                         jstring seeds, jintArray u32,
                                                         jlongArray u64, jobjectArray strs,
                                                         jint log_level) {
  cr_client_options o;
  cr_client_options_init(&o, sizeof o);
  jint u[CRJ_CLIENT_OPTIONS_U32];
  jlong w[CRJ_CLIENT_OPTIONS_U64];
  if (!crj_options_take(env, u32, u, CRJ_CLIENT_OPTIONS_U32, u64, w, CRJ_CLIENT_OPTIONS_U64) ||
      !crj_options_unsigned(env, u, crj_client_options_u32_names, CRJ_CLIENT_OPTIONS_U32, w,
                            crj_client_options_u64_names, CRJ_CLIENT_OPTIONS_U64))
    return 0;
  crj_client_options_set(&o, u, w);
  char *s[CRJ_CLIENT_OPTIONS_STRS] = {NULL};
  char *seed_text = NULL;
  cr_client *c = NULL;
  cr_status st = CR_OK;
  if (crj_fill_strings(env, strs, s, CRJ_CLIENT_OPTIONS_STRS) &&
      crj_cstring(env, seeds, &seed_text) &&
      crj_log_route(env, (cr_config *)CRJ_PTR(cfg), log_level)) {
    crj_client_options_set_strings(&o, s);
    st = cr_client_new(&c, (const cr_config *)CRJ_PTR(cfg), &o, seed_text);
    if (st != CR_OK) crj_throw(env, st);
  }
  for (int i = 0; i < CRJ_CLIENT_OPTIONS_STRS; ++i) free(s[i]);
  free(seed_text);
  return CRJ_HANDLE(c);
}

/* kind 0: a cluster client, 1: a Sentinel client. */
JNIEXPORT jobject JNICALL Java_io_cloudroute_Client_command0(JNIEnv *env, jclass cls, jint kind,
                                                             jlong h, jint access, jint key_index,
                                                             jobjectArray argv) {
  crj_args a;
  if (!crj_args_take_keyed(env, &a, argv, key_index)) return NULL;
  cr_reply *reply = NULL;
  cr_status st = kind == 0 ? cr_client_command(&reply, CLIENT(h), (cr_access)access,
                                               (size_t)key_index, a.n, a.ptrs, a.lens)
                           : cr_sentinel_client_command(&reply, SENTINEL(h), (cr_access)access,
                                                        (size_t)key_index, a.n, a.ptrs, a.lens);
  crj_args_free(&a);
  return crj_reply_result(env, st, reply);
}

/* A command with call options (cr_client_command_opts): timeout_ms > 0
 * replaces the node's tier timeout for this call (CallOptions checked it is
 * not negative). */
JNIEXPORT jobject JNICALL Java_io_cloudroute_Client_commandOpts0(JNIEnv *env, jclass cls, jlong h,
                                                                 jint timeout_ms, jint access,
                                                                 jint key_index,
                                                                 jobjectArray argv) {
  crj_args a;
  if (!crj_args_take_keyed(env, &a, argv, key_index)) return NULL;
  cr_call_options opts;
  cr_call_options_init(&opts, sizeof opts);
  opts.timeout_ms = (uint32_t)timeout_ms;
  cr_reply *reply = NULL;
  cr_status st = cr_client_command_opts(&reply, CLIENT(h), &opts, (cr_access)access,
                                        (size_t)key_index, a.n, a.ptrs, a.lens);
  crj_args_free(&a);
  return crj_reply_result(env, st, reply);
}

/* kind 0: cr_client_get_metrics_text, 1: cr_sharded_client_get_metrics_text. */
static cr_status metrics_text(jint kind, jlong h, char *buf, size_t cap, size_t *needed) {
  return kind == 0 ? cr_client_get_metrics_text(buf, cap, needed, CLIENT(h))
                   : cr_sharded_client_get_metrics_text(buf, cap, needed, SHARDED(h));
}

/* The metrics text of client h (kind 0: a cluster client, 1: a sharded
 * client) as a String, growing the buffer while the text grows between the
 * size query and the copy. */
JNIEXPORT jstring JNICALL Java_io_cloudroute_Client_metrics0(JNIEnv *env, jclass cls, jint kind,
                                                             jlong h) {
  size_t needed = 0;
  cr_status st = metrics_text(kind, h, NULL, 0, &needed);
  char *buf = NULL;
  while (st == CR_EBUFS) {
    char *grown = realloc(buf, needed);
    if (grown == NULL) {
      free(buf);
      (*env)->ThrowNew(env, crj.oom, "libcloudroute: metrics text");
      return NULL;
    }
    buf = grown;
    st = metrics_text(kind, h, buf, needed, &needed);
  }
  jstring out = NULL;
  if (st != CR_OK) {
    crj_throw(env, st);
  } else {
    out = crj_string(env, buf);
  }
  free(buf);
  return out;
}

JNIEXPORT jobject JNICALL Java_io_cloudroute_Client_get0(JNIEnv *env, jclass cls, jlong h,
                                                         jobject key) {
  crj_bytes b;
  if (!crj_bytes_object(env, &b, key, 1)) return NULL;
  cr_reply *reply = NULL;
  cr_status st = cr_client_cmd_get(&reply, CLIENT(h), b.data, b.len);
  crj_bytes_release(env, &b);
  return crj_reply_result(env, st, reply);
}

JNIEXPORT void JNICALL Java_io_cloudroute_Client_set0(JNIEnv *env, jclass cls, jlong h, jobject key,
                                                      jobject value, jlong ttl_ms) {
  crj_bytes k, v;
  if (!crj_bytes_object(env, &k, key, 1)) return;
  if (!crj_bytes_object(env, &v, value, 1)) {
    crj_bytes_release(env, &k);
    return;
  }
  cr_status st = ttl_ms < 0
                     ? CR_EINVAL
                     : cr_client_cmd_set(CLIENT(h), k.data, k.len, v.data, v.len, (uint64_t)ttl_ms);
  crj_bytes_release(env, &k);
  crj_bytes_release(env, &v);
  if (ttl_ms < 0)
    crj_throw_invalid(env, "negative time to live");
  else if (st != CR_OK)
    crj_throw(env, st);
}

/* op: 0 MGET (returns the list), 1 DEL (returns the count), 2 MSET of keys and values. */
JNIEXPORT jobject JNICALL Java_io_cloudroute_Client_multi0(JNIEnv *env, jclass cls, jlong h,
                                                           jint op, jobjectArray keys,
                                                           jobjectArray values) {
  crj_args k, v;
  if (!crj_args_take(env, &k, keys)) return NULL;
  if (op == 2 && !crj_args_take(env, &v, values)) {
    crj_args_free(&k);
    return NULL;
  }
  jobject out = NULL;
  if (op == 0) {
    cr_reply *reply = NULL;
    cr_status st = cr_client_cmd_mget(&reply, CLIENT(h), k.ptrs, k.lens, k.n);
    out = crj_reply_result(env, st, reply);
  } else if (op == 1) {
    int64_t deleted = 0;
    cr_status st = cr_client_cmd_del(&deleted, CLIENT(h), k.ptrs, k.lens, k.n);
    if (st != CR_OK)
      crj_throw(env, st);
    else
      out = (*env)->CallStaticObjectMethod(env, crj.long_class, crj.long_value_of, (jlong)deleted);
  } else {
    cr_status st =
        k.n != v.n ? CR_EINVAL : cr_client_cmd_mset(CLIENT(h), k.ptrs, k.lens, v.ptrs, v.lens, k.n);
    if (k.n != v.n)
      crj_throw_invalid(env, "MSET: as many values as keys");
    else if (st != CR_OK)
      crj_throw(env, st);
    crj_args_free(&v);
  }
  crj_args_free(&k);
  return out;
}

/* kind 0: cluster client, 1: Sentinel client. */
JNIEXPORT void JNICALL Java_io_cloudroute_Client_refresh0(JNIEnv *env, jclass cls, jint kind,
                                                          jlong h) {
  cr_status st = kind == 0 ? cr_client_refresh(CLIENT(h)) : cr_sentinel_client_refresh(SENTINEL(h));
  if (st != CR_OK) crj_throw(env, st);
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_Client_router0(JNIEnv *env, jclass cls, jlong h) {
  return CRJ_HANDLE(cr_client_get_router(CLIENT(h)));
}

#define CLIENT_STATS 21 /* ClientStats.FIELDS */

/* kind 0: a cluster client, 1: a sharded client (the same cr_client_stats). */
JNIEXPORT void JNICALL Java_io_cloudroute_Client_stats0(JNIEnv *env, jclass cls, jint kind, jlong h,
                                                        jlongArray out) {
  cr_client_stats s = CR_CLIENT_STATS_INIT;
  cr_status st =
      kind == 0 ? cr_client_get_stats(&s, CLIENT(h)) : cr_sharded_client_get_stats(&s, SHARDED(h));
  if (st != CR_OK) {
    crj_throw(env, st);
    return;
  }
  jlong v[CLIENT_STATS];
  int k = 0;
  v[k++] = (jlong)s.reads;
  for (int t = 0; t < CR_TIER_COUNT; ++t) v[k++] = (jlong)s.reads_by_tier[t];
  v[k++] = (jlong)s.writes;
  v[k++] = (jlong)s.fallbacks;
  v[k++] = (jlong)s.moved;
  v[k++] = (jlong)s.ask;
  v[k++] = (jlong)s.retries;
  v[k++] = (jlong)s.conn_errors;
  v[k++] = (jlong)s.timeouts;
  v[k++] = (jlong)s.server_errors;
  v[k++] = (jlong)s.refreshes;
  v[k++] = (jlong)s.refresh_failures;
  v[k++] = (jlong)s.connections;
  v[k++] = (jlong)s.hedges;
  v[k++] = (jlong)s.hedges_won;
  v[k++] = (jlong)s.hedges_denied;
  v[k++] = (jlong)s.poisoned;
  (*env)->SetLongArrayRegion(env, out, 0, CLIENT_STATS, v);
}

#define NODE_STATS 9

/* Per node of client h (kind 0: a cluster client, 1: a sharded client, 2: a
 * Sentinel client):
 * handle, port, reads, writes, errors, connections, latency_us, open, idle
 * in values; the host names in hosts[], copied here while the library still
 * holds them (a refresh may reclaim a node once this returns). */
JNIEXPORT jlongArray JNICALL Java_io_cloudroute_Client_nodeStats0(JNIEnv *env, jclass cls,
                                                                  jint kind, jlong h,
                                                                  jobjectArray hosts_out) {
  size_t cap = 16, needed = 0;
  cr_client_node_stats *s = NULL;
  cr_status st;
  for (;;) {
    free(s);
    s = malloc(cap * sizeof *s);
    if (s == NULL) {
      (*env)->ThrowNew(env, crj.oom, "libcloudroute: node stats");
      return NULL;
    }
    s[0] = (cr_client_node_stats)CR_CLIENT_NODE_STATS_INIT;
    st = kind == 0   ? cr_client_get_node_stats(s, cap, &needed, CLIENT(h))
         : kind == 1 ? cr_sharded_client_get_node_stats(s, cap, &needed, SHARDED(h))
                     : cr_sentinel_client_get_node_stats(s, cap, &needed, SENTINEL(h));
    if (st != CR_EBUFS) break;
    cap = needed;
  }
  jlongArray out = NULL;
  jobjectArray hosts = NULL;
  jlong *v = malloc((needed * NODE_STATS + 1) * sizeof(jlong));
  if (st != CR_OK) {
    crj_throw(env, st);
  } else if (v == NULL) {
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: node stats");
  } else if ((hosts = (*env)->NewObjectArray(env, (jsize)needed, crj.string_class, NULL)) != NULL) {
    for (size_t i = 0; i < needed; ++i) {
      jlong *o = v + i * NODE_STATS;
      o[0] = s[i].node_handle;
      o[1] = s[i].port;
      o[2] = (jlong)s[i].reads;
      o[3] = (jlong)s[i].writes;
      o[4] = (jlong)s[i].errors;
      o[5] = (jlong)s[i].connections;
      o[6] = s[i].latency_us;
      o[7] = s[i].open_connections;
      o[8] = s[i].idle_connections;
      jstring host = crj_string(env, s[i].host);
      if (host == NULL) break; /* OutOfMemoryError pending */
      (*env)->SetObjectArrayElement(env, hosts, (jsize)i, host);
      (*env)->DeleteLocalRef(env, host);
    }
    if (!(*env)->ExceptionCheck(env)) {
      out = (*env)->NewLongArray(env, (jsize)(needed * NODE_STATS));
      if (out != NULL) {
        (*env)->SetLongArrayRegion(env, out, 0, (jsize)(needed * NODE_STATS), v);
        (*env)->SetObjectArrayElement(env, hosts_out, 0, hosts);
      }
    }
  }
  free(v);
  free(s);
  return out;
}

/* ---- Sentinel client ---- */

JNIEXPORT void JNICALL Java_io_cloudroute_SentinelOptions_defaults(JNIEnv *env, jclass cls,
                                                                   jintArray u32, jlongArray u64) {
  crj_sentinel_options_defaults(env, u32, u64);
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_SentinelClient_create(JNIEnv *env, jclass cls, jlong cfg,
                                                                 jintArray u32, jlongArray u64,
                                                                 jobjectArray strs, jlong ring,
                                                                 jobjectArray names,
                                                                 jstring sentinels) {
  cr_sentinel_options o;
  cr_sentinel_options_init(&o, sizeof o);
  jint u[CRJ_SENTINEL_OPTIONS_U32];
  jlong w[CRJ_SENTINEL_OPTIONS_U64];
  if (!crj_need(env, names, "names") ||
      !crj_options_take(env, u32, u, CRJ_SENTINEL_OPTIONS_U32, u64, w, CRJ_SENTINEL_OPTIONS_U64) ||
      !crj_options_unsigned(env, u, crj_sentinel_options_u32_names, CRJ_SENTINEL_OPTIONS_U32, w,
                            crj_sentinel_options_u64_names, CRJ_SENTINEL_OPTIONS_U64))
    return 0;
  crj_sentinel_options_set(&o, u, w);
  char *s[CRJ_SENTINEL_OPTIONS_STRS] = {NULL};
  jsize n = (*env)->GetArrayLength(env, names);
  char **group_names = calloc((size_t)n + 1, sizeof(char *));
  char *sentinel_text = NULL;
  cr_sentinel_client *c = NULL;
  int ok = group_names != NULL && crj_fill_strings(env, strs, s, CRJ_SENTINEL_OPTIONS_STRS) &&
           crj_cstring(env, sentinels, &sentinel_text);
  for (jsize i = 0; ok && i < n; ++i) {
    jstring name = (jstring)(*env)->GetObjectArrayElement(env, names, i);
    ok = crj_cstring(env, name, &group_names[i]);
    (*env)->DeleteLocalRef(env, name);
  }
  if (ok) {
    crj_sentinel_options_set_strings(&o, s);
    cr_status st = cr_sentinel_client_new(
        &c, (const cr_config *)CRJ_PTR(cfg), &o, (const cr_ring *)CRJ_PTR(ring),
        (const char *const *)group_names, (size_t)n, sentinel_text);
    if (st != CR_OK) crj_throw(env, st);
  } else if (group_names == NULL) {
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: sentinel names");
  }
  for (int i = 0; i < CRJ_SENTINEL_OPTIONS_STRS; ++i) free(s[i]);
  for (jsize i = 0; group_names != NULL && i < n; ++i) free(group_names[i]);
  free(group_names);
  free(sentinel_text);
  return CRJ_HANDLE(c);
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_SentinelClient_groups0(JNIEnv *env, jclass cls,
                                                                  jlong h) {
  return CRJ_HANDLE(cr_sentinel_client_get_groups(SENTINEL(h)));
}

#define SENTINEL_STATS 13

JNIEXPORT void JNICALL Java_io_cloudroute_SentinelClient_stats0(JNIEnv *env, jclass cls, jlong h,
                                                                jlongArray out) {
  cr_sentinel_stats s = CR_SENTINEL_STATS_INIT;
  cr_status st = cr_sentinel_client_get_stats(&s, SENTINEL(h));
  if (st != CR_OK) {
    crj_throw(env, st);
    return;
  }
  jlong v[SENTINEL_STATS] = {
      s.subscribed,           (jlong)s.reads,         (jlong)s.writes,
      (jlong)s.fallbacks,     (jlong)s.retries,       (jlong)s.conn_errors,
      (jlong)s.timeouts,      (jlong)s.server_errors, (jlong)s.master_changes,
      (jlong)s.switch_events, (jlong)s.asks,          (jlong)s.ask_failures,
      (jlong)s.subscriptions};
  (*env)->SetLongArrayRegion(env, out, 0, SENTINEL_STATS, v);
}
