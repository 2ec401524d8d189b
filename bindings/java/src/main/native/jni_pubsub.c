/* JNI: publish / subscribe of the live cluster client — io.cloudroute.Subscription
 * (cr_client_subscribe, cr_subscription_*), its Message records
 * (cr_message_get_*) and Client.publish / spublish. Conversion only:
 * placement, resubscription and the queue are the C library's. Every
 * argument is copied before a call that may block. */
#include <stdint.h>
#include <string.h>

#include "jni_reply.h"

#define CLIENT(h) ((cr_client *)CRJ_PTR(h))
#define SUB(h) ((cr_subscription *)CRJ_PTR(h))

JNIEXPORT jlong JNICALL Java_io_cloudroute_Subscription_create0(JNIEnv *env, jclass cls,
                                                                jlong client) {
  cr_subscription *s = NULL;
  cr_status st = cr_client_subscribe(&s, CLIENT(client));
  if (st != CR_OK) {
    crj_throw(env, st);
    return 0;
  }
  return CRJ_HANDLE(s);
}

JNIEXPORT void JNICALL Java_io_cloudroute_Subscription_names0(JNIEnv *env, jclass cls, jlong h,
                                                              jboolean add, jint kind,
                                                              jobjectArray names) {
  if (!crj_need(env, names, "names")) return;
  crj_args a;
  if (!crj_args_take(env, &a, names)) return;
  /* Returns at once (the subscription's thread does the network part). */
  cr_status st = (add ? cr_subscription_add : cr_subscription_remove)(SUB(h), (cr_channel_kind)kind,
                                                                      a.n, a.ptrs, a.lens);
  crj_args_free(&a);
  if (st != CR_OK) crj_throw(env, st);
}

/* A new byte[] of len bytes at p; NULL (no exception) when p is NULL. */
static jbyteArray bytes_or_null(JNIEnv *env, const char *p, size_t len) {
  if (p == NULL) return NULL;
  jbyteArray a = (*env)->NewByteArray(env, (jsize)len);
  if (a != NULL) (*env)->SetByteArrayRegion(env, a, 0, (jsize)len, (const jbyte *)p);
  return a;
}

/* m (freed here) as an io.cloudroute.Message; NULL with an exception pending. */
static jobject message(JNIEnv *env, cr_message *m) {
  size_t channel_len = 0, pattern_len = 0, payload_len = 0;
  const char *channel = cr_message_get_channel(m, &channel_len);
  const char *pattern = cr_message_get_pattern(m, &pattern_len);
  const char *payload = cr_message_get_payload(m, &payload_len);
  jobject out = NULL;
  jbyteArray ch = bytes_or_null(env, channel != NULL ? channel : "", channel_len);
  jbyteArray pat = ch == NULL ? NULL : bytes_or_null(env, pattern, pattern_len);
  jbyteArray pay = (*env)->ExceptionCheck(env) ? NULL : bytes_or_null(env, payload, payload_len);
  jbyteArray node =
      (*env)->ExceptionCheck(env) ? NULL : crj_utf8_bytes(env, cr_message_get_node(m));
  jbyteArray reason = node == NULL ? NULL : crj_utf8_bytes(env, cr_message_get_reason(m));
  if (reason != NULL) {
    out = (*env)->NewObject(env, crj.message, crj.message_new, (jint)cr_message_get_type(m),
                            (jint)cr_message_get_kind(m), ch, pat, pay, node, reason);
  }
  if (ch != NULL) (*env)->DeleteLocalRef(env, ch);
  if (pat != NULL) (*env)->DeleteLocalRef(env, pat);
  if (pay != NULL) (*env)->DeleteLocalRef(env, pay);
  if (node != NULL) (*env)->DeleteLocalRef(env, node);
  if (reason != NULL) (*env)->DeleteLocalRef(env, reason);
  cr_message_free(m);
  return (*env)->ExceptionCheck(env) ? NULL : out;
}

/* timeout_ms: 0 .. 0xFFFFFFFF (no bound), checked by the Java side. */
JNIEXPORT jobject JNICALL Java_io_cloudroute_Subscription_next0(JNIEnv *env, jclass cls, jlong h,
                                                                jlong timeout_ms) {
  cr_message *m = NULL;
  cr_status st = cr_subscription_next(&m, SUB(h), (uint32_t)timeout_ms);
  if (st != CR_OK) {
    crj_throw(env, st);
    return NULL;
  }
  return m == NULL ? NULL : message(env, m);
}

JNIEXPORT void JNICALL Java_io_cloudroute_Subscription_wake0(JNIEnv *env, jclass cls, jlong h) {
  cr_status st = cr_subscription_wake(SUB(h));
  if (st != CR_OK) crj_throw(env, st);
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_Client_publish0(JNIEnv *env, jclass cls, jlong h,
                                                           jboolean sharded, jobject channel,
                                                           jobject payload) {
  crj_bytes c, p;
  if (!crj_bytes_object(env, &c, channel, 1)) return 0;
  if (!crj_bytes_object(env, &p, payload, 1)) {
    crj_bytes_release(env, &c);
    return 0;
  }
  int64_t receivers = 0;
  cr_status st = (sharded ? cr_client_spublish : cr_client_publish)(&receivers, CLIENT(h), c.data,
                                                                    c.len, p.data, p.len);
  crj_bytes_release(env, &c);
  crj_bytes_release(env, &p);
  if (st != CR_OK) crj_throw(env, st);
  return (jlong)receivers;
}
