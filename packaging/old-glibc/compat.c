/* Lets a library built with Debian 12's glibc (2.36) load on glibc 2.28
 * (manylinux_2_28: RHEL 8 and its rebuilds, Debian 10, Ubuntu 18.10+).
 *
 * Linked into the Python extension and the JVM's JNI library only
 * (cr_link_for_old_glibc in old-glibc.cmake), with every reference to the
 * symbols below redirected here by `ld --wrap=SYMBOL` — in our objects and in
 * the static archives linked in (libstdc++, libgcc, OpenSSL, hiredis), whose
 * references would otherwise bind to the newest versions of the build
 * machine's glibc. Two kinds:
 *
 * - The same function under an older version (CR_OLD): glibc 2.34 moved
 *   libpthread and libdl into libc.so.6 under new versions, 2.29 gave libm new
 *   versions of exp/log/pow (without SVID error handling, which C++ never
 *   asked for), 2.33 made stat/fstat/lstat real functions. The wrapper jumps
 *   to the old version, which glibc keeps. Before 2.34 the pthread and dl
 *   functions live in libpthread.so.0 and libdl.so.2: the library names both
 *   as NEEDED (old-glibc.cmake) so the loader finds them there.
 * - Functions glibc 2.28 lacks, written here: pthread_cond_clockwait (2.30;
 *   libstdc++'s condition_variable::wait_for on the steady clock),
 *   _dl_find_object (2.35; libgcc's unwinder, for C++ exceptions), arc4random
 *   (2.36; std::random_device) and the variable __libc_single_threaded (2.32;
 *   libstdc++'s shared_ptr counts).
 *
 * tests/package/glibc_test.sh checks what the shipped libraries need. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#if defined(__x86_64__)
#define CR_BASE "GLIBC_2.2.5"
/* A tail jump keeps every argument register: one wrapper fits any signature. */
#define CR_JUMP(to) "jmp " to "@PLT\n"
#define CR_STAT_VER 1
#define CR_COND "GLIBC_2.3.2"
#elif defined(__aarch64__)
#define CR_BASE "GLIBC_2.17"
#define CR_JUMP(to) "b " to "\n"
#define CR_STAT_VER 0
#define CR_COND "GLIBC_2.17"
#else
#error "old-glibc/compat.c: x86_64 and aarch64 only"
#endif

