# cr_link_for_old_glibc(target): link a shared library that users load into
# their own processes (the Python extension, the JVM's JNI library) so that it
# runs on glibc 2.28 and newer, whatever glibc the build machine has (Debian
# 12: 2.36), and needs no C++ runtime of the machine it runs on:
# - libstdc++ and libgcc linked statically (no GLIBCXX_ / GCC_ versions needed);
# - every reference to a glibc symbol that is newer than 2.28 (in our objects
#   and in the static archives linked in) redirected by `ld --wrap` to
#   compat.c beside this file, which calls the old version or provides it;
# - libpthread.so.0 and libdl.so.2 named as NEEDED: before glibc 2.34 the old
#   versions of the pthread and dl functions live there.
# tests/package/glibc_test.sh reads what the shipped libraries need.
set(CR_OLD_GLIBC_DIR ${CMAKE_CURRENT_LIST_DIR})
set(CR_OLD_GLIBC_WRAPPED
  pthread_create pthread_detach pthread_join pthread_once pthread_key_create __pthread_key_create
  pthread_key_delete pthread_getspecific pthread_setspecific pthread_mutex_trylock
  pthread_mutexattr_init pthread_mutexattr_settype pthread_mutexattr_destroy
  pthread_rwlock_init pthread_rwlock_destroy pthread_rwlock_rdlock pthread_rwlock_wrlock
  pthread_rwlock_unlock pthread_attr_setstacksize pthread_sigmask
  dlopen dlsym dlerror dlclose dladdr exp log pow stat fstat lstat
  __libc_single_threaded pthread_cond_clockwait arc4random _dl_find_object)

function(cr_link_for_old_glibc target)
  if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|aarch64)$")
    message(FATAL_ERROR "cr_link_for_old_glibc: x86_64 and aarch64 only (${CMAKE_SYSTEM_PROCESSOR})")
  endif()
  target_sources(${target} PRIVATE ${CR_OLD_GLIBC_DIR}/compat.c)
  # It defines the wrappers the linker redirects to: never batched with a
  # target's other sources (CR_UNITY).
  set_source_files_properties(${CR_OLD_GLIBC_DIR}/compat.c TARGET_DIRECTORY ${target}
    PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  set(wraps ${CR_OLD_GLIBC_WRAPPED})
  list(TRANSFORM wraps PREPEND "LINKER:--wrap=")
  target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc ${wraps})
  target_link_libraries(${target} PRIVATE
    -Wl,--no-as-needed -l:libpthread.so.0 -l:libdl.so.2 -Wl,--as-needed)
endfunction()
