/* JNI: asynchronous calls of the live clients (io.cloudroute.AsyncCall) on
 * cr_client_submit, cr_sentinel_client_submit, cr_sharded_client_submit, the
 * multi-key submits of the cluster and pre-sharded clients
 * (cr_client_submit_mget / _mset / _del / _exists, cr_sharded_client_submit_*),
 * the Sentinel batches (cr_sentinel_client_submit_mget …) and
 * cr_pipeline_submit: one mechanism for all of them. No thread per call: the
 * library runs the completion on its engine thread (or one of its few worker threads) — threads the
 * JVM does not know, attached once each as daemons (crj_thread_env) and detached when they end.
 *
 * Each call's AsyncCall is held by a global reference from the submit to its
 * completion: the completion converts the reply to Java objects, calls
 * AsyncCall.done (which only hands the call to its Executor: no user code
 * runs on the engine thread), and deletes the reference — exactly once, as
 * the library runs each accepted call's callback exactly once (a reply, an
 * error, or "cancelled:" when the client is freed with the call in flight).
 * A submit the library refuses deletes the reference at once and throws. */
#include "jni_reply.h"

#define CLIENT(h) ((cr_client *)CRJ_PTR(h))
#define SENTINEL(h) ((cr_sentinel_client *)CRJ_PTR(h))
#define SHARDED(h) ((cr_sharded_client *)CRJ_PTR(h))

/* The clients of submit0 and multi0 (AsyncKeyClient's submit kinds). */
enum { KIND_CLUSTER = 0, KIND_SENTINEL = 1, KIND_SHARDED = 2 };

/* AsyncCall and its static done(Object call, int status, Object value,
 * byte[] message), set by AsyncCall's static initializer (init0). */
static jclass g_async_call;
static jmethodID g_async_done;

JNIEXPORT void JNICALL Java_io_cloudroute_AsyncCall_init0(JNIEnv *env, jclass cls) {
  g_async_call = (jclass)(*env)->NewGlobalRef(env, cls);
  if (g_async_call == NULL) return;
  g_async_done =
      (*env)->GetStaticMethodID(env, cls, "done", "(Ljava/lang/Object;ILjava/lang/Object;[B)V");
}

/* What an outcome holds: a reply (cr_completion_fn), a pipeline's n results
 * (cr_pipeline_completion_fn) or a Sentinel batch's n per-key results
 * (cr_batch_completion_fn). */
enum { OUT_REPLY, OUT_PIPELINE, OUT_BATCH };

/* One call's outcome as the library gives it. */
typedef struct outcome {
  int kind;
  cr_status st;
  const cr_reply *reply;
  size_t n;
  cr_reply *const *replies;
  const cr_status *statuses;
  int64_t count; /* OUT_BATCH: DEL's / EXISTS's sum */
} outcome;

/* A pipeline's results as Object[] {Object[] results, int[] statuses}; NULL
 * with an exception pending (no memory). */
static jobject pipeline_value(JNIEnv *env, const outcome *o) {
  jsize n = (jsize)o->n;
  jintArray statuses = (*env)->NewIntArray(env, n);
  if (statuses == NULL) return NULL;
  jobjectArray results = crj_pipeline_results(env, o->replies, o->statuses, n, statuses);
  if (results == NULL) return NULL;
  jobjectArray pair = (*env)->NewObjectArray(env, 2, crj.object_class, NULL);
  if (pair == NULL) return NULL;
  (*env)->SetObjectArrayElement(env, pair, 0, results);
  (*env)->SetObjectArrayElement(env, pair, 1, statuses);
  return pair;
}

/* A Sentinel batch's outcome as Object[] {Object[] results, int[] statuses,
 * Long count, String message}, as SentinelClient.batch0 gives them (results
 * by crj_batch_results; message the library's, naming every failed group,
 * null when every key succeeded). NULL with an exception pending. */
