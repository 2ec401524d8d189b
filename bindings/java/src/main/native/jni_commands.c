/* JNI: the live cluster client's commands beyond one key — pipelines
 * (io.cloudroute.Pipeline), node-targeted commands, scripts and functions
 * (Client), SCAN (Scan, Script) and pinned connections (Transaction).
 * Conversion only: routing, grouping, redirects and NOSCRIPT recovery run in
 * the C library. Every argument is copied before a call that may block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jni_reply.h"

#define CLIENT(h) ((cr_client *)CRJ_PTR(h))
#define SHARDED(h) ((cr_sharded_client *)CRJ_PTR(h))

/* Call options of a timeout the Java side checked is not negative. */
static cr_call_options call_options(jint timeout_ms) {
  cr_call_options o;
  cr_call_options_init(&o, sizeof o);
  o.timeout_ms = (uint32_t)timeout_ms;
  return o;
}

/* Whether array holds at least n elements; else CR_EINVAL naming it. */
static int long_enough(JNIEnv *env, jarray array, jsize n, const char *what) {
  if (!crj_need(env, array, what)) return 0;
  if ((*env)->GetArrayLength(env, array) >= n) return 1;
  char msg[128];
  snprintf(msg, sizeof msg, "%s holds fewer entries than the commands", what);
  crj_throw_invalid(env, msg);
  return 0;
}

/* ---- pipelines ---- */

/* Queues command i: routed by its key key_index, or (key_index < 0) sent to
 * hosts[i]:port. Returns 0 with an exception pending. */
static int pipeline_queue(JNIEnv *env, cr_pipeline *p, const crj_args *a, jsize i, jint access,
                          jint key_index, jobjectArray hosts, jint port) {
  char msg[160];
  if (a->n == 0) {
    snprintf(msg, sizeof msg, "pipeline command %d has no arguments", (int)i);
    crj_throw_invalid(env, msg);
    return 0;
  }
  cr_status st;
  if (key_index < 0) {
    if (port < 1 || port > 65535) {
      crj_throw_invalid(env, "port outside 1-65535");
      return 0;
    }
    jstring host = (jstring)(*env)->GetObjectArrayElement(env, hosts, i);
    char *h = NULL;
    int ok = crj_need(env, host, "host") && crj_cstring(env, host, &h);
    (*env)->DeleteLocalRef(env, host);
    if (!ok) return 0;
    st = cr_pipeline_add_node(p, (cr_access)access, h, (uint16_t)port, a->n, a->ptrs, a->lens);
    free(h);
  } else {
    if ((size_t)key_index >= a->n) {
      snprintf(msg, sizeof msg, "pipeline command %d has no key at index %d", (int)i,
               (int)key_index);
      crj_throw_invalid(env, msg);
      return 0;
    }
    st = cr_pipeline_add(p, (cr_access)access, (size_t)key_index, a->n, a->ptrs, a->lens);
  }
  if (st != CR_OK) crj_throw(env, st);
  return st == CR_OK;
}

jobjectArray crj_pipeline_results(JNIEnv *env, cr_reply *const *replies, const cr_status *st,
                                  jsize n, jintArray statuses_out) {
  jobjectArray out = (*env)->NewObjectArray(env, n, crj.object_class, NULL);
  if (out == NULL) return NULL;
  jint *codes = malloc(((size_t)n + 1) * sizeof(jint));
  if (codes == NULL) {
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: pipeline results");
    return NULL;
  }
  for (jsize i = 0; i < n; ++i) {
    codes[i] = (jint)st[i];
    jobject v = st[i] == CR_OK ? crj_reply_to_java(env, replies[i])
                               : crj_string(env, cr_reply_get_string(replies[i], NULL));
    if ((*env)->ExceptionCheck(env)) break;
    (*env)->SetObjectArrayElement(env, out, i, v);
    (*env)->DeleteLocalRef(env, v);
  }
  if (!(*env)->ExceptionCheck(env)) (*env)->SetIntArrayRegion(env, statuses_out, 0, n, codes);
  free(codes);
  return (*env)->ExceptionCheck(env) ? NULL : out;
}

