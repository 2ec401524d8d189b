/* Shared helpers of the JNI glue (see jni_common.h). */
#include "jni_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

crj_cache crj;

static jclass global_class(JNIEnv *env, const char *name) {
  jclass local = (*env)->FindClass(env, name);
  if (local == NULL) return NULL;
  jclass global = (jclass)(*env)->NewGlobalRef(env, local);
  (*env)->DeleteLocalRef(env, local);
  return global;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
  JNIEnv *env;
  if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
  if (!(crj.exception = global_class(env, "io/cloudroute/CloudRouteException"))) return JNI_ERR;
  crj.exception_of = (*env)->GetStaticMethodID(
      env, crj.exception, "of", "(ILjava/lang/String;)Lio/cloudroute/CloudRouteException;");
  if (!(crj.array_list = global_class(env, "java/util/ArrayList"))) return JNI_ERR;
  crj.array_list_new = (*env)->GetMethodID(env, crj.array_list, "<init>", "(I)V");
  crj.list_add = (*env)->GetMethodID(env, crj.array_list, "add", "(Ljava/lang/Object;)Z");
  if (!(crj.long_class = global_class(env, "java/lang/Long"))) return JNI_ERR;
  crj.long_value_of =
      (*env)->GetStaticMethodID(env, crj.long_class, "valueOf", "(J)Ljava/lang/Long;");
  if (!(crj.boolean_class = global_class(env, "java/lang/Boolean"))) return JNI_ERR;
  crj.boolean_value_of =
      (*env)->GetStaticMethodID(env, crj.boolean_class, "valueOf", "(Z)Ljava/lang/Boolean;");
  if (!(crj.double_class = global_class(env, "java/lang/Double"))) return JNI_ERR;
  crj.double_value_of =
      (*env)->GetStaticMethodID(env, crj.double_class, "valueOf", "(D)Ljava/lang/Double;");
  if (!(crj.big_integer = global_class(env, "java/math/BigInteger"))) return JNI_ERR;
  crj.big_integer_new =
      (*env)->GetMethodID(env, crj.big_integer, "<init>", "(Ljava/lang/String;)V");
  if (!(crj.reply_error = global_class(env, "io/cloudroute/ReplyError"))) return JNI_ERR;
  crj.reply_error_new =
      (*env)->GetMethodID(env, crj.reply_error, "<init>", "(Ljava/lang/String;)V");
  if (!(crj.string_class = global_class(env, "java/lang/String"))) return JNI_ERR;
  if (!(crj.object_class = global_class(env, "java/lang/Object"))) return JNI_ERR;
  if (!(crj.byte_array_class = global_class(env, "[B"))) return JNI_ERR;
  if (!(crj.oom = global_class(env, "java/lang/OutOfMemoryError"))) return JNI_ERR;
  if (!(crj.message = global_class(env, "io/cloudroute/Message"))) return JNI_ERR;
  crj.message_new = (*env)->GetMethodID(env, crj.message, "<init>", "(II[B[B[B[B[B)V");
  if (!crj_log_init(vm, env)) return JNI_ERR;
  if ((*env)->ExceptionCheck(env)) return JNI_ERR;
  return JNI_VERSION_1_8;
}

/* Throws CloudRouteException.of(status, text): the one status-to-class table is Java's. */
static void throw_status(JNIEnv *env, cr_status status, const char *text) {
  if ((*env)->ExceptionCheck(env)) return;
  jstring msg = (*env)->NewStringUTF(env, text);
  if (msg == NULL) return;
  jobject ex =
      (*env)->CallStaticObjectMethod(env, crj.exception, crj.exception_of, (jint)status, msg);
  jboolean failed = (*env)->ExceptionCheck(env);
  (*env)->DeleteLocalRef(env, msg);
  if (!failed && ex != NULL) {
    (*env)->Throw(env, (jthrowable)ex);
    (*env)->DeleteLocalRef(env, ex);
  }
}

void crj_throw(JNIEnv *env, cr_status status) { throw_status(env, status, cr_last_error()); }

void crj_throw_invalid(JNIEnv *env, const char *text) { throw_status(env, CR_EINVAL, text); }

int crj_need(JNIEnv *env, const void *ref, const char *what) {
  if (ref != NULL) return 1;
  char msg[128];
  snprintf(msg, sizeof msg, "%s is null", what);
  crj_throw_invalid(env, msg);
  return 0;
}

int crj_unsigned(JNIEnv *env, jint v, const char *what) {
  if (v >= 0) return 1;
  char msg[160];
  snprintf(msg, sizeof msg, "%s must be in 0..4294967295, not %d", what, (int)v);
  crj_throw_invalid(env, msg);
  return 0;
}