static jobject batch_value(JNIEnv *env, const outcome *o) {
  jsize n = (jsize)o->n;
  jstring text = o->st == CR_OK ? NULL : crj_string(env, cr_last_error());
  if ((*env)->ExceptionCheck(env)) return NULL;
  jintArray statuses = (*env)->NewIntArray(env, n);
  if (statuses == NULL) return NULL;
  /* Only an MGET has per-key values: the library gives the other kinds no
   * replies (AsyncCall knows which batch it submitted). */
  jint op = o->replies != NULL ? CRJ_OP_MGET : CRJ_OP_DEL;
  jobjectArray results = crj_batch_results(env, op, o->replies, o->statuses, o->n, statuses);
  if (results == NULL) return NULL;
  jobject count =
      (*env)->CallStaticObjectMethod(env, crj.long_class, crj.long_value_of, (jlong)o->count);
  if ((*env)->ExceptionCheck(env)) return NULL;
  jobjectArray out = (*env)->NewObjectArray(env, 4, crj.object_class, NULL);
  if (out == NULL) return NULL;
  (*env)->SetObjectArrayElement(env, out, 0, results);
  (*env)->SetObjectArrayElement(env, out, 1, statuses);
  (*env)->SetObjectArrayElement(env, out, 2, count);
  (*env)->SetObjectArrayElement(env, out, 3, text);
  return out;
}

/* Whether a batch's outcome is its per-key results (a key failed, or none
 * did and the call succeeded), as the blocking batch: a failed status with
 * every key succeeded is the call's own failure, the status alone. */
static int batch_has_results(const outcome *o) {
  if (o->st == CR_OK) return 1;
  for (size_t i = 0; i < o->n; ++i)
    if (o->statuses[i] != CR_OK) return 1;
  return 0;
}

/* Hands the outcome to AsyncCall.done on this (attached) thread: the reply
 * (or a pipeline's results, whose failed commands are results in place, or
 * a batch's per-key results) as Java objects on CR_OK, else the status with
 * cr_last_error()'s text. */
static void hand_over(JNIEnv *env, jobject call, const outcome *o) {
  cr_status st = o->st;
  if (o->kind == OUT_PIPELINE || (o->kind == OUT_BATCH && batch_has_results(o))) st = CR_OK;
  jobject value = NULL;
  const char *text = NULL;
  if (st == CR_OK) {
    value = o->kind == OUT_PIPELINE ? pipeline_value(env, o)
            : o->kind == OUT_BATCH  ? batch_value(env, o)
                                    : crj_reply_to_java(env, o->reply);
    if ((*env)->ExceptionCheck(env)) {
      (*env)->ExceptionClear(env);
      st = CR_ENOMEM;
      value = NULL;
      text = "out of Java memory converting the reply";
    }
  } else {
    text = cr_last_error();
  }
  jbyteArray message = NULL;
  if (text != NULL) {
    message = crj_utf8_bytes(env, text);
    /* No memory for the text: the status alone (the exception's message
     * is then the status's name). */
    if (message == NULL) (*env)->ExceptionClear(env);
  }
  (*env)->CallStaticVoidMethod(env, g_async_call, g_async_done, call, (jint)st, value, message);
}

/* Completes call (a global reference, deleted here) with o: runs once per
 * accepted call, on a library thread. */
static void deliver(jobject call, const outcome *o) {
  JNIEnv *env = crj_thread_env();
  if (env == NULL) return; /* the JVM is going away: nothing is left to complete */
  /* Library threads carry no Java exception; a Java thread would get its
   * own back after the completion. */
  jthrowable pending = (*env)->ExceptionOccurred(env);
  if (pending != NULL) (*env)->ExceptionClear(env);
  if ((*env)->PushLocalFrame(env, 16) == 0) {
    hand_over(env, call, o);
    /* AsyncCall.done catches what its Executor throws; only an Error (no
     * memory) can reach here, and it must not stay pending on this thread. */
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    (*env)->PopLocalFrame(env, NULL);
  } else {
    (*env)->ExceptionClear(env);
  }
  (*env)->DeleteGlobalRef(env, call);
  if (pending != NULL) {
    (*env)->Throw(env, pending);
    (*env)->DeleteLocalRef(env, pending);
  }
}

/* The C completion of a single-key or multi-key call. */
static void on_done(void *ud, cr_status st, cr_reply *reply) {
  outcome o = {OUT_REPLY, st, reply, 0, NULL, NULL, 0};
  deliver((jobject)ud, &o);
  cr_reply_free(reply);
}

/* The C completion of a submitted pipeline: every reply is freed here. */
static void on_pipeline_done(void *ud, cr_status st, size_t n, cr_reply *const *replies,
                             const cr_status *statuses) {
  outcome o = {OUT_PIPELINE, st, NULL, n, replies, statuses, 0};
  deliver((jobject)ud, &o);
  for (size_t i = 0; i < n; ++i) cr_reply_free(replies[i]);
}

