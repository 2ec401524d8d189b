/* JNI: io.cloudroute.Client and SentinelClient (the live clients). Calls that
 * may block on the network never hold a critical region: keys are copied. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jni_reply.h"

#define CLIENT(h) ((cr_client *)CRJ_PTR(h))
#define SENTINEL(h) ((cr_sentinel_client *)CRJ_PTR(h))

/* ---- options ---- */

static int fill_strings(JNIEnv *env, jobjectArray strs, char **out, int n) {
  for (int i = 0; i < n; ++i) out[i] = NULL;
  for (int i = 0; i < n; ++i) {
    jstring s = (jstring)(*env)->GetObjectArrayElement(env, strs, i);
    int ok = crj_cstring(env, s, &out[i]);
    (*env)->DeleteLocalRef(env, s);
    if (!ok) return 0;
  }
  return 1;
}

#define CLIENT_U32 25 /* ClientOptions.u32, in this order */
#define CLIENT_U64 4  /* ClientOptions.u64: three sizes, hedge_percentile's bits */
#define CLIENT_STRS 8

static void client_options_get(const cr_client_options *o, jint *u, jlong *w) {
  int k = 0;
  u[k++] = (jint)o->connect_timeout_ms;
  for (int t = 0; t < CR_TIER_COUNT; ++t) u[k++] = (jint)o->command_timeout_ms[t];
  u[k++] = (jint)o->pool_size;
  u[k++] = (jint)o->pool_idle_ms;
  u[k++] = (jint)o->refresh_interval_ms;
  u[k++] = (jint)o->refresh_min_gap_ms;
  u[k++] = (jint)o->max_redirects;
  u[k++] = (jint)o->max_retries;
  u[k++] = (jint)o->retry_backoff_ms;
  u[k++] = (jint)o->failures_before_refresh;
  u[k++] = (jint)o->tcp_keepalive_s;
  u[k++] = (jint)o->tcp_user_timeout_ms;
  u[k++] = (jint)o->max_reply_elements;
  u[k++] = (jint)o->replica_max_lag_s;
  u[k++] = (jint)o->hedge_mode;
  u[k++] = (jint)o->hedge_delay_ms;
  u[k++] = (jint)o->hedge_min_delay_ms;
  u[k++] = (jint)o->hedge_budget_percent;
  u[k++] = (jint)o->read_your_writes_ms;
  u[k++] = (jint)o->db;
  u[k++] = (jint)o->shared_connections;
  w[0] = (jlong)o->max_bulk_len;
  w[1] = (jlong)o->max_reply_bytes;
  w[2] = (jlong)o->replica_max_lag_bytes;
  memcpy(&w[3], &o->hedge_percentile, sizeof w[3]);
}

/* cr_client_options' names of ClientOptions.u32 and .u64 (the first three:
 * sizes), in that order, for the messages. */
static const char *const client_u32_names[CLIENT_U32] = {
    "connect_timeout_ms",  "command_timeout_ms",      "command_timeout_ms",  "command_timeout_ms",
    "command_timeout_ms",  "command_timeout_ms",      "pool_size",           "pool_idle_ms",
    "refresh_interval_ms", "refresh_min_gap_ms",      "max_redirects",       "max_retries",
    "retry_backoff_ms",    "failures_before_refresh", "tcp_keepalive_s",     "tcp_user_timeout_ms",
    "max_reply_elements",  "replica_max_lag_s",       "hedge_mode",          "hedge_delay_ms",
    "hedge_min_delay_ms",  "hedge_budget_percent",    "read_your_writes_ms", "db",
    "shared_connections"};
static const char *const client_u64_names[3] = {"max_bulk_len", "max_reply_bytes",
                                                "replica_max_lag_bytes"};

/* A Java int or long option is refused when negative (it would reach C as a
 * huge unsigned value), with the Python binding's message; the C library
 * judges every other range. */
static int options_unsigned(JNIEnv *env, const jint *u, const char *const *names, int n) {
  for (int i = 0; i < n; ++i) {
    if (!crj_unsigned(env, u[i], names[i])) return 0;
  }
  return 1;
}

static int sizes_unsigned(JNIEnv *env, const jlong *w) {
  for (int i = 0; i < 3; ++i) {
    if (w[i] < 0) {
      char msg[128];
      snprintf(msg, sizeof msg, "%s must be in 0 .. 2**64-1", client_u64_names[i]);
      crj_throw_invalid(env, msg);
      return 0;
    }
  }
  return 1;
}