jstring crj_string(JNIEnv *env, const char *utf8) {
  if (utf8 == NULL) return NULL;
  /* Names are ASCII in practice; NewStringUTF reads modified UTF-8, which
   * equals UTF-8 for every character but NUL and those beyond U+FFFF. */
  return (*env)->NewStringUTF(env, utf8);
}

/* "<what> offset/length outside the array" */
static void throw_bounds(JNIEnv *env, const char *what) {
  char msg[128];
  snprintf(msg, sizeof msg, "%s offset/length outside the array", what);
  crj_throw_invalid(env, msg);
}

int crj_bytes_critical(JNIEnv *env, crj_bytes *b, jbyteArray array, jint off, jint len,
                       const char *what) {
  b->array = NULL;
  b->critical = NULL;
  b->heap = NULL;
  if (!crj_need(env, array, what)) return 0;
  if (off < 0 || len < 0) {
    throw_bounds(env, what);
    return 0;
  }
  if ((size_t)len <= sizeof b->buf) {
    /* A short key: one copy into the stack buffer (one JNI call, which checks
     * the bounds) is cheaper than entering and leaving a critical region. */
    (*env)->GetByteArrayRegion(env, array, off, len, (jbyte *)b->buf);
    if ((*env)->ExceptionCheck(env)) {
      (*env)->ExceptionClear(env);
      throw_bounds(env, what);
      return 0;
    }
    b->data = b->buf;
    b->len = (size_t)len;
    return 1;
  }
  jsize n = (*env)->GetArrayLength(env, array);
  if (off > n - len) {
    throw_bounds(env, what);
    return 0;
  }
  void *p = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
  if (p == NULL) return 0; /* OutOfMemoryError pending */
  b->array = array;
  b->critical = p;
  b->data = (const char *)p + off;
  b->len = (size_t)len;
  return 1;
}

int crj_bytes_copy(JNIEnv *env, crj_bytes *b, jbyteArray array, const char *what) {
  b->array = NULL;
  b->critical = NULL;
  b->heap = NULL;
  if (!crj_need(env, array, what)) return 0;
  jsize n = (*env)->GetArrayLength(env, array);
  char *dst = b->buf;
  if ((size_t)n > sizeof b->buf) {
    dst = b->heap = malloc((size_t)n);
    if (dst == NULL) {
      (*env)->ThrowNew(env, crj.oom, "libcloudroute: key copy");
      return 0;
    }
  }
  (*env)->GetByteArrayRegion(env, array, 0, n, (jbyte *)dst);
  b->data = dst;
  b->len = (size_t)n;
  return 1;
}

/* UTF-16 to UTF-8 as Java's String.getBytes(UTF_8): pairs become 4 bytes,
 * an unpaired surrogate becomes '?'. dst holds 3 bytes per unit. */
static size_t utf16_to_utf8(char *dst, const jchar *src, jsize n) {
  unsigned char *o = (unsigned char *)dst;
  for (jsize i = 0; i < n; ++i) {
    uint32_t c = src[i];
    if (c < 0x80) {
      *o++ = (unsigned char)c;
    } else if (c < 0x800) {
      *o++ = (unsigned char)(0xC0 | (c >> 6));
      *o++ = (unsigned char)(0x80 | (c & 0x3F));
    } else if (c >= 0xD800 && c <= 0xDFFF) {
      if (c <= 0xDBFF && i + 1 < n && src[i + 1] >= 0xDC00 && src[i + 1] <= 0xDFFF) {
        uint32_t cp = 0x10000 + ((c - 0xD800) << 10) + (src[i + 1] - 0xDC00);
        ++i;
        *o++ = (unsigned char)(0xF0 | (cp >> 18));
        *o++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        *o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (unsigned char)(0x80 | (cp & 0x3F));
      } else {
        *o++ = '?';
      }
    } else {
      *o++ = (unsigned char)(0xE0 | (c >> 12));
      *o++ = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
      *o++ = (unsigned char)(0x80 | (c & 0x3F));
    }
  }
  return (size_t)(o - (unsigned char *)dst);
}

int crj_bytes_utf8(JNIEnv *env, crj_bytes *b, jstring s, const char *what) {
  b->array = NULL;
  b->critical = NULL;
  b->heap = NULL;
  if (!crj_need(env, s, what)) return 0;
  jsize n = (*env)->GetStringLength(env, s);
  if (n <= CRJ_STACK_KEY) {
    /* The UTF-16 units go to the end of buf; the UTF-8 output (at most 3 bytes
     * per unit, written front to back) never overtakes the unit it reads. */
    jchar units[CRJ_STACK_KEY];
    (*env)->GetStringRegion(env, s, 0, n, units);
    b->len = utf16_to_utf8(b->buf, units, n);
    b->data = b->buf;
    return 1;
  }
  jchar *units = malloc((size_t)n * sizeof(jchar));
  b->heap = malloc((size_t)n * 3);
  if (units == NULL || b->heap == NULL) {
    free(units);
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: key copy");
    return 0;
  }
  (*env)->GetStringRegion(env, s, 0, n, units);
  b->len = utf16_to_utf8(b->heap, units, n);
  b->data = b->heap;
  free(units);
  return 1;
}

