/* Shared by the CMocka tests of the C API. */
#ifndef CR_CAPI_TEST_H
#define CR_CAPI_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cloudroute.h"

/* The last error names what was wrong. */
#define assert_error_mentions(needle) assert_non_null(strstr(cr_last_error(), (needle)))

/* A 2-shard CLUSTER SLOTS reply: cloud A = 127.0.1.x, cloud B = 127.0.2.x. */
static const char kTwoShards[] =
    "*2\r\n"
    "*5\r\n:0\r\n:8191\r\n"
    "*3\r\n$9\r\n127.0.1.1\r\n:7001\r\n$2\r\nm1\r\n"
    "*3\r\n$9\r\n127.0.1.2\r\n:7002\r\n$3\r\nr1a\r\n"
    "*3\r\n$9\r\n127.0.2.2\r\n:7102\r\n$3\r\nr1b\r\n"
    "*5\r\n:8192\r\n:16383\r\n"
    "*3\r\n$9\r\n127.0.2.1\r\n:7101\r\n$2\r\nm2\r\n"
    "*3\r\n$9\r\n127.0.1.3\r\n:7003\r\n$3\r\nr2a\r\n"
    "*3\r\n$9\r\n127.0.2.3\r\n:7103\r\n$3\r\nr2b\r\n";

static inline cr_topology *two_shards(void) {
  cr_topology *t = NULL;
  assert_int_equal(cr_topology_parse(&t, kTwoShards, sizeof kTwoShards - 1,
                                     CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, NULL),
                   CR_OK);
  return t;
}

#endif
