/* JNI: asynchronous calls of the live client (io.cloudroute.AsyncCall) on
 * cr_client_submit. No thread per call: the library runs the completion on
 * its engine thread (or one of its few worker threads) — threads the JVM
 * does not know, attached once each as daemons (crj_thread_env) and
 * detached when they end.
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

/* Hands the outcome to AsyncCall.done on this (attached) thread: the reply
 * as Java objects on CR_OK, else the status with cr_last_error()'s text. */
static void hand_over(JNIEnv *env, jobject call, cr_status st, const cr_reply *reply) {
  jobject value = NULL;
  const char *text = NULL;
  if (st == CR_OK) {
    value = crj_reply_to_java(env, reply);
    if ((*env)->ExceptionCheck(env)) {
      (*env)->ExceptionClear(env);
      st = CR_ENOMEM;
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

/* The C completion: runs once per accepted call, on a library thread. */
static void on_done(void *ud, cr_status st, cr_reply *reply) {
  jobject call = (jobject)ud;
  JNIEnv *env = crj_thread_env();
  if (env == NULL) {
    /* The JVM is going away: nothing is left to complete. */
    cr_reply_free(reply);
    return;
  }
  /* Library threads carry no Java exception; a Java thread would get its
   * own back after the completion. */
  jthrowable pending = (*env)->ExceptionOccurred(env);
  if (pending != NULL) (*env)->ExceptionClear(env);
  if ((*env)->PushLocalFrame(env, 8) == 0) {
    hand_over(env, call, st, reply);
    /* AsyncCall.done catches what its Executor throws; only an Error (no
     * memory) can reach here, and it must not stay pending on this thread. */
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    (*env)->PopLocalFrame(env, NULL);
  } else {
    (*env)->ExceptionClear(env);
  }
  cr_reply_free(reply);
  (*env)->DeleteGlobalRef(env, call);
  if (pending != NULL) {
    (*env)->Throw(env, pending);
    (*env)->DeleteLocalRef(env, pending);
  }
}

/* Submits a command on one key (args[key_index]; access as Client.command,
 * CR_ACCESS_AUTO included); call (an AsyncCall) is completed once, later.
 * Throws (and call is never completed) when the arguments or the library
 * refuse the submit. */
JNIEXPORT void JNICALL Java_io_cloudroute_AsyncCall_submit0(JNIEnv *env, jclass cls, jlong h,
                                                            jint timeout_ms, jint access,
                                                            jint key_index, jobjectArray argv,
                                                            jobject call) {
  if (!crj_need(env, call, "call")) return;
  crj_args a;
  if (!crj_args_take_keyed(env, &a, argv, key_index)) return;
  cr_call_options opts;
  cr_call_options_init(&opts, sizeof opts);
  opts.timeout_ms = (uint32_t)timeout_ms;
  jobject ref = (*env)->NewGlobalRef(env, call);
  if (ref == NULL) {
    crj_args_free(&a);
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: asynchronous call");
    return;
  }
  cr_status st = cr_client_submit(CLIENT(h), &opts, (cr_access)access, (size_t)key_index, a.n,
                                  a.ptrs, a.lens, &on_done, ref);
  crj_args_free(&a);
  if (st != CR_OK) {
    /* done will not run: the reference is released here. */
    (*env)->DeleteGlobalRef(env, ref);
    crj_throw(env, st);
  }
}
