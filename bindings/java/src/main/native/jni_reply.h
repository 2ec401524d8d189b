/* Shared by the live clients' glue (jni_client.c, jni_commands.c): replies
 * to Java objects and command arguments to C. */
#ifndef CLOUDROUTE_JNI_REPLY_H
#define CLOUDROUTE_JNI_REPLY_H

#include "jni_common.h"

/* A reply as Java objects: byte[] (bulk string), String (status), Long,
 * null (nil), ArrayList (array, set, map as key, value, ...), ReplyError
 * (an error element), Boolean, Double, BigInteger. NULL with an exception
 * pending when the JVM is out of memory. r stays the caller's. */
jobject crj_reply_to_java(JNIEnv *env, const cr_reply *r);
/* Converts and frees reply on CR_OK; throws the exception of st otherwise. */
jobject crj_reply_result(JNIEnv *env, cr_status st, cr_reply *reply);

/* Command arguments copied out of an Object[] of Strings (UTF-8) and
 * byte[]s: argv/argvlen of the C calls. */
typedef struct crj_args {
  size_t n;
  const void **ptrs;
  size_t *lens;
  char **owned;
} crj_args;

/* Returns 0 with an exception pending (a null or foreign element, no
 * memory); then *a holds nothing to free. A null array gives n == 0. */
int crj_args_take(JNIEnv *env, crj_args *a, jobjectArray array);
/* crj_args_take for a command routed by argument key_index (checked). */
int crj_args_take_keyed(JNIEnv *env, crj_args *a, jobjectArray array, jint key_index);
void crj_args_free(crj_args *a);

#endif
