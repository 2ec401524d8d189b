/* JNI: the live client's log events into SLF4J, through
 * io.cloudroute.NativeLog.log(int level, byte[][] parts).
 *
 * The C callback runs on the thread of the event: a Java thread inside a
 * Client call, or the client's refresher thread. A thread the JVM does not
 * know is attached as a daemon (it never keeps the JVM alive) on its first
 * event and detached when it ends (a pthread key's destructor):
 * crj_thread_env, which the asynchronous calls' completions use too. Text goes to
 * Java as UTF-8 bytes, decoded there: server error texts are not always valid
 * modified UTF-8. */
#include <pthread.h>
#include <string.h>

#include "jni_common.h"

static JavaVM *g_vm;
static jclass g_native_log;
static jmethodID g_native_log_log;
static pthread_key_t g_attached; /* non-NULL on threads attached here */

static void detach_at_exit(void *unused) {
  (void)unused;
  (*g_vm)->DetachCurrentThread(g_vm);
}

int crj_log_init(JavaVM *vm, JNIEnv *env) {
  g_vm = vm;
  if (pthread_key_create(&g_attached, detach_at_exit) != 0) return 0;
  jclass local = (*env)->FindClass(env, "io/cloudroute/NativeLog");
  if (local == NULL) return 0;
  g_native_log = (jclass)(*env)->NewGlobalRef(env, local);
  (*env)->DeleteLocalRef(env, local);
  if (g_native_log == NULL) return 0;
  g_native_log_log = (*env)->GetStaticMethodID(env, g_native_log, "log", "(I[[B)V");
  return g_native_log_log != NULL;
}

JNIEnv *crj_thread_env(void) {
  JNIEnv *env = NULL;
  jint got = (*g_vm)->GetEnv(g_vm, (void **)&env, JNI_VERSION_1_8);
  if (got == JNI_OK) return env;
  if (got != JNI_EDETACHED) return NULL;
  JavaVMAttachArgs args = {JNI_VERSION_1_8, (char *)"cloudroute-native", NULL};
  if ((*g_vm)->AttachCurrentThreadAsDaemon(g_vm, (void **)&env, &args) != JNI_OK) return NULL;
  pthread_setspecific(g_attached, g_vm);
  return env;
}

jbyteArray crj_utf8_bytes(JNIEnv *env, const char *s) {
  jsize len = (jsize)strlen(s);
  jbyteArray a = (*env)->NewByteArray(env, len);
  if (a != NULL) (*env)->SetByteArrayRegion(env, a, 0, len, (const jbyte *)s);
  return a;
}

/* parts = {message, key0, value0, key1, value1, ...}; NULL with an exception
 * pending when memory ran out. */
static jobjectArray event_parts(JNIEnv *env, const char *message, const cr_log_field *fields,
                                size_t n) {
  jobjectArray parts = (*env)->NewObjectArray(env, (jsize)(1 + 2 * n), crj.byte_array_class, NULL);
  for (size_t i = 0; parts != NULL && i < 1 + 2 * n; ++i) {
    const char *s = i == 0       ? message
                    : i % 2 == 1 ? fields[(i - 1) / 2].key
                                 : fields[(i - 1) / 2].value;
    jbyteArray b = crj_utf8_bytes(env, s);
    if (b == NULL) return NULL;
    (*env)->SetObjectArrayElement(env, parts, (jsize)i, b);
    (*env)->DeleteLocalRef(env, b);
    if ((*env)->ExceptionCheck(env)) return NULL;
  }
  return parts;
}

static void to_slf4j(cr_log_level level, const char *message, const cr_log_field *fields, size_t n,
                     void *payload) {
  (void)payload;
  JNIEnv *env = crj_thread_env();
  if (env == NULL) return;
  /* An exception already pending on a Java caller's thread is set aside
   * and thrown again after the event. */
  jthrowable pending = (*env)->ExceptionOccurred(env);
  if (pending != NULL) (*env)->ExceptionClear(env);
  if ((*env)->PushLocalFrame(env, 4) == 0) {
    jobjectArray parts = event_parts(env, message, fields, n);
    if (parts != NULL) {
      (*env)->CallStaticVoidMethod(env, g_native_log, g_native_log_log, (jint)level, parts);
    }
    /* A failing logging backend (or no memory) never fails the client's call:
     * the event is dropped. */
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    (*env)->PopLocalFrame(env, NULL);
  } else {
    (*env)->ExceptionClear(env);
  }
  if (pending != NULL) {
    (*env)->Throw(env, pending);
    (*env)->DeleteLocalRef(env, pending);
  }
}

int crj_log_route(JNIEnv *env, cr_config *cfg, jint min_level) {
  if (min_level < 0) return 1;
  cr_status st = cr_config_set_log_callback(cfg, (cr_log_level)min_level, &to_slf4j, NULL);
  if (st != CR_OK) crj_throw(env, st);
  return st == CR_OK;
}
