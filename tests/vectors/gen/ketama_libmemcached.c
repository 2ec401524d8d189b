/* Places keys with libmemcached's own weighted ketama, to cross-check the
 * ketama cases of tests/vectors/rings.json (check_ketama_libmemcached.py
 * builds and runs it; needs libmemcached-dev).
 *
 *   ketama_libmemcached NAME=WEIGHT,... < keys.hex
 * NAME is "host:port", or "host" for port 11211 (ketama's identity strings);
 * prints each key's server index; keys are hex, one per line ("-" = empty). */
#include <libmemcached/memcached.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  memcached_st *memc = memcached_create(NULL);
  char *spec, *item, *save = NULL;
  char line[4096];
  if (argc != 2 || memc == NULL) return 2;
  memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1);
  spec = strdup(argv[1]);
  for (item = strtok_r(spec, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
    char *eq = strrchr(item, '='), *colon;
    unsigned port = 11211;
    *eq = '\0';
    colon = strrchr(item, ':');
    if (colon != NULL) {
      *colon = '\0';
      port = (unsigned)atoi(colon + 1);
    }
    if (memcached_server_add_with_weight(memc, item, (in_port_t)port, (uint32_t)atoi(eq + 1)) !=
        MEMCACHED_SUCCESS) {
      return 2;
    }
  }
  while (fgets(line, sizeof line, stdin) != NULL) {
    unsigned char key[2048];
    size_t n = 0, i, len = strcspn(line, "\r\n");
    if (!(len == 1 && line[0] == '-')) {
      for (i = 0; i + 1 < len; i += 2) {
        unsigned v;
        sscanf(line + i, "%2x", &v);
        key[n++] = (unsigned char)v;
      }
    }
    printf("%u\n", memcached_generate_hash(memc, (const char *)key, n));
  }
  memcached_free(memc);
  free(spec);
  return 0;
}
