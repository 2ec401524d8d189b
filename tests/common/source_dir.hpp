// Where the checkout's files are, for tests that read test vectors, the saved
// examples or the fuzz regressions: SourcePath("tests/vectors/rings.json").
//
// Found at run time, not compiled in: $CR_SOURCE_DIR when set (CTest sets it
// for every core test), else the nearest directory above the test executable
// that holds tests/vectors (a build tree inside the checkout). A compiled-in
// path would make every object depend on where the checkout lies, and no two
// clones could share a compiler cache.
//
// Header-only; any test directory includes it as "common/source_dir.hpp".
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace crtest {

inline const std::string &SourceDir() {
  static const std::string dir = [] {
    const char *env = std::getenv("CR_SOURCE_DIR");
    if (env != nullptr && *env != '\0') return std::string(env);
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    std::string p(exe, n > 0 ? static_cast<size_t>(n) : 0);
    for (size_t slash = p.rfind('/'); slash != std::string::npos && slash > 0;
         slash = p.rfind('/')) {
      p.resize(slash);
      struct stat st;
      if (stat((p + "/tests/vectors").c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return p;
    }
    std::fprintf(stderr,
                 "tests: no checkout above this executable (no tests/vectors): set CR_SOURCE_DIR "
                 "to the repository's root\n");
    std::exit(2);
  }();
  return dir;
}

// The checkout's file or directory `relative` (to the repository's root).
inline std::string SourcePath(const std::string &relative) { return SourceDir() + "/" + relative; }

}  // namespace crtest
