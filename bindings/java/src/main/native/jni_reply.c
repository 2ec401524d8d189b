/* JNI: replies of the live clients to Java objects, and command arguments
 * (an Object[] of Strings / byte[]s) to C (see jni_reply.h). */
#include "jni_reply.h"

#include <stdlib.h>
#include <string.h>

/* ---- replies to Java objects ---- */

jobject crj_reply_to_java(JNIEnv *env, const cr_reply *r) {
  size_t len = 0;
  const char *s;
  switch (cr_reply_get_type(r)) {
    case CR_REPLY_TYPE_STRING: {
      s = cr_reply_get_string(r, &len);
      jbyteArray a = (*env)->NewByteArray(env, (jsize)len);
      if (a != NULL) (*env)->SetByteArrayRegion(env, a, 0, (jsize)len, (const jbyte *)s);
      return a;
    }
    case CR_REPLY_TYPE_STATUS:
      return crj_string(env, cr_reply_get_string(r, NULL));
    case CR_REPLY_TYPE_ERROR: {
      jstring text = crj_string(env, cr_reply_get_string(r, NULL));
      if (text == NULL) return NULL;
      jobject e = (*env)->NewObject(env, crj.reply_error, crj.reply_error_new, text);
      (*env)->DeleteLocalRef(env, text);
      return e;
    }
    case CR_REPLY_TYPE_INTEGER:
      return (*env)->CallStaticObjectMethod(env, crj.long_class, crj.long_value_of,
                                            (jlong)cr_reply_get_integer(r));
    case CR_REPLY_TYPE_BOOL:
      return (*env)->CallStaticObjectMethod(env, crj.boolean_class, crj.boolean_value_of,
                                            (jboolean)(cr_reply_get_integer(r) != 0));
    case CR_REPLY_TYPE_DOUBLE: {
      s = cr_reply_get_string(r, NULL);
      double d = strcmp(s, "inf") == 0    ? 1.0 / 0.0
                 : strcmp(s, "-inf") == 0 ? -1.0 / 0.0
                                          : strtod(s, NULL);
      return (*env)->CallStaticObjectMethod(env, crj.double_class, crj.double_value_of, d);
    }
    case CR_REPLY_TYPE_BIGNUM: {
      jstring text = crj_string(env, cr_reply_get_string(r, NULL));
      if (text == NULL) return NULL;
      jobject b = (*env)->NewObject(env, crj.big_integer, crj.big_integer_new, text);
      (*env)->DeleteLocalRef(env, text);
      return b;
    }
    case CR_REPLY_TYPE_ARRAY:
    case CR_REPLY_TYPE_MAP: {
      size_t n = cr_reply_get_count(r);
      jobject list = (*env)->NewObject(env, crj.array_list, crj.array_list_new, (jint)n);
      for (size_t i = 0; list != NULL && i < n; ++i) {
        if ((*env)->PushLocalFrame(env, 8) != 0) return NULL;
        jobject e = crj_reply_to_java(env, cr_reply_get_element(r, i));
        if ((*env)->ExceptionCheck(env)) {
          (*env)->PopLocalFrame(env, NULL);
          (*env)->DeleteLocalRef(env, list);
          return NULL;
        }
        (*env)->CallBooleanMethod(env, list, crj.list_add, e);
        jboolean failed = (*env)->ExceptionCheck(env);
        (*env)->PopLocalFrame(env, NULL);
        if (failed) {
          (*env)->DeleteLocalRef(env, list);
          return NULL;
        }
      }
      return list;
    }
    case CR_REPLY_TYPE_NIL:
    default:
      return NULL;
  }
}

/* Converts and frees a reply; throws for a failed status. */
jobject crj_reply_result(JNIEnv *env, cr_status st, cr_reply *reply) {
  if (st != CR_OK) {
    crj_throw(env, st);
    return NULL;
  }
  jobject out = crj_reply_to_java(env, reply);
  cr_reply_free(reply);
  return out;
}

/* ---- arguments: an Object[] of Strings / byte[]s copied to C ---- */

void crj_args_free(crj_args *a) {
  for (size_t i = 0; a->owned != NULL && i < a->n; ++i) free(a->owned[i]);
  free(a->owned);
  free(a->ptrs);
  free(a->lens);
}

int crj_args_take(JNIEnv *env, crj_args *a, jobjectArray array) {
  jsize n = array == NULL ? 0 : (*env)->GetArrayLength(env, array);
  a->n = (size_t)n;
  a->ptrs = calloc((size_t)n + 1, sizeof(void *));
  a->lens = calloc((size_t)n + 1, sizeof(size_t));
  a->owned = calloc((size_t)n + 1, sizeof(char *));
  if (a->ptrs == NULL || a->lens == NULL || a->owned == NULL) {
    crj_args_free(a);
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: arguments");
    return 0;
  }
  for (jsize i = 0; i < n; ++i) {
    jobject o = (*env)->GetObjectArrayElement(env, array, i);
    crj_bytes b;
    int ok = crj_bytes_object(env, &b, o, 1);
    (*env)->DeleteLocalRef(env, o);
    if (ok) {
      a->owned[i] = malloc(b.len + 1);
      if (a->owned[i] == NULL) {
        (*env)->ThrowNew(env, crj.oom, "libcloudroute: arguments");
        ok = 0;
      } else {
        memcpy(a->owned[i], b.data, b.len);
        a->ptrs[i] = a->owned[i];
        a->lens[i] = b.len;
      }
      crj_bytes_release(env, &b);
    }
    if (!ok) {
      crj_args_free(a);
      return 0;
    }
  }
  return 1;
}

/* args_take for a command routed by argument key_index (checked). */
int crj_args_take_keyed(JNIEnv *env, crj_args *a, jobjectArray array, jint key_index) {
  if (!crj_args_take(env, a, array)) return 0;
  if (key_index < 0 || (size_t)key_index >= a->n) {
    crj_args_free(a);
    crj_throw_invalid(env, "key index outside the arguments");
    return 0;
  }
  return 1;
}
