/* JNI: io.cloudroute.Config (the locality, policy and weights builder). */
#include <stdlib.h>

#include "jni_common.h"

JNIEXPORT jlong JNICALL Java_io_cloudroute_Config_create(JNIEnv *env, jclass cls) {
  cr_config *c = NULL;
  cr_status st = cr_config_new(&c);
  if (st != CR_OK) {
    crj_throw(env, st);
    return 0;
  }
  return CRJ_HANDLE(c);
}

/* One setter with up to two names: op selects the cr_config_* call. */
JNIEXPORT void JNICALL Java_io_cloudroute_Config_set(JNIEnv *env, jclass cls, jlong h, jint op,
                                                     jstring a, jstring b, jint number) {
  char *x, *y;
  if (op == 5 && !crj_unsigned(env, number, "weight")) return;
  if (!crj_cstring(env, a, &x)) return;
  if (!crj_cstring(env, b, &y)) {
    free(x);
    return;
  }
  cr_config *c = (cr_config *)CRJ_PTR(h);
  cr_status st = CR_EINVAL;
  switch (op) {
    case 0:
      st = cr_config_set_client_location(c, x);
      break;
    case 1:
      st = cr_config_add_local_cidr(c, x);
      break;
    case 2:
      st = cr_config_add_location_rule(c, x, y);
      break;
    case 3:
      st = cr_config_add_node_location(c, x, y);
      break;
    case 4:
      st = cr_config_add_zone(c, x, y);
      break;
    case 5:
      st = cr_config_set_weight(c, x, (uint32_t)number);
      break;
    case 6:
      st = cr_config_add_address_remap(c, x, y);
      break;
    case 7:
      st = cr_config_set_client_zone(c, x);
      break;
    case 8:
      st = cr_config_set_selection(c, (cr_selection)number);
      break;
    default:
      break;
  }
  free(x);
  free(y);
  if (st != CR_OK) crj_throw(env, st);
}

JNIEXPORT void JNICALL Java_io_cloudroute_Config_routerOptions(JNIEnv *env, jclass cls, jlong h,
                                                               jint policy, jint margin_us,
                                                               jint threshold, jint cooldown_ms,
                                                               jlong seed) {
  if (!crj_unsigned(env, margin_us, "nearest_margin_us") ||
      !crj_unsigned(env, threshold, "failure_threshold") ||
      !crj_unsigned(env, cooldown_ms, "down_cooldown_ms")) {
    return;
  }
  cr_router_options o = CR_ROUTER_OPTIONS_INIT;
  o.policy = (cr_policy)policy;
  o.nearest_margin_us = (uint32_t)margin_us;
  o.failure_threshold = (uint32_t)threshold;
  o.down_cooldown_ms = (uint32_t)cooldown_ms;
  o.seed = (uint64_t)seed;
  cr_status st = cr_config_set_router_options((cr_config *)CRJ_PTR(h), &o);
  if (st != CR_OK) crj_throw(env, st);
}
