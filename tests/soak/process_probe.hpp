// The soak's view of its own process (Linux): resident memory, the heap
// glibc reports in use, open file descriptors and threads. Header-only.
#pragma once

#include <dirent.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace soak {

struct ProcessSample {
  uint64_t rss_kib = 0;
  uint64_t heap_kib = 0;  // mallinfo2: bytes in use in the arenas plus mmapped blocks
  int fds = 0;
  int threads = 0;
};

// "Key:   value kB" from /proc/self/status; 0 when absent.
inline uint64_t StatusField(const std::string &key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size() + 1, key + ":") == 0) {
      return std::stoull(line.substr(key.size() + 1));
    }
  }
  return 0;
}

inline int OpenFds() {
  DIR *d = opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  int n = 0;
  while (const dirent *e = readdir(d)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(d);
  return n - 1;  // the directory stream's own descriptor
}

inline ProcessSample Sample() {
  ProcessSample s;
  s.rss_kib = StatusField("VmRSS");
  s.threads = static_cast<int>(StatusField("Threads"));
  const struct mallinfo2 mi = mallinfo2();
  s.heap_kib = (mi.uordblks + mi.hblkhd) / 1024;
  s.fds = OpenFds();
  return s;
}

inline std::string Format(const ProcessSample &s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "rss=%.1fMiB heap=%.1fMiB fds=%d threads=%d",
                static_cast<double>(s.rss_kib) / 1024.0, static_cast<double>(s.heap_kib) / 1024.0,
                s.fds, s.threads);
  return buf;
}

}  // namespace soak
