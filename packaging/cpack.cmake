# Debian packages (CPack, DEB generator): `cpack --config CPackConfig.cmake` in a
# build tree configured with CMAKE_INSTALL_PREFIX=/usr (scripts/package.sh does).
#   libcloudroute0     the shared library (component lib)
#   libcloudroute-dev  header, static library, CMake package, pkg-config (component dev)
#   cloudroute         the command-line tool (component cli)
set(CR_DEB_MAINTAINER "libcloudroute maintainers <maintainers@users.noreply.a-seed-fefa3674.example>"
  CACHE STRING "Maintainer field of the Debian packages")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cloudroute)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "${CR_DEB_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL lib dev cli)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# A cross build (preset package-arm64) names its target's Debian architecture;
# a native one lets CPack ask dpkg.
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR STREQUAL "aarch64")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
endif()
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_DEBIAN_LIB_PACKAGE_NAME libcloudroute${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
# Depends from the ELF (dpkg-shlibdeps): libc6, libstdc++6, libhiredis, libssl3.
set(CPACK_DEBIAN_LIB_PACKAGE_SHLIBDEPS ON)
# A shlibs file (programs built against it depend on this version or newer)
# and the ldconfig trigger.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libcloudroute-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# The static library's live client needs hiredis and OpenSSL at link time; the
# CMake package finds hiredis through pkg-config.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libhiredis-dev, libssl-dev, pkg-config")

set(CPACK_DEBIAN_CLI_PACKAGE_NAME cloudroute)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
# Its only library beyond libcloudroute0's own dependencies is libcloudroute0
# (exact version, from the component dependency below).

include(CPack)
cpack_add_component(lib DISPLAY_NAME "libcloudroute shared library"
  DESCRIPTION "Which Redis node serves a key, with cloud locality: libcloudroute.so.0, the C ABI.")
cpack_add_component(dev DISPLAY_NAME "libcloudroute development files" DEPENDS lib
  DESCRIPTION "cloudroute.h, libcloudroute.a, the CMake package (find_package(cloudroute)) and cloudroute.pc.")
cpack_add_component(cli DISPLAY_NAME "cloudroute command-line tool" DEPENDS lib
  DESCRIPTION "cloudroute: key slots, topologies, routes and a live client from the shell.")