int crj_pipeline_build(JNIEnv *env, crj_pipeline *b, jint kind, jlong h, jintArray access,
                       jintArray key_index, jobjectArray hosts, jintArray ports,
                       jobjectArray argv) {
  memset(b, 0, sizeof *b);
  if (!crj_need(env, argv, "commands")) return 0;
  jsize n = (*env)->GetArrayLength(env, argv);
  if (!long_enough(env, access, n, "access") || !long_enough(env, key_index, n, "key indexes") ||
      !long_enough(env, hosts, n, "hosts") || !long_enough(env, ports, n, "ports")) {
    return 0;
  }
  jint *ints = malloc(((size_t)n * 3 + 1) * sizeof(jint));
  b->a = calloc((size_t)n + 1, sizeof *b->a);
  b->n = n;
  int ok = 0;
  if (ints == NULL || b->a == NULL) {
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: pipeline");
    goto done;
  }
  (*env)->GetIntArrayRegion(env, access, 0, n, ints);
  (*env)->GetIntArrayRegion(env, key_index, 0, n, ints + n);
  (*env)->GetIntArrayRegion(env, ports, 0, n, ints + 2 * n);
  cr_status s =
      kind == 0 ? cr_pipeline_new(&b->p, CLIENT(h)) : cr_sharded_pipeline_new(&b->p, SHARDED(h));
  if (s != CR_OK) {
    crj_throw(env, s);
    goto done;
  }
  for (jsize i = 0; i < n; ++i) {
    jobjectArray one = (jobjectArray)(*env)->GetObjectArrayElement(env, argv, i);
    int taken = crj_need(env, one, "a pipeline command") && crj_args_take(env, &b->a[i], one);
    (*env)->DeleteLocalRef(env, one);
    if (!taken) goto done;
    ++b->taken;
    if (ints[i] != CR_ACCESS_READ && ints[i] != CR_ACCESS_WRITE && ints[i] != CR_ACCESS_AUTO) {
      crj_throw_invalid(env, "access must be READ, WRITE or AUTO");
      goto done;
    }
    if (!pipeline_queue(env, b->p, &b->a[i], i, ints[i], ints[n + i], hosts, ints[2 * n + i])) {
      goto done;
    }
  }
  ok = 1;
done:
  free(ints);
  return ok;
}

void crj_pipeline_free(crj_pipeline *b) {
  cr_pipeline_free(b->p);
  for (jsize i = 0; i < b->taken; ++i) crj_args_free(&b->a[i]);
  free(b->a);
  memset(b, 0, sizeof *b);
}

/* Runs n commands at once on client h (kind 0: a cr_client, 1: a
 * cr_sharded_client): argv[i] (an Object[]), access[i], key_index[i] (< 0:
 * the node hosts[i]:ports[i]). Returns the results in order, statuses[i]
 * receiving each one's status. */
JNIEXPORT jobjectArray JNICALL Java_io_cloudroute_Pipeline_execute0(
    JNIEnv *env, jclass cls, jint kind, jlong h, jintArray access, jintArray key_index,
    jobjectArray hosts, jintArray ports, jobjectArray argv, jintArray statuses) {
  crj_pipeline b;
  if (!crj_pipeline_build(env, &b, kind, h, access, key_index, hosts, ports, argv) ||
      !long_enough(env, statuses, b.n, "statuses")) {
    crj_pipeline_free(&b);
    return NULL;
  }
  jsize n = b.n;
  cr_reply **replies = calloc((size_t)n + 1, sizeof *replies);
  cr_status *st = calloc((size_t)n + 1, sizeof *st);
  jobjectArray out = NULL;
  if (replies == NULL || st == NULL) {
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: pipeline");
  } else {
    size_t needed = 0;
    cr_status s = cr_pipeline_execute(replies, st, (size_t)n, &needed, b.p);
    if (n > 0 && replies[0] == NULL && s != CR_OK) {
      crj_throw(env, s); /* the call's own failure: no result in place */
    } else {
      out = crj_pipeline_results(env, replies, st, n, statuses);
    }
    for (jsize i = 0; i < n; ++i) cr_reply_free(replies[i]);
  }
  crj_pipeline_free(&b);
  free(replies);
  free(st);
  return out;
}

/* ---- node-targeted commands ---- */

/* A command on the nodes of target (cr_target; node "host:port" for
 * CR_TARGET_NODE) of client h (kind 0: a cluster client, 1: a sharded
 * client): 3 entries per node — its address, its status (a Long), its reply
 * or (failed) its message. */
