/* JNI: pure functions (key slots, hashes, names, version) and handle freeing. */
#include <stdlib.h>

#include "jni_common.h"

JNIEXPORT void JNICALL Java_io_cloudroute_NativeResource_free(JNIEnv *env, jclass cls, jint kind,
                                                              jlong h) {
  void *p = CRJ_PTR(h);
  switch (kind) {
    case 0:
      cr_topology_free((cr_topology *)p);
      break;
    case 1:
      cr_config_free((cr_config *)p);
      break;
    case 2:
      cr_router_free((cr_router *)p);
      break;
    case 3:
      cr_snapshot_free((cr_snapshot *)p);
      break;
    case 4:
      cr_ring_free((cr_ring *)p);
      break;
    case 5:
      cr_shard_groups_free((cr_shard_groups *)p);
      break;
    case 6:
      cr_client_free((cr_client *)p);
      break;
    case 7:
      cr_sentinel_client_free((cr_sentinel_client *)p);
      break;
    case 8:
      cr_scan_free((cr_scan *)p);
      break;
    case 9:
      cr_script_free((cr_script *)p);
      break;
    case 10:
      cr_pinned_free((cr_pinned *)p);
      break;
    case 11:
      cr_sharded_client_free((cr_sharded_client *)p);
      break;
    case 12:
      cr_subscription_free((cr_subscription *)p);
      break;
    default:
      break;
  }
}

JNIEXPORT jint JNICALL Java_io_cloudroute_CloudRoute_keyslotBytes(JNIEnv *env, jclass cls,
                                                                  jbyteArray key, jint off,
                                                                  jint len) {
  crj_bytes b;
  if (!crj_bytes_critical(env, &b, key, off, len, "key")) return -1;
  jint slot = cr_keyslot(b.data, b.len);
  crj_bytes_release(env, &b);
  return slot;
}

JNIEXPORT jint JNICALL Java_io_cloudroute_CloudRoute_keyslotString(JNIEnv *env, jclass cls,
                                                                   jstring key) {
  crj_bytes b;
  if (!crj_bytes_utf8(env, &b, key, "key")) return -1;
  jint slot = cr_keyslot(b.data, b.len);
  crj_bytes_release(env, &b);
  return slot;
}

/* Slots of n keys packed in data: key i is data[ends[i-1] .. ends[i]) (ends[-1] = 0). */
JNIEXPORT void JNICALL Java_io_cloudroute_CloudRoute_keyslotPacked(JNIEnv *env, jclass cls,
                                                                   jbyteArray data, jintArray ends,
                                                                   jint n, jintArray out) {
  if (!crj_need(env, data, "data") || !crj_need(env, ends, "ends") || !crj_need(env, out, "out") ||
      !crj_unsigned(env, n, "n")) {
    return;
  }
  jsize data_len = (*env)->GetArrayLength(env, data);
  if ((*env)->GetArrayLength(env, ends) < n || (*env)->GetArrayLength(env, out) < n) {
    crj_throw_invalid(env, "keyslots: count larger than the ends or out array");
    return;
  }
  jint *e = (*env)->GetPrimitiveArrayCritical(env, ends, NULL);
  if (e == NULL) return;
  jint *o = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
  if (o == NULL) {
    (*env)->ReleasePrimitiveArrayCritical(env, ends, e, JNI_ABORT);
    return;
  }
  const char *d = (*env)->GetPrimitiveArrayCritical(env, data, NULL);
  int bad = d == NULL;
  jint start = 0;
  for (jint i = 0; i < n && !bad; ++i) {
    if (e[i] < start || e[i] > data_len) {
      bad = 1;
      break;
    }
    o[i] = cr_keyslot(d + start, (size_t)(e[i] - start));
    start = e[i];
  }
  if (d != NULL) (*env)->ReleasePrimitiveArrayCritical(env, data, (void *)d, JNI_ABORT);
  (*env)->ReleasePrimitiveArrayCritical(env, out, o, bad ? JNI_ABORT : 0);
  (*env)->ReleasePrimitiveArrayCritical(env, ends, e, JNI_ABORT);
  if (bad && !(*env)->ExceptionCheck(env)) {
    crj_throw_invalid(env, "keyslots: ends must rise and stay inside the data array");
  }
}

JNIEXPORT jint JNICALL Java_io_cloudroute_CloudRoute_crc16(JNIEnv *env, jclass cls, jbyteArray data,
                                                           jint off, jint len) {
  crj_bytes b;
  if (!crj_bytes_critical(env, &b, data, off, len, "data")) return -1;
  jint crc = cr_crc16(b.data, b.len);
  crj_bytes_release(env, &b);
  return crc;
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_CloudRoute_jedisHashOf(JNIEnv *env, jclass cls,
                                                                  jint algo, jobject key) {
  crj_bytes b;
  if (!crj_bytes_object(env, &b, key, 0)) return 0;
  int64_t h = 0;
  cr_status st = cr_jedis_hash(&h, (cr_hash_algo)algo, b.data, b.len);
  crj_bytes_release(env, &b);
  if (st != CR_OK) crj_throw(env, st);
  return h;
}

JNIEXPORT jint JNICALL Java_io_cloudroute_CloudRoute_jumpHashOf(JNIEnv *env, jclass cls, jlong key,
                                                                jint buckets) {
  uint32_t out = 0;
  if (!crj_unsigned(env, buckets, "buckets")) return -1;
  cr_status st = cr_jump_hash(&out, (uint64_t)key, (uint32_t)buckets);
  if (st != CR_OK) crj_throw(env, st);
  return (jint)out;
}

JNIEXPORT jstring JNICALL Java_io_cloudroute_CloudRoute_familyKeyOf(JNIEnv *env, jclass cls,
                                                                    jstring family, jobject key) {
  char *fam;
  if (!crj_cstring(env, family, &fam)) return NULL;
  if (fam == NULL) {
    crj_throw_invalid(env, "family is null");
    return NULL;
  }
  crj_bytes b;
  if (!crj_bytes_object(env, &b, key, 1)) {
    free(fam);
    return NULL;
  }
  char buf[CR_FAMILY_KEY_SIZE];
  size_t needed = 0;
  cr_status st = cr_family_key(buf, sizeof buf, &needed, fam, b.data, b.len);
  crj_bytes_release(env, &b);
  free(fam);
  if (st != CR_OK) {
    crj_throw(env, st);
    return NULL;
  }
  return crj_string(env, buf);
}

JNIEXPORT jstring JNICALL Java_io_cloudroute_CloudRoute_nativeVersion(JNIEnv *env, jclass cls) {
  return crj_string(env, cr_version());
}

JNIEXPORT jint JNICALL Java_io_cloudroute_CloudRoute_policyFromName(JNIEnv *env, jclass cls,
                                                                    jstring name) {
  char *n;
  if (!crj_cstring(env, name, &n)) return -1;
  cr_policy p = CR_POLICY_MASTER;
  cr_status st = cr_policy_from_name(&p, n);
  free(n);
  if (st != CR_OK) {
    crj_throw(env, st);
    return -1;
  }
  return (jint)p;
}
