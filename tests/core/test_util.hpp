// Helpers shared by the core tests: RESP encoding of test replies.
#pragma once

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/source_dir.hpp"

namespace crtest {

// A tiny RESP2 encoder for building replies in tests.
struct R {
  enum Kind { kInt, kStr, kArr, kNull } kind;
  int64_t i = 0;
  std::string s;
  std::vector<R> a;
  R(int v) : kind(kInt), i(v) {}                     // NOLINT
  R(const char *v) : kind(kStr), s(v) {}             // NOLINT
  R(std::string v) : kind(kStr), s(std::move(v)) {}  // NOLINT
  // A list of two or more elements. One element of type R in braces is a
  // copy for clang and a one-element array for gcc: write R::Arr({x}).
  R(std::initializer_list<R> v) : kind(kArr), a(v) {}  // NOLINT
  static R Arr(std::vector<R> v) {
    R r{};
    r.a = std::move(v);
    return r;
  }
  static R Null() {
    R r(0);
    r.kind = kNull;
    return r;
  }
  std::string Encode() const {
    switch (kind) {
      case kInt:
        return ":" + std::to_string(i) + "\r\n";
      case kStr:
        return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
      case kNull:
        return "$-1\r\n";
      case kArr: {
        std::string out = "*" + std::to_string(a.size()) + "\r\n";
        for (const R &e : a) out += e.Encode();
        return out;
      }
    }
    return "";
  }
};

// The whole file as bytes ("" when it cannot be read; callers assert on it).
inline std::string ReadFile(const std::string &path) {
  std::string bytes;
  FILE *f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return bytes;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
  std::fclose(f);
  return bytes;
}

// A saved bad input: tests/fuzz/regressions/<target>/<name>.
inline std::string Regression(const std::string &target, const std::string &name) {
  return ReadFile(SourcePath("tests/fuzz/regressions/" + target + "/" + name));
}

// A CLUSTER SLOTS node entry [ip, port, id].
inline R Node(const std::string &ip, int port, const std::string &id) { return R{ip, port, id}; }

}  // namespace crtest