/* The C completion of a submitted Sentinel batch: MGET's replies are freed
 * here (the other kinds have none). */
static void on_batch_done(void *ud, cr_status st, size_t n, cr_reply *const *replies,
                          const cr_status *statuses, int64_t count) {
  outcome o = {OUT_BATCH, st, NULL, n, replies, statuses, count};
  deliver((jobject)ud, &o);
  for (size_t i = 0; replies != NULL && i < n; ++i) cr_reply_free(replies[i]);
}

/* A global reference holding call from its submit to its completion; NULL
 * with an exception pending. */
static jobject hold(JNIEnv *env, jobject call) {
  jobject ref = (*env)->NewGlobalRef(env, call);
  if (ref == NULL) (*env)->ThrowNew(env, crj.oom, "libcloudroute: asynchronous call");
  return ref;
}

/* After a submit: a refused one will never complete, so its reference is
 * released here and its status thrown. */
static void submitted(JNIEnv *env, cr_status st, jobject ref) {
  if (st == CR_OK) return;
  (*env)->DeleteGlobalRef(env, ref);
  crj_throw(env, st);
}

/* Submits a command on one key (args[key_index]; access as Client.command,
 * CR_ACCESS_AUTO included, which the Sentinel and pre-sharded clients
 * refuse) on client h (kind KIND_CLUSTER, KIND_SENTINEL or KIND_SHARDED);
 * call (an AsyncCall) is completed once, later. Throws (and call is never
 * completed) when the arguments or the library refuse the submit. */
JNIEXPORT void JNICALL Java_io_cloudroute_AsyncCall_submit0(JNIEnv *env, jclass cls, jint kind,
                                                            jlong h, jint timeout_ms, jint access,
                                                            jint key_index, jobjectArray argv,
                                                            jobject call) {
  if (!crj_need(env, call, "call")) return;
  crj_args a;
  if (!crj_args_take_keyed(env, &a, argv, key_index)) return;
  cr_call_options opts;
  cr_call_options_init(&opts, sizeof opts);
  opts.timeout_ms = (uint32_t)timeout_ms;
  jobject ref = hold(env, call);
  if (ref == NULL) {
    crj_args_free(&a);
    return;
  }
  cr_status st;
  switch (kind) {
    case KIND_CLUSTER:
      st = cr_client_submit(CLIENT(h), &opts, (cr_access)access, (size_t)key_index, a.n, a.ptrs,
                            a.lens, &on_done, ref);
      break;
    case KIND_SENTINEL:
      st = cr_sentinel_client_submit(SENTINEL(h), &opts, (cr_access)access, (size_t)key_index, a.n,
                                     a.ptrs, a.lens, &on_done, ref);
      break;
    default:
      st = cr_sharded_client_submit(SHARDED(h), &opts, (cr_access)access, (size_t)key_index, a.n,
                                    a.ptrs, a.lens, &on_done, ref);
  }
  crj_args_free(&a);
  submitted(env, st, ref);
}

/* The multi-key submits of the cluster client and the pre-sharded client. */
static cr_status submit_multi(jint kind, jlong h, jint op, const crj_args *k, const crj_args *v,
                              jobject ref) {
  if (kind == KIND_CLUSTER) {
    cr_client *c = CLIENT(h);
    switch (op) {
      case CRJ_OP_MGET:
        return cr_client_submit_mget(c, k->ptrs, k->lens, k->n, &on_done, ref);
      case CRJ_OP_DEL:
        return cr_client_submit_del(c, k->ptrs, k->lens, k->n, &on_done, ref);
      case CRJ_OP_MSET:
        return cr_client_submit_mset(c, k->ptrs, k->lens, v->ptrs, v->lens, k->n, &on_done, ref);
      default:
        return cr_client_submit_exists(c, k->ptrs, k->lens, k->n, &on_done, ref);
    }
  }
  cr_sharded_client *c = SHARDED(h);
  switch (op) {
    case CRJ_OP_MGET:
      return cr_sharded_client_submit_mget(c, k->ptrs, k->lens, k->n, &on_done, ref);
    case CRJ_OP_DEL:
      return cr_sharded_client_submit_del(c, k->ptrs, k->lens, k->n, &on_done, ref);
    case CRJ_OP_MSET:
      return cr_sharded_client_submit_mset(c, k->ptrs, k->lens, v->ptrs, v->lens, k->n, &on_done,
                                           ref);
    default:
      return cr_sharded_client_submit_exists(c, k->ptrs, k->lens, k->n, &on_done, ref);
  }
}