/* __wrap_NAME: a hidden function that jumps to NAME@VERSION. */
// clang-format off
#define CR_OLD_AT(name, version)                                         \
  __asm__(".symver cr_old_" #name ", " #name "@" version "\n"            \
          ".pushsection .text\n"                                         \
          ".globl __wrap_" #name "\n"                                    \
          ".hidden __wrap_" #name "\n"                                   \
          ".type __wrap_" #name ", %function\n"                          \
          "__wrap_" #name ":\n"                                          \
          CR_JUMP("cr_old_" #name)                                       \
          ".size __wrap_" #name ", .-__wrap_" #name "\n"                 \
          ".popsection\n");
// clang-format on
#define CR_OLD(name) CR_OLD_AT(name, CR_BASE)

CR_OLD(pthread_create)
CR_OLD(pthread_detach)
CR_OLD(pthread_join)
CR_OLD(pthread_once)
CR_OLD(pthread_key_create)
CR_OLD(__pthread_key_create)
CR_OLD(pthread_key_delete)
CR_OLD(pthread_getspecific)
CR_OLD(pthread_setspecific)
CR_OLD(pthread_mutex_trylock)
CR_OLD(pthread_mutexattr_init)
CR_OLD(pthread_mutexattr_settype)
CR_OLD(pthread_mutexattr_destroy)
CR_OLD(pthread_rwlock_init)
CR_OLD(pthread_rwlock_destroy)
CR_OLD(pthread_rwlock_rdlock)
CR_OLD(pthread_rwlock_wrlock)
CR_OLD(pthread_rwlock_unlock)
CR_OLD(pthread_attr_setstacksize)
CR_OLD(pthread_sigmask)
CR_OLD(dlopen)
CR_OLD(dlsym)
CR_OLD(dlerror)
CR_OLD(dlclose)
CR_OLD(dladdr)
CR_OLD(exp)
CR_OLD(log)
CR_OLD(pow)

/* stat, fstat, lstat: before 2.33, __xstat(version, ...) with the same struct. */
extern int cr_old_xstat(int, const char *, struct stat *);
extern int cr_old_fxstat(int, int, struct stat *);
extern int cr_old_lxstat(int, const char *, struct stat *);
__asm__(".symver cr_old_xstat, __xstat@" CR_BASE);
__asm__(".symver cr_old_fxstat, __fxstat@" CR_BASE);
__asm__(".symver cr_old_lxstat, __lxstat@" CR_BASE);

__attribute__((visibility("hidden"))) int __wrap_stat(const char *path, struct stat *st) {
  return cr_old_xstat(CR_STAT_VER, path, st);
}
__attribute__((visibility("hidden"))) int __wrap_fstat(int fd, struct stat *st) {
  return cr_old_fxstat(CR_STAT_VER, fd, st);
}
__attribute__((visibility("hidden"))) int __wrap_lstat(const char *path, struct stat *st) {
  return cr_old_lxstat(CR_STAT_VER, path, st);
}

/* Never "single-threaded": libstdc++ then always takes the atomic path,
 * which is correct in every process. */
__attribute__((visibility("hidden"))) char __wrap___libc_single_threaded = 0;

/* pthread_cond_clockwait on a condition variable of the default clock
 * (CLOCK_REALTIME, all libstdc++ creates): a steady-clock deadline becomes
 * the same distance from now on the realtime clock. */
extern int cr_old_pthread_cond_timedwait(pthread_cond_t *, pthread_mutex_t *,
                                         const struct timespec *);
__asm__(".symver cr_old_pthread_cond_timedwait, pthread_cond_timedwait@" CR_COND);

__attribute__((visibility("hidden"))) int __wrap_pthread_cond_clockwait(
    pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock, const struct timespec *abstime) {
  if (clock == CLOCK_REALTIME) return cr_old_pthread_cond_timedwait(cond, mutex, abstime);
  if (clock != CLOCK_MONOTONIC) return EINVAL;
  struct timespec mono, real;
  clock_gettime(CLOCK_MONOTONIC, &mono);
  clock_gettime(CLOCK_REALTIME, &real);
  int64_t left =
      (int64_t)(abstime->tv_sec - mono.tv_sec) * 1000000000 + (abstime->tv_nsec - mono.tv_nsec);
  if (left < 0) left = 0;
  int64_t ns = (int64_t)real.tv_nsec + left % 1000000000;
  struct timespec deadline = {real.tv_sec + (time_t)(left / 1000000000) + (time_t)(ns / 1000000000),
                              (long)(ns % 1000000000)};
  return cr_old_pthread_cond_timedwait(cond, mutex, &deadline);
}

/* std::random_device's source: the kernel's, as arc4random itself uses. */
__attribute__((visibility("hidden"))) uint32_t __wrap_arc4random(void) {
  uint32_t v;
  unsigned char *p = (unsigned char *)&v;
  size_t got = 0;
  while (got < sizeof v) {
    ssize_t n = getrandom(p + got, sizeof v - got, 0);
    if (n > 0) got += (size_t)n;
  }
  return v;
}

/* _dl_find_object for libgcc's unwinder: the loaded object holding pc, its
 * bounds and its PT_GNU_EH_FRAME (what the unwinder reads), from
 * dl_iterate_phdr as libgcc did before glibc 2.35. */
struct cr_find {
  uintptr_t pc;
  struct dl_find_object *out;
  int found;
};

static int cr_find_phdr(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct cr_find *f = arg;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  const void *eh = NULL;
  int holds = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD) {
      if (start < lo) lo = start;
      if (start + ph->p_memsz > hi) hi = start + ph->p_memsz;
      if (f->pc >= start && f->pc < start + ph->p_memsz) holds = 1;
    } else if (ph->p_type == PT_GNU_EH_FRAME) {
      eh = (const void *)start;
    }
  }
  if (!holds) return 0;
  f->out->dlfo_flags = 0;
  f->out->dlfo_map_start = (void *)lo;
  f->out->dlfo_map_end = (void *)hi;
  f->out->dlfo_link_map = NULL;
  f->out->dlfo_eh_frame = (void *)eh;
  f->found = 1;
  return 1;
}

__attribute__((visibility("hidden"))) int __wrap__dl_find_object(void *pc,
                                                                 struct dl_find_object *out) {
  struct cr_find f = {(uintptr_t)pc, out, 0};
  dl_iterate_phdr(cr_find_phdr, &f);
  return f.found ? 0 : -1;
}