JNIEXPORT jobjectArray JNICALL Java_io_cloudroute_Client_nodes0(JNIEnv *env, jclass cls, jint kind,
                                                                jlong h, jint timeout_ms,
                                                                jint target, jstring node,
                                                                jobjectArray argv) {
  crj_args a;
  char *name = NULL;
  if (!crj_need(env, argv, "args") || !crj_args_take(env, &a, argv)) return NULL;
  if (!crj_cstring(env, node, &name)) {
    crj_args_free(&a);
    return NULL;
  }
  cr_call_options o = call_options(timeout_ms);
  cr_node_replies *r = NULL;
  cr_status st = kind == 0 ? cr_client_command_nodes(&r, CLIENT(h), &o, (cr_target)target, name,
                                                     a.n, a.ptrs, a.lens)
                           : cr_sharded_client_command_nodes(&r, SHARDED(h), &o, (cr_target)target,
                                                             name, a.n, a.ptrs, a.lens);
  crj_args_free(&a);
  free(name);
  if (st != CR_OK) {
    crj_throw(env, st);
    return NULL;
  }
  size_t n = cr_node_replies_get_count(r);
  jobjectArray out = (*env)->NewObjectArray(env, (jsize)(3 * n), crj.object_class, NULL);
  for (size_t i = 0; out != NULL && i < n; ++i) {
    if ((*env)->PushLocalFrame(env, 4) != 0) break;
    cr_status s = cr_node_replies_get_status(r, i);
    jobject address = crj_string(env, cr_node_replies_get_address(r, i));
    jobject code = address == NULL ? NULL
                                   : (*env)->CallStaticObjectMethod(env, crj.long_class,
                                                                    crj.long_value_of, (jlong)s);
    jobject value = NULL;
    if (!(*env)->ExceptionCheck(env)) {
      value = s == CR_OK ? crj_reply_to_java(env, cr_node_replies_get_reply(r, i))
                         : crj_string(env, cr_node_replies_get_error(r, i));
    }
    if (!(*env)->ExceptionCheck(env)) {
      (*env)->SetObjectArrayElement(env, out, (jsize)(3 * i), address);
      (*env)->SetObjectArrayElement(env, out, (jsize)(3 * i + 1), code);
      (*env)->SetObjectArrayElement(env, out, (jsize)(3 * i + 2), value);
    }
    (*env)->PopLocalFrame(env, NULL);
    if ((*env)->ExceptionCheck(env)) break;
  }
  cr_node_replies_free(r);
  return (*env)->ExceptionCheck(env) ? NULL : out;
}

/* ---- scripts and functions ---- */

JNIEXPORT jlong JNICALL Java_io_cloudroute_Script_create0(JNIEnv *env, jclass cls, jobject body) {
  crj_bytes b;
  if (!crj_need(env, body, "body") || !crj_bytes_object(env, &b, body, 1)) return 0;
  cr_script *s = NULL;
  cr_status st = cr_script_new(&s, b.data, b.len);
  crj_bytes_release(env, &b);
  if (st != CR_OK) crj_throw(env, st);
  return CRJ_HANDLE(s);
}

JNIEXPORT jstring JNICALL Java_io_cloudroute_Script_sha0(JNIEnv *env, jclass cls, jlong s) {
  return crj_string(env, cr_script_get_sha((const cr_script *)CRJ_PTR(s)));
}

/* keys and args of EVALSHA / FCALL copied; 0 with an exception pending. */
static int keys_and_args(JNIEnv *env, crj_args *k, crj_args *a, jobjectArray keys,
                         jobjectArray args) {
  if (!crj_need(env, keys, "keys") || !crj_need(env, args, "args")) return 0;
  if (!crj_args_take(env, k, keys)) return 0;
  if (!crj_args_take(env, a, args)) {
    crj_args_free(k);
    return 0;
  }
  return 1;
}

JNIEXPORT jobject JNICALL Java_io_cloudroute_Client_eval0(JNIEnv *env, jclass cls, jlong h,
                                                          jint timeout_ms, jlong script,
                                                          jboolean read_only, jobjectArray keys,
                                                          jobjectArray args) {
  crj_args k, a;
  if (!keys_and_args(env, &k, &a, keys, args)) return NULL;
  cr_call_options o = call_options(timeout_ms);
  cr_reply *reply = NULL;
  cr_status st = cr_client_eval(&reply, CLIENT(h), &o, (const cr_script *)CRJ_PTR(script),
                                read_only ? 1 : 0, k.n, k.ptrs, k.lens, a.n, a.ptrs, a.lens);
  crj_args_free(&k);
  crj_args_free(&a);
  return crj_reply_result(env, st, reply);
}

JNIEXPORT jobject JNICALL Java_io_cloudroute_Client_fcall0(JNIEnv *env, jclass cls, jlong h,
                                                           jint timeout_ms, jstring function,
                                                           jboolean read_only, jobjectArray keys,
                                                           jobjectArray args) {
  char *fn = NULL;
  crj_args k, a;
  if (!crj_need(env, function, "function") || !crj_cstring(env, function, &fn)) return NULL;
  if (!keys_and_args(env, &k, &a, keys, args)) {
    free(fn);
    return NULL;
  }
  cr_call_options o = call_options(timeout_ms);
  cr_reply *reply = NULL;
  cr_status st = cr_client_fcall(&reply, CLIENT(h), &o, fn, read_only ? 1 : 0, k.n, k.ptrs, k.lens,
                                 a.n, a.ptrs, a.lens);
  free(fn);
  crj_args_free(&k);
  crj_args_free(&a);
  return crj_reply_result(env, st, reply);
}

/* ---- SCAN ---- */

