/* JNI: io.cloudroute.ShardedClient (the pre-sharded client over
 * cr_sharded_client_*) and the Sentinel client's batches
 * (cr_sentinel_client_mget / _mset / _del / _exists, _expire). Conversion
 * only: placement, grouping per shard or group and failure handling run in
 * the C library. Every argument is copied before a call that may block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jni_options.h"
#include "jni_reply.h"

#define SHARDED(h) ((cr_sharded_client *)CRJ_PTR(h))
#define SENTINEL(h) ((cr_sentinel_client *)CRJ_PTR(h))

/* ---- arguments ---- */

/* A String[] copied to NUL-terminated C strings (*out holds n + 1 entries,
 * NULL-terminated; free with free_strings). 0 with an exception pending on
 * a null array or element ("<what>[i] is null") or no memory. */
static int take_strings(JNIEnv *env, jobjectArray array, const char *what, char ***out,
                        size_t *n_out) {
  *out = NULL;
  *n_out = 0;
  if (!crj_need(env, array, what)) return 0;
  jsize n = (*env)->GetArrayLength(env, array);
  char **s = calloc((size_t)n + 1, sizeof(char *));
  if (s == NULL) {
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: strings");
    return 0;
  }
  int ok = 1;
  for (jsize i = 0; ok && i < n; ++i) {
    jstring one = (jstring)(*env)->GetObjectArrayElement(env, array, i);
    char name[64];
    snprintf(name, sizeof name, "%s[%d]", what, (int)i);
    ok = crj_need(env, one, name) && crj_cstring(env, one, &s[i]);
    (*env)->DeleteLocalRef(env, one);
  }
  *out = s;
  *n_out = (size_t)n;
  return ok;
}

static void free_strings(char **s, size_t n) {
  for (size_t i = 0; s != NULL && i < n; ++i) free(s[i]);
  free(s);
}

int crj_batch_take(JNIEnv *env, jint op, jobjectArray keys, jobjectArray values, crj_args *k,
                   crj_args *v) {
  if (op < CRJ_OP_MGET || op > CRJ_OP_EXISTS) {
    crj_throw_invalid(env, "unknown batch operation");
    return 0;
  }
  if (!crj_need(env, keys, "keys") || (op == CRJ_OP_MSET && !crj_need(env, values, "values")))
    return 0;
  if (!crj_args_take(env, k, keys)) return 0;
  v->n = 0;
  if (op != CRJ_OP_MSET) return 1;
  if (!crj_args_take(env, v, values)) {
    crj_args_free(k);
    return 0;
  }
  if (k->n == v->n) return 1;
  char msg[160];
  snprintf(msg, sizeof msg, "MSET needs as many values as keys: %zu keys, %zu values", k->n, v->n);
  crj_args_free(k);
  crj_args_free(v);
  crj_throw_invalid(env, msg);
  return 0;
}

static jobject boxed_long(JNIEnv *env, int64_t v) {
  return (*env)->CallStaticObjectMethod(env, crj.long_class, crj.long_value_of, (jlong)v);
}

/* ---- the pre-sharded client ---- */

