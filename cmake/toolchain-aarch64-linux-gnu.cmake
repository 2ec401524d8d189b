# Cross-compiling for 64-bit Arm Linux (aarch64-linux-gnu) on a Debian amd64
# machine: Debian's cross toolchain (g++-aarch64-linux-gnu) and the arm64
# libraries from multiarch (libhiredis-dev:arm64, libssl-dev:arm64, ...) in
# /usr/lib/aarch64-linux-gnu. scripts/deps.sh installs them; the CMake preset
# package-arm64 uses this file. Programs built here run under user-mode
# emulation (qemu-aarch64-static), which ctest uses to run the tests.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# The cross toolchain's own sysroot has glibc and libstdc++; the multiarch
# libraries live in the host's /usr with aarch64-linux-gnu subdirectories,
# which CMake searches through CMAKE_LIBRARY_ARCHITECTURE. Programs (the
# compilers, pkg-config, ccache) come from the host.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# pkg-config (hiredis, cmocka) reads the arm64 .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
unset(ENV{PKG_CONFIG_PATH})

# Test programs (ctest, add_test with a target) run under qemu with the
# multiarch arm64 glibc: its dynamic loader /lib/ld-linux-aarch64.so.1 and
# libc6:arm64's libraries, which ld.so.cache names. Not `-L
# /usr/aarch64-linux-gnu`: that takes the loader from the cross toolchain's
# glibc (libc6-arm64-cross, a different build) while libc.so.6 still comes
# from multiarch, and a loader and libc of two builds disagree on their
# private shared state: the first pthread_create then walks a list forever.
find_program(CR_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(CR_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${CR_QEMU_AARCH64})
endif()

