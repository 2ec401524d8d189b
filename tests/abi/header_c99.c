#include "cloudroute.h"
int cr_header_c99_probe(void);
int cr_header_c99_probe(void) { return CR_VERSION_NUMBER > 0 && CR_OK == 0; }
