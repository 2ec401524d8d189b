// Not compiled: the fixture that core_purity_test.sh must reject (the CTest
// entry core.core_purity_catches runs it here and expects a failure).
#include <hiredis/hiredis.h>
#include <sys/socket.h>
#include <thread>
