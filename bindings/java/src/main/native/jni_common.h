/* Shared helpers of the JNI glue: errors, key bytes, strings, cached classes.
 * The glue calls only the public C API (cloudroute.h). */
#ifndef CLOUDROUTE_JNI_COMMON_H
#define CLOUDROUTE_JNI_COMMON_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudroute.h"

/* Classes and methods looked up once, in JNI_OnLoad. */
typedef struct crj_cache {
  jclass exception;       /* io.cloudroute.CloudRouteException */
  jmethodID exception_of; /* static CloudRouteException of(int, String) */
  jclass array_list;
  jmethodID array_list_new; /* ArrayList(int) */
  jmethodID list_add;       /* boolean add(Object) */
  jclass long_class;
  jmethodID long_value_of;
  jclass boolean_class;
  jmethodID boolean_value_of;
  jclass double_class;
  jmethodID double_value_of;
  jclass big_integer;
  jmethodID big_integer_new; /* BigInteger(String) */
  jclass reply_error;
  jmethodID reply_error_new; /* ReplyError(String) */
  jclass string_class;
  jclass object_class;
  jclass byte_array_class;
  jclass oom;
  jclass message;        /* io.cloudroute.Message */
  jmethodID message_new; /* Message(int, int, byte[], byte[], byte[], byte[], byte[]) */
} crj_cache;

extern crj_cache crj;

/* Throws the CloudRouteException of status with cr_last_error()'s message. */
void crj_throw(JNIEnv *env, cr_status status);
/* Throws a CloudRouteException(CR_EINVAL) with msg. */
void crj_throw_invalid(JNIEnv *env, const char *msg);
/* The checks every entry point makes before any Get* call on an argument
 * (JNI reads a null array or string as a crash, a negative int as a huge
 * unsigned one): 1 when ref is not null / v is not negative, else 0 with a
 * CloudRouteException(CR_EINVAL) pending — "<what> is null", or "<what> must
 * be in 0..4294967295, not -1" as the Python binding says. */
int crj_need(JNIEnv *env, const void *ref, const char *what);
int crj_unsigned(JNIEnv *env, jint v, const char *what);
/* A new Java String from NUL-terminated UTF-8 (NULL gives null). */
jstring crj_string(JNIEnv *env, const char *utf8);

/* Key bytes taken from a byte[] (a critical region: no JNI call and nothing
 * that blocks until crj_bytes_release) or from a String (its UTF-8 encoding,
 * in a stack buffer when short). */
#define CRJ_STACK_KEY 256
typedef struct crj_bytes {
  const void *data;
  size_t len;
  jbyteArray array; /* set while a critical region is open */
  void *critical;
  char *heap; /* set when the bytes did not fit in buf */
  char buf[CRJ_STACK_KEY * 3];
} crj_bytes;

/* byte[] key: a short one copied to the stack, a long one read in a critical
 * region. Returns 0 (with an exception pending) on a
 * null array ("<what> is null") or a bad (off, len). */
int crj_bytes_critical(JNIEnv *env, crj_bytes *b, jbyteArray array, jint off, jint len,
                       const char *what);
/* byte[] copied (for calls that may block, e.g. network I/O). */
int crj_bytes_copy(JNIEnv *env, crj_bytes *b, jbyteArray array, const char *what);
/* String as UTF-8 (as String.getBytes(UTF_8): an unpaired surrogate is '?').
 * what names the argument in the message for null ("key", "text"...). */
int crj_bytes_utf8(JNIEnv *env, crj_bytes *b, jstring s, const char *what);
/* Either of the above for an Object that is a String or a byte[]; copy
 * selects crj_bytes_copy over the critical region for arrays. */
int crj_bytes_object(JNIEnv *env, crj_bytes *b, jobject key, int copy);
void crj_bytes_release(JNIEnv *env, crj_bytes *b);

/* A NUL-terminated UTF-8 copy of a String for names (malloc'ed; NULL for
 * null). Returns 0 with an exception pending on failure; *out NULL for a
 * null string. Free with free(). */
int crj_cstring(JNIEnv *env, jstring s, char **out);

/* n keys packed back to back in a byte[] (key i ends at ends[i]), as the
 * (keys, lens) arrays of the C batch calls. crj_packed_open enters a critical
 * region over data: no JNI call until crj_packed_close. Returns 0 with an
 * exception pending on bad ends or no memory. */
typedef struct crj_packed {
  jbyteArray data;
  void *critical;
  const void **keys;
  size_t *lens;
  size_t n;
} crj_packed;

int crj_packed_open(JNIEnv *env, crj_packed *p, jbyteArray data, jintArray ends, jint n);
void crj_packed_close(JNIEnv *env, crj_packed *p);

/* Options objects of the live clients (jni_client.c): the n strings of strs
 * copied to out (free each); the u32 / u64 arrays read into u and w; every
 * u32 entry and every named u64 entry refused when negative (it would reach C
 * as a huge unsigned value). Each returns 0 with an exception pending. */
int crj_fill_strings(JNIEnv *env, jobjectArray strs, char **out, int n);
int crj_options_take(JNIEnv *env, jintArray u32, jint *u, int nu, jlongArray u64, jlong *w, int nw);
int crj_options_unsigned(JNIEnv *env, const jint *u, const char *const *u_names, int nu,
                         const jlong *w, const char *const *w_names, int nw);

/* Log events of clients into SLF4J (jni_log.c). crj_log_init, from
 * JNI_OnLoad, returns 0 when io.cloudroute.NativeLog is missing;
 * crj_log_route sends the events of clients made from cfg at or above
 * min_level (-1: none) to NativeLog.log, returning 0 with an exception
 * pending when the library refused. */
int crj_log_init(JavaVM *vm, JNIEnv *env);
int crj_log_route(JNIEnv *env, cr_config *cfg, jint min_level);
/* The JNIEnv of the calling thread for a callback from the library (a log
 * event, a completion): a thread the JVM does not know (the client's engine,
 * worker or refresher thread) is attached once, as a daemon named
 * "cloudroute-native", and detached when it ends. NULL when attaching fails
 * (the JVM is shutting down). */
JNIEnv *crj_thread_env(void);
/* A new byte[] of the bytes of NUL-terminated s (text handed to Java as
 * UTF-8, decoded there); NULL with an exception pending. */
jbyteArray crj_utf8_bytes(JNIEnv *env, const char *s);

#define CRJ_PTR(h) ((void *)(intptr_t)(h))
#define CRJ_HANDLE(p) ((jlong)(intptr_t)(p))

#endif
