/* JNI: io.cloudroute.Topology (parse, static text, inspection). */
#include <stdlib.h>

#include "jni_common.h"

JNIEXPORT jlong JNICALL Java_io_cloudroute_Topology_parse(JNIEnv *env, jclass cls, jbyteArray reply,
                                                          jint format, jstring default_host) {
  char *host;
  if (!crj_cstring(env, default_host, &host)) return 0;
  cr_parse_options opts = CR_PARSE_OPTIONS_INIT;
  opts.default_host = host;
  crj_bytes b;
  if (!crj_bytes_copy(env, &b, reply, "reply")) {
    free(host);
    return 0;
  }
  cr_topology *t = NULL;
  cr_status st = cr_topology_parse(&t, b.data, b.len, (cr_topology_format)format, &opts);
  crj_bytes_release(env, &b);
  free(host);
  if (st != CR_OK) {
    crj_throw(env, st);
    return 0;
  }
  return CRJ_HANDLE(t);
}

JNIEXPORT jlong JNICALL Java_io_cloudroute_Topology_parseText(JNIEnv *env, jclass cls,
                                                              jstring text) {
  crj_bytes b;
  if (!crj_bytes_utf8(env, &b, text, "text")) return 0;
  cr_topology *t = NULL;
  cr_status st = cr_topology_parse_static(&t, b.data, b.len);
  crj_bytes_release(env, &b);
  if (st != CR_OK) {
    crj_throw(env, st);
    return 0;
  }
  return CRJ_HANDLE(t);
}

JNIEXPORT jint JNICALL Java_io_cloudroute_Topology_shardCount0(JNIEnv *env, jclass cls, jlong h) {
  return (jint)cr_topology_get_shard_count((const cr_topology *)CRJ_PTR(h));
}

JNIEXPORT jint JNICALL Java_io_cloudroute_Topology_nodeCount0(JNIEnv *env, jclass cls, jlong h) {
  return (jint)cr_topology_get_node_count((const cr_topology *)CRJ_PTR(h));
}

/* Node i: strings into names[0..4] (id, host, ip, zone) and numbers into
 * nums[0..4] (port, tls_port, role, health, shard). */
JNIEXPORT void JNICALL Java_io_cloudroute_Topology_node0(JNIEnv *env, jclass cls, jlong h, jint i,
                                                         jobjectArray names, jintArray nums) {
  cr_node_info info = CR_NODE_INFO_INIT;
  if (!crj_unsigned(env, i, "index")) return;
  cr_status st = cr_topology_get_node(&info, (const cr_topology *)CRJ_PTR(h), (uint32_t)i);
  if (st != CR_OK) {
    crj_throw(env, st);
    return;
  }
  const char *texts[4] = {info.id, info.host, info.ip, info.zone};
  for (int k = 0; k < 4; ++k) {
    jstring s = crj_string(env, texts[k]);
    if (s == NULL && texts[k] != NULL) return;
    (*env)->SetObjectArrayElement(env, names, k, s);
    (*env)->DeleteLocalRef(env, s);
  }
  jint v[5] = {info.port, info.tls_port, (jint)info.role, (jint)info.health, (jint)info.shard};
  (*env)->SetIntArrayRegion(env, nums, 0, 5, v);
}

JNIEXPORT jstring JNICALL Java_io_cloudroute_Topology_shardId0(JNIEnv *env, jclass cls, jlong h,
                                                               jint shard) {
  const char *id = NULL;
  if (!crj_unsigned(env, shard, "shard")) return NULL;
  cr_status st = cr_topology_get_shard_id(&id, (const cr_topology *)CRJ_PTR(h), (uint32_t)shard);
  if (st != CR_OK) {
    crj_throw(env, st);
    return NULL;
  }
  return crj_string(env, id);
}

/* The shard's ranges as [start0, end0, start1, end1, ...]. */
JNIEXPORT jintArray JNICALL Java_io_cloudroute_Topology_shardRanges0(JNIEnv *env, jclass cls,
                                                                     jlong h, jint shard) {
  const cr_topology *t = (const cr_topology *)CRJ_PTR(h);
  size_t needed = 0;
  if (!crj_unsigned(env, shard, "shard")) return NULL;
  cr_status st = cr_topology_get_shard_ranges(NULL, NULL, 0, &needed, t, (uint32_t)shard);
  if (st != CR_OK && st != CR_EBUFS) {
    crj_throw(env, st);
    return NULL;
  }
  uint16_t *starts = malloc((needed + 1) * sizeof(uint16_t));
  uint16_t *ends = malloc((needed + 1) * sizeof(uint16_t));
  jint *pairs = malloc((needed * 2 + 1) * sizeof(jint));
  jintArray out = NULL;
  if (starts == NULL || ends == NULL || pairs == NULL) {
    (*env)->ThrowNew(env, crj.oom, "libcloudroute: shard ranges");
  } else if ((st = cr_topology_get_shard_ranges(starts, ends, needed, &needed, t,
                                                (uint32_t)shard)) != CR_OK) {
    crj_throw(env, st);
  } else {
    for (size_t i = 0; i < needed; ++i) {
      pairs[2 * i] = starts[i];
      pairs[2 * i + 1] = ends[i];
    }
    out = (*env)->NewIntArray(env, (jsize)(needed * 2));
    if (out != NULL) (*env)->SetIntArrayRegion(env, out, 0, (jsize)(needed * 2), pairs);
  }
  free(starts);
  free(ends);
  free(pairs);
  return out;
}

JNIEXPORT jint JNICALL Java_io_cloudroute_Topology_slotShard0(JNIEnv *env, jclass cls, jlong h,
                                                              jint slot) {
  if (slot < 0 || slot > 16383) {
    crj_throw_invalid(env, "slot outside 0-16383");
    return -1;
  }
  uint32_t shard = 0;
  cr_status st =
      cr_topology_get_slot_shard(&shard, (const cr_topology *)CRJ_PTR(h), (uint16_t)slot);
  if (st != CR_OK) {
    crj_throw(env, st);
    return -1;
  }
  return (jint)shard;
}
