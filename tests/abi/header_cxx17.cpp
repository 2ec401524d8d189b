#include "cloudroute.h"
int cr_header_cxx17_probe();
int cr_header_cxx17_probe() {
  cr_route r = CR_ROUTE_INIT;
  return static_cast<int>(r.struct_size);
}
