/* A C99 program that uses libcloudroute from an installed tree. */
#include <cloudroute.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  const char text[] = "shard master=127.0.0.1:6379\n";
  cr_topology *t = NULL;
  cr_router *r = NULL;
  cr_route out = CR_ROUTE_INIT;
  if (cr_topology_parse_static(&t, text, strlen(text)) != CR_OK ||
      cr_router_new(&r, NULL) != CR_OK || cr_router_update(r, t) != CR_OK ||
      cr_router_route_read(&out, r, "foo", 3) != CR_OK) {
    fprintf(stderr, "failed: %s\n", cr_last_error());
    return 1;
  }
  printf("foo %u %s:%u\n", (unsigned)out.slot, out.host, (unsigned)out.port);
  cr_router_free(r);
  cr_topology_free(t);
  return 0;
}