static void client_options_set(cr_client_options *o, const jint *u, const jlong *w) {
  int k = 0;
  o->connect_timeout_ms = (uint32_t)u[k++];
  for (int t = 0; t < CR_TIER_COUNT; ++t) o->command_timeout_ms[t] = (uint32_t)u[k++];
  o->pool_size = (uint32_t)u[k++];
  o->pool_idle_ms = (uint32_t)u[k++];
  o->refresh_interval_ms = (uint32_t)u[k++];
  o->refresh_min_gap_ms = (uint32_t)u[k++];
  o->max_redirects = (uint32_t)u[k++];
  o->max_retries = (uint32_t)u[k++];
  o->retry_backoff_ms = (uint32_t)u[k++];
  o->failures_before_refresh = (uint32_t)u[k++];
  o->tcp_keepalive_s = (uint32_t)u[k++];
  o->tcp_user_timeout_ms = (uint32_t)u[k++];
  o->max_reply_elements = (uint32_t)u[k++];
  o->replica_max_lag_s = (uint32_t)u[k++];
  o->hedge_mode = (cr_hedge_mode)u[k++]; /* the library refuses a value out of range */
  o->hedge_delay_ms = (uint32_t)u[k++];
  o->hedge_min_delay_ms = (uint32_t)u[k++];
  o->hedge_budget_percent = (uint32_t)u[k++];
  o->read_your_writes_ms = (uint32_t)u[k++];
  o->db = (uint32_t)u[k++];
  o->shared_connections = (uint32_t)u[k++];
  o->max_bulk_len = (uint64_t)w[0];
  o->max_reply_bytes = (uint64_t)w[1];
  o->replica_max_lag_bytes = (uint64_t)w[2];
  memcpy(&o->hedge_percentile, &w[3], sizeof o->hedge_percentile);
}

