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

/* A pipeline built from io.cloudroute.Pipeline's queue (jni_commands.c):
 * p with its n commands queued, a[0..taken) the arguments they borrow. */
typedef struct crj_pipeline {
  cr_pipeline *p;
  crj_args *a;
  jsize n;
  jsize taken;
} crj_pipeline;

/* Queues argv[i] (an Object[]) for i < n on a new pipeline of client h
 * (kind 0: a cr_client, 1: a cr_sharded_client), routed by access[i] and
 * its key key_index[i], or (key_index[i] < 0) sent to hosts[i]:ports[i].
 * Returns 0 with an exception pending. Either way *b is freed with
 * crj_pipeline_free once the pipeline ran (or was submitted). */
int crj_pipeline_build(JNIEnv *env, crj_pipeline *b, jint kind, jlong h, jintArray access,
                       jintArray key_index, jobjectArray hosts, jintArray ports, jobjectArray argv);
void crj_pipeline_free(crj_pipeline *b);
/* The n results of a run pipeline as an Object[]: replies as Java objects,
 * a failed command's message (a String) in its place and its status in
 * statuses_out. NULL with an exception pending (no memory). */
jobjectArray crj_pipeline_results(JNIEnv *env, cr_reply *const *replies, const cr_status *st,
                                  jsize n, jintArray statuses_out);

/* The multi-key operations of the batch calls (ShardedClient.multi0,
 * SentinelClient.batch0, AsyncCall.multi0 and batch0; the Java side names
 * them the same). */
enum { CRJ_OP_MGET = 0, CRJ_OP_DEL = 1, CRJ_OP_MSET = 2, CRJ_OP_EXISTS = 3 };

/* The keys (and for CRJ_OP_MSET the values, as many) of a pre-sharded or
 * Sentinel batch, copied. 0 with an exception pending (then nothing is left
 * to free): an unknown op, a null array, a null or foreign key, a count
 * mismatch. Else free k, and v for CRJ_OP_MSET, with crj_args_free. */
int crj_batch_take(JNIEnv *env, jint op, jobjectArray keys, jobjectArray values, crj_args *k,
                   crj_args *v);
/* A Sentinel batch's n per-key results as an Object[] (jni_sharded.c): for
 * CRJ_OP_MGET key i's value as a Java object, or its group's error text (a
 * String) where statuses[i] failed; nulls for the other ops. The statuses go
 * to statuses_out. NULL with an exception pending (no memory). */
jobjectArray crj_batch_results(JNIEnv *env, jint op, cr_reply *const *replies,
                               const cr_status *statuses, size_t n, jintArray statuses_out);

#endif