/* A scan of client h (kind 0: a cluster client, 1: a sharded client). */
JNIEXPORT jlong JNICALL Java_io_cloudroute_Scan_create0(JNIEnv *env, jclass cls, jint kind, jlong h,
                                                        jobject match, jint count, jstring type,
                                                        jint timeout_ms) {
  if (!crj_unsigned(env, count, "count") || !crj_unsigned(env, timeout_ms, "timeout_ms")) return 0;
  crj_bytes m = {0};
  char *t = NULL;
  if (match != NULL && !crj_bytes_object(env, &m, match, 1)) return 0;
  if (!crj_cstring(env, type, &t)) {
    if (match != NULL) crj_bytes_release(env, &m);
    return 0;
  }
  cr_scan_options o;
  cr_scan_options_init(&o, sizeof o);
  o.match = match != NULL ? m.data : NULL;
  o.match_len = match != NULL ? m.len : 0;
  o.count = (uint32_t)count;
  o.type = t;
  o.timeout_ms = (uint32_t)timeout_ms;
  cr_scan *s = NULL;
  cr_status st =
      kind == 0 ? cr_scan_new(&s, CLIENT(h), &o) : cr_sharded_scan_new(&s, SHARDED(h), &o);
  if (match != NULL) crj_bytes_release(env, &m);
  free(t);
  if (st != CR_OK) crj_throw(env, st);
  return CRJ_HANDLE(s);
}

/* The next batch (a List of byte[] keys, maybe empty), or null once done. */
JNIEXPORT jobject JNICALL Java_io_cloudroute_Scan_next0(JNIEnv *env, jclass cls, jlong s) {
  cr_reply *batch = NULL;
  cr_status st = cr_scan_next(&batch, (cr_scan *)CRJ_PTR(s));
  if (st == CR_OK && batch == NULL) return NULL;
  return crj_reply_result(env, st, batch);
}

JNIEXPORT jstring JNICALL Java_io_cloudroute_Scan_address0(JNIEnv *env, jclass cls, jlong s) {
  return crj_string(env, cr_scan_get_address((const cr_scan *)CRJ_PTR(s)));
}

/* ---- pinned connections ---- */

JNIEXPORT jlong JNICALL Java_io_cloudroute_Transaction_pin0(JNIEnv *env, jclass cls, jlong h,
                                                            jobject key, jint slot) {
  cr_pinned *p = NULL;
  cr_status st;
  if (key == NULL) {
    if (slot < 0 || slot >= CR_SLOT_COUNT) {
      crj_throw_invalid(env, "slot outside 0-16383");
      return 0;
    }
    st = cr_client_pin_slot(&p, CLIENT(h), (uint16_t)slot);
  } else {
    crj_bytes b;
    if (!crj_bytes_object(env, &b, key, 1)) return 0;
    st = cr_client_pin(&p, CLIENT(h), b.data, b.len);
    crj_bytes_release(env, &b);
  }
  if (st != CR_OK) crj_throw(env, st);
  return CRJ_HANDLE(p);
}

JNIEXPORT jobject JNICALL Java_io_cloudroute_Transaction_command0(JNIEnv *env, jclass cls, jlong p,
                                                                  jint timeout_ms,
                                                                  jintArray key_indexes,
                                                                  jobjectArray argv) {
  if (!crj_need(env, key_indexes, "key indexes") || !crj_need(env, argv, "args")) return NULL;
  jsize nkeys = (*env)->GetArrayLength(env, key_indexes);
  jint *ki = malloc(((size_t)nkeys + 1) * sizeof(jint));
  size_t *idx = malloc(((size_t)nkeys + 1) * sizeof(size_t));
  if (ki == NULL || idx == NULL) {
    free(ki);
    free(idx);
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: key indexes");
    return NULL;
  }
  (*env)->GetIntArrayRegion(env, key_indexes, 0, nkeys, ki);
  jobject out = NULL;
  crj_args a;
  int ok = 1;
  for (jsize i = 0; ok && i < nkeys; ++i) {
    ok = crj_unsigned(env, ki[i], "key index");
    idx[i] = (size_t)ki[i];
  }
  if (ok && crj_args_take(env, &a, argv)) {
    cr_call_options o = call_options(timeout_ms);
    cr_reply *reply = NULL;
    cr_status st = cr_pinned_command(&reply, (cr_pinned *)CRJ_PTR(p), &o, (size_t)nkeys, idx, a.n,
                                     a.ptrs, a.lens);
    crj_args_free(&a);
    out = crj_reply_result(env, st, reply);
  }
  free(ki);
  free(idx);
  return out;
}

JNIEXPORT jint JNICALL Java_io_cloudroute_Transaction_slot0(JNIEnv *env, jclass cls, jlong p) {
  return (jint)cr_pinned_get_slot((const cr_pinned *)CRJ_PTR(p));
}
