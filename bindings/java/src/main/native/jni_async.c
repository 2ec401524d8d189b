/* JNI: asynchronous calls of the live clients (io.cloudroute.AsyncCall) on
 * cr_client_submit, cr_sentinel_client_submit, cr_client_submit_mget / _mset
 * / _del / _exists and cr_pipeline_submit: one mechanism for all of them. No thread per call: the
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

/* One call's outcome as the library gives it: a reply (cr_completion_fn) or
 * a pipeline's n results (cr_pipeline_completion_fn: pipeline set). */
typedef struct outcome {
  int pipeline;
  cr_status st;
  const cr_reply *reply;
  size_t n;
  cr_reply *const *replies;
  const cr_status *statuses;
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

/* Hands the outcome to AsyncCall.done on this (attached) thread: the reply
 * (or a pipeline's results, whose failed commands are results in place) as
 * Java objects on CR_OK, else the status with cr_last_error()'s text. */
static void hand_over(JNIEnv *env, jobject call, const outcome *o) {
  cr_status st = o->pipeline ? CR_OK : o->st;
  jobject value = NULL;
  const char *text = NULL;
  if (st == CR_OK) {
    value = o->pipeline ? pipeline_value(env, o) : crj_reply_to_java(env, o->reply);
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
  outcome o = {0, st, reply, 0, NULL, NULL};
  deliver((jobject)ud, &o);
  cr_reply_free(reply);
}

/* The C completion of a submitted pipeline: every reply is freed here. */
static void on_pipeline_done(void *ud, cr_status st, size_t n, cr_reply *const *replies,
                             const cr_status *statuses) {
  outcome o = {1, st, NULL, n, replies, statuses};
  deliver((jobject)ud, &o);
  for (size_t i = 0; i < n; ++i) cr_reply_free(replies[i]);
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
 * CR_ACCESS_AUTO included, which a Sentinel client refuses) on client h
 * (kind 0: a cluster client, 1: a Sentinel client); call (an AsyncCall) is
 * completed once, later. Throws (and call is never completed) when the
 * arguments or the library refuse the submit. */
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
  cr_status st =
      kind == 0 ? cr_client_submit(CLIENT(h), &opts, (cr_access)access, (size_t)key_index, a.n,
                                   a.ptrs, a.lens, &on_done, ref)
                : cr_sentinel_client_submit(SENTINEL(h), &opts, (cr_access)access,
                                            (size_t)key_index, a.n, a.ptrs, a.lens, &on_done, ref);
  crj_args_free(&a);
  submitted(env, st, ref);
}

/* Submits op (0 MGET, 1 DEL, 2 MSET of keys and values, 3 EXISTS) of keys
 * in any slots; the library copies them before it returns. */
JNIEXPORT void JNICALL Java_io_cloudroute_AsyncCall_multi0(JNIEnv *env, jclass cls, jlong h,
                                                           jint op, jobjectArray keys,
                                                           jobjectArray values, jobject call) {
  if (!crj_need(env, call, "call")) return;
  crj_args k, v = {0};
  if (!crj_args_take(env, &k, keys)) return;
  if (op == 2 && !crj_args_take(env, &v, values)) {
    crj_args_free(&k);
    return;
  }
  if (op == 2 && k.n != v.n) {
    crj_throw_invalid(env, "MSET: as many values as keys");
  } else {
    jobject ref = hold(env, call);
    if (ref != NULL) {
      cr_client *c = CLIENT(h);
      cr_status st;
      switch (op) {
        case 0:
          st = cr_client_submit_mget(c, k.ptrs, k.lens, k.n, &on_done, ref);
          break;
        case 1:
          st = cr_client_submit_del(c, k.ptrs, k.lens, k.n, &on_done, ref);
          break;
        case 2:
          st = cr_client_submit_mset(c, k.ptrs, k.lens, v.ptrs, v.lens, k.n, &on_done, ref);
          break;
        default:
          st = cr_client_submit_exists(c, k.ptrs, k.lens, k.n, &on_done, ref);
      }
      submitted(env, st, ref);
    }
  }
  if (op == 2) crj_args_free(&v);
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