JNIEXPORT void JNICALL Java_io_cloudroute_ClientOptions_defaults(JNIEnv *env, jclass cls,
                                                                 jintArray u32, jlongArray u64) {
  cr_client_options o;
  cr_client_options_init(&o, sizeof o);
  jint u[CLIENT_U32];
  jlong w[CLIENT_U64];
  client_options_get(&o, u, w);
  (*env)->SetIntArrayRegion(env, u32, 0, CLIENT_U32, u);
  (*env)->SetLongArrayRegion(env, u64, 0, CLIENT_U64, w);
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_Client_create(JNIEnv *env, jclass cls, jlong cfg,
                                                         jstring seeds, jintArray u32,
                                                         jlongArray u64, jobjectArray strs,
                                                         jboolean tls, jboolean tls_verify,
                                                         jint log_level) {
  cr_client_options o;
  cr_client_options_init(&o, sizeof o);
  jint u[CLIENT_U32];
  jlong w[CLIENT_U64];
  if (!crj_need(env, u32, "u32") || !crj_need(env, u64, "u64")) return 0;
  (*env)->GetIntArrayRegion(env, u32, 0, CLIENT_U32, u);
  (*env)->GetLongArrayRegion(env, u64, 0, CLIENT_U64, w);
  if ((*env)->ExceptionCheck(env)) return 0;
  if (!options_unsigned(env, u, client_u32_names, CLIENT_U32) || !sizes_unsigned(env, w)) return 0;
  client_options_set(&o, u, w);
  char *s[CLIENT_STRS] = {NULL};
  char *seed_text = NULL;
  cr_client *c = NULL;
  cr_status st = CR_OK;
  if (fill_strings(env, strs, s, CLIENT_STRS) && crj_cstring(env, seeds, &seed_text) &&
      crj_log_route(env, (cr_config *)CRJ_PTR(cfg), log_level)) {
    o.username = s[0];
    o.password = s[1];
    o.client_name = s[2];
    o.tls_ca_file = s[3];
    o.tls_ca_dir = s[4];
    o.tls_cert_file = s[5];
    o.tls_key_file = s[6];
    o.tls_server_name = s[7];
    o.tls = tls ? 1 : 0;
    o.tls_verify = tls_verify ? 1 : 0;
    st = cr_client_new(&c, (const cr_config *)CRJ_PTR(cfg), &o, seed_text);
    if (st != CR_OK) crj_throw(env, st);
  }
  for (int i = 0; i < CLIENT_STRS; ++i) free(s[i]);
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

/* cr_client_get_metrics_text as a String, growing the buffer while the text
 * grows between the size query and the copy. */
JNIEXPORT jstring JNICALL Java_io_cloudroute_Client_metrics0(JNIEnv *env, jclass cls, jlong h) {
  size_t needed = 0;
  cr_status st = cr_client_get_metrics_text(NULL, 0, &needed, CLIENT(h));
  char *buf = NULL;
  while (st == CR_EBUFS) {
    char *grown = realloc(buf, needed);
    if (grown == NULL) {
      free(buf);
      (*env)->ThrowNew(env, crj.oom, "libcloudroute: metrics text");
      return NULL;
    }
    buf = grown;
    st = cr_client_get_metrics_text(buf, needed, &needed, CLIENT(h));
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

JNIEXPORT void JNICALL Java_io_cloudroute_Client_stats0(JNIEnv *env, jclass cls, jlong h,
                                                        jlongArray out) {
  cr_client_stats s = CR_CLIENT_STATS_INIT;
  cr_status st = cr_client_get_stats(&s, CLIENT(h));
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

/* Per node: handle, port, reads, writes, errors, connections, latency_us,
 * open, idle in values; the host names in hosts[], copied here while the
 * library still holds them (a refresh may reclaim a node once this returns). */
JNIEXPORT jlongArray JNICALL Java_io_cloudroute_Client_nodeStats0(JNIEnv *env, jclass cls, jlong h,
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
    st = cr_client_get_node_stats(s, cap, &needed, CLIENT(h));
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

#define SENTINEL_U32 15
#define SENTINEL_STRS 5

static void sentinel_options_get(const cr_sentinel_options *o, jint *u) {
  int k = 0;
  u[k++] = (jint)o->connect_timeout_ms;
  for (int t = 0; t < CR_TIER_COUNT; ++t) u[k++] = (jint)o->command_timeout_ms[t];
  u[k++] = (jint)o->sentinel_timeout_ms;
  u[k++] = (jint)o->reask_interval_ms;
  u[k++] = (jint)o->pool_size;
  u[k++] = (jint)o->pool_idle_ms;
  u[k++] = (jint)o->max_retries;
  u[k++] = (jint)o->retry_backoff_ms;
  u[k++] = (jint)o->tcp_keepalive_s;
  u[k++] = (jint)o->tcp_user_timeout_ms;
  u[k++] = (jint)o->db;
}

JNIEXPORT void JNICALL Java_io_cloudroute_SentinelOptions_defaults(JNIEnv *env, jclass cls,
                                                                   jintArray u32) {
  cr_sentinel_options o;
  cr_sentinel_options_init(&o, sizeof o);
  jint u[SENTINEL_U32];
  sentinel_options_get(&o, u);
  (*env)->SetIntArrayRegion(env, u32, 0, SENTINEL_U32, u);
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_SentinelClient_create(JNIEnv *env, jclass cls, jlong cfg,
                                                                 jintArray u32, jobjectArray strs,
                                                                 jlong ring, jobjectArray names,
                                                                 jstring sentinels) {
  cr_sentinel_options o;
  cr_sentinel_options_init(&o, sizeof o);
  jint u[SENTINEL_U32];
  if (!crj_need(env, u32, "u32") || !crj_need(env, names, "names")) return 0;
  (*env)->GetIntArrayRegion(env, u32, 0, SENTINEL_U32, u);
  if ((*env)->ExceptionCheck(env)) return 0;
  static const char *const sentinel_u32_names[SENTINEL_U32] = {
      "connect_timeout_ms",  "command_timeout_ms",  "command_timeout_ms",
      "command_timeout_ms",  "command_timeout_ms",  "command_timeout_ms",
      "sentinel_timeout_ms", "reask_interval_ms",   "pool_size",
      "pool_idle_ms",        "max_retries",         "retry_backoff_ms",
      "tcp_keepalive_s",     "tcp_user_timeout_ms", "db"};
  if (!options_unsigned(env, u, sentinel_u32_names, SENTINEL_U32)) return 0;
  int k = 0;
  o.connect_timeout_ms = (uint32_t)u[k++];
  for (int t = 0; t < CR_TIER_COUNT; ++t) o.command_timeout_ms[t] = (uint32_t)u[k++];
  o.sentinel_timeout_ms = (uint32_t)u[k++];
  o.reask_interval_ms = (uint32_t)u[k++];
  o.pool_size = (uint32_t)u[k++];
  o.pool_idle_ms = (uint32_t)u[k++];
  o.max_retries = (uint32_t)u[k++];
  o.retry_backoff_ms = (uint32_t)u[k++];
  o.tcp_keepalive_s = (uint32_t)u[k++];
  o.tcp_user_timeout_ms = (uint32_t)u[k++];
  o.db = (uint32_t)u[k++];
  char *s[SENTINEL_STRS] = {NULL};
  jsize n = (*env)->GetArrayLength(env, names);
  char **group_names = calloc((size_t)n + 1, sizeof(char *));
  char *sentinel_text = NULL;
  cr_sentinel_client *c = NULL;
  int ok = group_names != NULL && fill_strings(env, strs, s, SENTINEL_STRS) &&
           crj_cstring(env, sentinels, &sentinel_text);
  for (jsize i = 0; ok && i < n; ++i) {
    jstring name = (jstring)(*env)->GetObjectArrayElement(env, names, i);
    ok = crj_cstring(env, name, &group_names[i]);
    (*env)->DeleteLocalRef(env, name);
  }
  if (ok) {
    o.username = s[0];
    o.password = s[1];
    o.sentinel_username = s[2];
    o.sentinel_password = s[3];
    o.client_name = s[4];
    cr_status st = cr_sentinel_client_new(
        &c, (const cr_config *)CRJ_PTR(cfg), &o, (const cr_ring *)CRJ_PTR(ring),
        (const char *const *)group_names, (size_t)n, sentinel_text);
    if (st != CR_OK) crj_throw(env, st);
  } else if (group_names == NULL) {
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: sentinel names");
  }
  for (int i = 0; i < SENTINEL_STRS; ++i) free(s[i]);
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