int crj_bytes_object(JNIEnv *env, crj_bytes *b, jobject key, int copy) {
  if (key != NULL && (*env)->IsInstanceOf(env, key, crj.string_class)) {
    return crj_bytes_utf8(env, b, (jstring)key, "key");
  }
  if (key != NULL && !(*env)->IsInstanceOf(env, key, crj.byte_array_class)) {
    b->array = NULL;
    b->critical = NULL;
    b->heap = NULL;
    crj_throw_invalid(env, "a key or argument must be a String or a byte[]");
    return 0;
  }
  if (copy) return crj_bytes_copy(env, b, (jbyteArray)key, "key or argument");
  jsize n = key == NULL ? 0 : (*env)->GetArrayLength(env, (jbyteArray)key);
  return crj_bytes_critical(env, b, (jbyteArray)key, 0, n, "key");
}

void crj_bytes_release(JNIEnv *env, crj_bytes *b) {
  if (b->critical != NULL) {
    (*env)->ReleasePrimitiveArrayCritical(env, b->array, b->critical, JNI_ABORT);
    b->critical = NULL;
  }
  free(b->heap);
  b->heap = NULL;
}

int crj_cstring(JNIEnv *env, jstring s, char **out) {
  *out = NULL;
  if (s == NULL) return 1;
  crj_bytes b;
  if (!crj_bytes_utf8(env, &b, s, "text")) return 0;
  if (memchr(b.data, '\0', b.len) != NULL) {
    crj_bytes_release(env, &b);
    crj_throw_invalid(env, "a name contains a NUL character");
    return 0;
  }
  char *c = malloc(b.len + 1);
  if (c == NULL) {
    crj_bytes_release(env, &b);
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: string copy");
    return 0;
  }
  memcpy(c, b.data, b.len);
  c[b.len] = '\0';
  crj_bytes_release(env, &b);
  *out = c;
  return 1;
}

int crj_packed_open(JNIEnv *env, crj_packed *p, jbyteArray data, jintArray ends, jint n) {
  p->data = data;
  p->critical = NULL;
  p->keys = NULL;
  p->lens = NULL;
  p->n = 0;
  if (!crj_need(env, data, "data") || !crj_need(env, ends, "ends") || !crj_unsigned(env, n, "n")) {
    return 0;
  }
  p->n = (size_t)n;
  p->keys = malloc((p->n + 1) * sizeof(void *));
  p->lens = malloc((p->n + 1) * sizeof(size_t));
  jint *e = malloc((p->n + 1) * sizeof(jint));
  if (p->keys == NULL || p->lens == NULL || e == NULL) {
    free(e);
    crj_packed_close(env, p);
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: key batch");
    return 0;
  }
  jsize size = (*env)->GetArrayLength(env, data);
  if ((*env)->GetArrayLength(env, ends) < n) {
    free(e);
    crj_packed_close(env, p);
    crj_throw_invalid(env, "key batch: count larger than the ends array");
    return 0;
  }
  (*env)->GetIntArrayRegion(env, ends, 0, n, e);
  jint start = 0;
  for (size_t i = 0; i < p->n; ++i) {
    if (e[i] < start || e[i] > size) {
      free(e);
      crj_packed_close(env, p);
      crj_throw_invalid(env, "key batch: ends must rise and stay inside the data array");
      return 0;
    }
    p->keys[i] = (const void *)(intptr_t)start; /* an offset until the region opens */
    p->lens[i] = (size_t)(e[i] - start);
    start = e[i];
  }
  free(e);
  p->critical = (*env)->GetPrimitiveArrayCritical(env, data, NULL);
  if (p->critical == NULL) {
    crj_packed_close(env, p);
    return 0;
  }
  for (size_t i = 0; i < p->n; ++i) p->keys[i] = (const char *)p->critical + (intptr_t)p->keys[i];
  return 1;
}

void crj_packed_close(JNIEnv *env, crj_packed *p) {
  if (p->critical != NULL) {
    (*env)->ReleasePrimitiveArrayCritical(env, p->data, p->critical, JNI_ABORT);
    p->critical = NULL;
  }
  free(p->keys);
  free(p->lens);
  p->keys = NULL;
  p->lens = NULL;
}