/* The keys (and MSET's values) of a multi-key call, checked and copied as
 * the blocking call of the client kind takes them (Client.multi0: any keys,
 * "MSET: as many values as keys"; the pre-sharded and Sentinel clients:
 * crj_batch_take). 0 with an exception pending (nothing to free). */
static int take_multi(JNIEnv *env, jint kind, jint op, jobjectArray keys, jobjectArray values,
                      crj_args *k, crj_args *v) {
  v->n = 0;
  if (kind != KIND_CLUSTER) return crj_batch_take(env, op, keys, values, k, v);
  if (!crj_args_take(env, k, keys)) return 0;
  if (op != CRJ_OP_MSET) return 1;
  if (crj_args_take(env, v, values)) {
    if (k->n == v->n) return 1;
    crj_args_free(v);
    crj_throw_invalid(env, "MSET: as many values as keys");
  }
  crj_args_free(k);
  return 0;
}

/* Submits op (CRJ_OP_MGET, _DEL, _MSET of keys and values, _EXISTS) of keys
 * on any slots or shards, on client h (kind KIND_CLUSTER or KIND_SHARDED);
 * the library copies them before it returns. */
JNIEXPORT void JNICALL Java_io_cloudroute_AsyncCall_multi0(JNIEnv *env, jclass cls, jint kind,
                                                           jlong h, jint op, jobjectArray keys,
                                                           jobjectArray values, jobject call) {
  if (!crj_need(env, call, "call")) return;
  crj_args k, v;
  if (!take_multi(env, kind, op, keys, values, &k, &v)) return;
  jobject ref = hold(env, call);
  if (ref != NULL) submitted(env, submit_multi(kind, h, op, &k, &v, ref), ref);
  if (op == CRJ_OP_MSET) crj_args_free(&v);
  crj_args_free(&k);
}

/* Submits the Sentinel batch op (as SentinelClient.batch0 takes it: the
 * same checks and exceptions) of keys on client h; its completion is the
 * per-key outcome of batch_value. */
JNIEXPORT void JNICALL Java_io_cloudroute_AsyncCall_batch0(JNIEnv *env, jclass cls, jlong h,
                                                           jint op, jobjectArray keys,
                                                           jobjectArray values, jobject call) {
  if (!crj_need(env, call, "call")) return;
  crj_args k, v;
  if (!crj_batch_take(env, op, keys, values, &k, &v)) return;
  jobject ref = hold(env, call);
  if (ref != NULL) {
    cr_sentinel_client *c = SENTINEL(h);
    cr_status st;
    switch (op) {
      case CRJ_OP_MGET:
        st = cr_sentinel_client_submit_mget(c, k.ptrs, k.lens, k.n, &on_batch_done, ref);
        break;
      case CRJ_OP_DEL:
        st = cr_sentinel_client_submit_del(c, k.ptrs, k.lens, k.n, &on_batch_done, ref);
        break;
      case CRJ_OP_MSET:
        st = cr_sentinel_client_submit_mset(c, k.ptrs, k.lens, v.ptrs, v.lens, k.n, &on_batch_done,
                                            ref);
        break;
      default:
        st = cr_sentinel_client_submit_exists(c, k.ptrs, k.lens, k.n, &on_batch_done, ref);
    }
    submitted(env, st, ref);
  }
  if (op == CRJ_OP_MSET) crj_args_free(&v);
  crj_args_free(&k);
}

/* Submits Pipeline's queue (as Pipeline.execute0 takes it) on client h
 * (kind 1, a sharded client, is refused by the library: CR_EINVAL); the
 * library copies the commands before it returns. */
JNIEXPORT void JNICALL Java_io_cloudroute_AsyncCall_pipeline0(JNIEnv *env, jclass cls, jint kind,
                                                              jlong h, jintArray access,
                                                              jintArray key_index,
                                                              jobjectArray hosts, jintArray ports,
                                                              jobjectArray argv, jobject call) {
  if (!crj_need(env, call, "call")) return;
  crj_pipeline b;
  if (crj_pipeline_build(env, &b, kind, h, access, key_index, hosts, ports, argv)) {
    jobject ref = hold(env, call);
    if (ref != NULL) submitted(env, cr_pipeline_submit(b.p, &on_pipeline_done, ref), ref);
  }
  crj_pipeline_free(&b);
}