JNIEXPORT void JNICALL Java_io_cloudroute_ShardedOptions_defaults(JNIEnv *env, jclass cls,
                                                                  jintArray u32, jlongArray u64) {
  crj_sharded_options_defaults(env, u32, u64);
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_ShardedClient_create(JNIEnv *env, jclass cls, jlong cfg,
                                                                jintArray u32, jlongArray u64,
                                                                jobjectArray strs, jlong ring,
                                                                jobjectArray servers,
                                                                jint log_level) {
  cr_sharded_options o;
  cr_sharded_options_init(&o, sizeof o);
  jint u[CRJ_SHARDED_OPTIONS_U32];
  jlong w[CRJ_SHARDED_OPTIONS_U64];
  if (!crj_options_take(env, u32, u, CRJ_SHARDED_OPTIONS_U32, u64, w, CRJ_SHARDED_OPTIONS_U64) ||
      !crj_options_unsigned(env, u, crj_sharded_options_u32_names, CRJ_SHARDED_OPTIONS_U32, w,
                            crj_sharded_options_u64_names, CRJ_SHARDED_OPTIONS_U64))
    return 0;
  crj_sharded_options_set(&o, u, w);
  char *s[CRJ_SHARDED_OPTIONS_STRS] = {NULL};
  char **addresses = NULL;
  size_t n = 0;
  cr_sharded_client *c = NULL;
  if (crj_fill_strings(env, strs, s, CRJ_SHARDED_OPTIONS_STRS) &&
      take_strings(env, servers, "servers", &addresses, &n) &&
      crj_log_route(env, (cr_config *)CRJ_PTR(cfg), log_level)) {
    crj_sharded_options_set_strings(&o, s);
    cr_status st =
        cr_sharded_client_new(&c, (const cr_config *)CRJ_PTR(cfg), &o,
                              (const cr_ring *)CRJ_PTR(ring), (const char *const *)addresses, n);
    if (st != CR_OK) crj_throw(env, st);
  }
  for (int i = 0; i < CRJ_SHARDED_OPTIONS_STRS; ++i) free(s[i]);
  free_strings(addresses, n);
  return CRJ_HANDLE(c);
}

JNIEXPORT void JNICALL Java_io_cloudroute_ShardedClient_setServers0(JNIEnv *env, jclass cls,
                                                                    jlong h, jobjectArray servers) {
  char **addresses = NULL;
  size_t n = 0;
  if (take_strings(env, servers, "servers", &addresses, &n)) {
    cr_status st = cr_sharded_client_set_servers(SHARDED(h), (const char *const *)addresses, n);
    if (st != CR_OK) crj_throw(env, st);
  }
  free_strings(addresses, n);
}

/* A command on one key (cr_sharded_client_command); timeout_ms > 0 replaces
 * the instance's tier timeout for this call (checked not negative in Java). */
JNIEXPORT jobject JNICALL Java_io_cloudroute_ShardedClient_command0(JNIEnv *env, jclass cls,
                                                                    jlong h, jint timeout_ms,
                                                                    jint access, jint key_index,
                                                                    jobjectArray argv) {
  crj_args a;
  if (!crj_need(env, argv, "args") || !crj_args_take_keyed(env, &a, argv, key_index)) return NULL;
  cr_call_options opts;
  cr_call_options_init(&opts, sizeof opts);
  opts.timeout_ms = (uint32_t)timeout_ms;
  cr_reply *reply = NULL;
  cr_status st = cr_sharded_client_command(&reply, SHARDED(h), &opts, (cr_access)access,
                                           (size_t)key_index, a.n, a.ptrs, a.lens);
  crj_args_free(&a);
  return crj_reply_result(env, st, reply);
}

/* MGET (the List of values), DEL and EXISTS (a Long), MSET (null): one
 * command per shard, every shard at once. */
JNIEXPORT jobject JNICALL Java_io_cloudroute_ShardedClient_multi0(JNIEnv *env, jclass cls, jlong h,
                                                                  jint op, jobjectArray keys,
                                                                  jobjectArray values) {
  crj_args k, v;
  if (!crj_batch_take(env, op, keys, values, &k, &v)) return NULL;
  cr_sharded_client *c = SHARDED(h);
  jobject out = NULL;
  cr_reply *reply = NULL;
  int64_t count = 0;
  cr_status st;
  switch (op) {
    case CRJ_OP_MGET:
      st = cr_sharded_client_mget(&reply, c, k.ptrs, k.lens, k.n);
      out = crj_reply_result(env, st, reply);
      break;
    case CRJ_OP_MSET:
      st = cr_sharded_client_mset(c, k.ptrs, k.lens, v.ptrs, v.lens, k.n);
      if (st != CR_OK) crj_throw(env, st);
      crj_args_free(&v);
      break;
    default:
      st = (op == CRJ_OP_DEL ? cr_sharded_client_del : cr_sharded_client_exists)(&count, c, k.ptrs,
                                                                                 k.lens, k.n);
      if (st != CR_OK)
        crj_throw(env, st);
      else
        out = boxed_long(env, count);
  }
  crj_args_free(&k);
  return out;
}

/* EVALSHA of script on its keys' shard (keys on two shards: CR_EINVAL). */
JNIEXPORT jobject JNICALL Java_io_cloudroute_ShardedClient_eval0(JNIEnv *env, jclass cls, jlong h,
                                                                 jint timeout_ms, jlong script,
                                                                 jboolean read_only,
                                                                 jobjectArray keys,
                                                                 jobjectArray args) {
  crj_args k, a;
  if (!crj_need(env, keys, "keys") || !crj_need(env, args, "args")) return NULL;
  if (!crj_args_take(env, &k, keys)) return NULL;
  if (!crj_args_take(env, &a, args)) {
    crj_args_free(&k);
    return NULL;
  }
  cr_call_options opts;
  cr_call_options_init(&opts, sizeof opts);
  opts.timeout_ms = (uint32_t)timeout_ms;
  cr_reply *reply = NULL;
  cr_status st =
      cr_sharded_client_eval(&reply, SHARDED(h), &opts, (const cr_script *)CRJ_PTR(script),
                             read_only ? 1 : 0, k.n, k.ptrs, k.lens, a.n, a.ptrs, a.lens);
  crj_args_free(&k);
  crj_args_free(&a);
  return crj_reply_result(env, st, reply);
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_ShardedClient_groups0(JNIEnv *env, jclass cls, jlong h) {
  return CRJ_HANDLE(cr_sharded_client_get_groups(SHARDED(h)));
}

/* ---- the Sentinel client's batches ---- */

jobjectArray crj_batch_results(JNIEnv *env, jint op, cr_reply *const *replies,
                               const cr_status *statuses, size_t n, jintArray statuses_out) {
  jint *codes = calloc(n + 1, sizeof *codes);
  if (codes == NULL) {
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: batch");
    return NULL;
  }
  jobjectArray out = (*env)->NewObjectArray(env, (jsize)n, crj.object_class, NULL);
  for (size_t i = 0; out != NULL && i < n; ++i) {
    codes[i] = (jint)statuses[i];
    if (op != CRJ_OP_MGET) continue;
    jobject one = statuses[i] == CR_OK ? crj_reply_to_java(env, replies[i])
                                       : crj_string(env, cr_reply_get_string(replies[i], NULL));
    if ((*env)->ExceptionCheck(env)) break;
    (*env)->SetObjectArrayElement(env, out, (jsize)i, one);
    (*env)->DeleteLocalRef(env, one);
  }
  if (out != NULL && !(*env)->ExceptionCheck(env))
    (*env)->SetIntArrayRegion(env, statuses_out, 0, (jsize)n, codes);
  free(codes);
  return (*env)->ExceptionCheck(env) ? NULL : out;
}

/* MGET, DEL, EXISTS or MSET over many keys, one command per group. Returns
 * one result per key (MGET: the value, or the failed group's message as a
 * String; the others: null), statuses[i] receiving key i's status, count[0]
 * the DEL / EXISTS count and message[0] (null when every key succeeded) the
 * library's message naming every failed group. Throws only when nothing was
 * sent (bad arguments). */
JNIEXPORT jobjectArray JNICALL Java_io_cloudroute_SentinelClient_batch0(
    JNIEnv *env, jclass cls, jlong h, jint op, jobjectArray keys, jobjectArray values,
    jintArray statuses, jlongArray count, jobjectArray message) {
  crj_args k, v;
  if (!crj_need(env, statuses, "statuses") || !crj_need(env, count, "count") ||
      !crj_need(env, message, "message") || !crj_batch_take(env, op, keys, values, &k, &v))
    return NULL;
  cr_sentinel_client *c = SENTINEL(h);
  cr_reply **replies = calloc(k.n + 1, sizeof *replies);
  cr_status *st = calloc(k.n + 1, sizeof *st);
  jobjectArray out = NULL;
  if (replies == NULL || st == NULL) {
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: batch");
    goto done;
  }
  int64_t n_out = 0;
  cr_status r;
  switch (op) {
    case CRJ_OP_MGET:
      r = cr_sentinel_client_mget(replies, st, c, k.ptrs, k.lens, k.n);
      break;
    case CRJ_OP_MSET:
      r = cr_sentinel_client_mset(st, c, k.ptrs, k.lens, v.ptrs, v.lens, k.n);
      break;
    default:
      r = (op == CRJ_OP_DEL ? cr_sentinel_client_del : cr_sentinel_client_exists)(
          &n_out, st, c, k.ptrs, k.lens, k.n);
  }
  int sent = r == CR_OK;
  for (size_t i = 0; i < k.n; ++i) sent |= st[i] != CR_OK;
  if (!sent) {
    crj_throw(env, r); /* refused before anything was sent: no result in place */
    goto done;
  }
  jstring text = r == CR_OK ? NULL : crj_string(env, cr_last_error());
  if ((*env)->ExceptionCheck(env)) goto done;
  out = crj_batch_results(env, op, replies, st, k.n, statuses);
  if (out != NULL) {
    jlong counted = (jlong)n_out;
    (*env)->SetLongArrayRegion(env, count, 0, 1, &counted);
    (*env)->SetObjectArrayElement(env, message, 0, text);
  }
done:
  for (size_t i = 0; replies != NULL && i < k.n; ++i) cr_reply_free(replies[i]);
  free(replies);
  free(st);
  crj_args_free(&k);
  if (op == CRJ_OP_MSET) crj_args_free(&v);
  return out;
}

/* PEXPIRE key ms on the key's group's master: whether the time to live was
 * set (false: no such key). */
JNIEXPORT jboolean JNICALL Java_io_cloudroute_SentinelClient_expire0(JNIEnv *env, jclass cls,
                                                                     jlong h, jobject key,
                                                                     jlong ms) {
  if (ms <= 0) {
    crj_throw_invalid(env, "expire: the time to live must be positive");
    return JNI_FALSE;
  }
  crj_bytes b;
  if (!crj_need(env, key, "key") || !crj_bytes_object(env, &b, key, 1)) return JNI_FALSE;
  int set = 0;
  cr_status st = cr_sentinel_client_expire(&set, SENTINEL(h), b.data, b.len, (uint64_t)ms);
  crj_bytes_release(env, &b);
  if (st != CR_OK) crj_throw(env, st);
  return set ? JNI_TRUE : JNI_FALSE;
}
