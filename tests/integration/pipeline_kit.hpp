// Shared by the pipeline tests (pipeline_test.cc, ryw_test.cc): a
// cr_pipeline that holds the arguments it borrows until Execute, and each
// command's result flattened for assertions. Header-only.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "cloudroute.h"

namespace crtest {

inline std::string HostOf(const std::string &addr) { return addr.substr(0, addr.rfind(':')); }
inline uint16_t PortOf(const std::string &addr) {
  return static_cast<uint16_t>(std::atoi(addr.c_str() + addr.rfind(':') + 1));
}

// One command's result, flattened for assertions.
struct Result {
  cr_status status = CR_OK;
  cr_reply_type type = CR_REPLY_TYPE_NIL;
  std::string text;  // string, status or error text
  int64_t integer = 0;
  std::vector<std::string> elements;  // an array's strings
};

// A cr_pipeline with storage for the arguments it borrows until Execute.
class Pipe {
 public:
  explicit Pipe(cr_client *c) { EXPECT_EQ(cr_pipeline_new(&p_, c), CR_OK) << cr_last_error(); }
  ~Pipe() { cr_pipeline_free(p_); }
  Pipe(const Pipe &) = delete;
  Pipe &operator=(const Pipe &) = delete;

  cr_status Add(cr_access access, std::vector<std::string> argv, size_t key_index = 1) {
    Hold(std::move(argv));
    return cr_pipeline_add(p_, access, key_index, args_.back().size(), ptrs_.back().data(),
                           lens_.back().data());
  }
  cr_status AddNode(cr_access access, const std::string &addr, std::vector<std::string> argv) {
    Hold(std::move(argv));
    return cr_pipeline_add_node(p_, access, HostOf(addr).c_str(), PortOf(addr), args_.back().size(),
                                ptrs_.back().data(), lens_.back().data());
  }
  size_t count() const { return cr_pipeline_get_count(p_); }

  // Runs the pipeline; *out gets every result in order. Returns its status.
  cr_status Execute(std::vector<Result> *out) {
    const size_t n = count();
    std::vector<cr_reply *> replies(n, nullptr);
    std::vector<cr_status> statuses(n, CR_EINTERNAL);
    size_t needed = 0;
    const cr_status st = cr_pipeline_execute(replies.data(), statuses.data(), n, &needed, p_);
    EXPECT_EQ(needed, n);
    out->assign(n, Result());
    for (size_t i = 0; i < n; ++i) {
      Result &r = (*out)[i];
      r.status = statuses[i];
      r.type = cr_reply_get_type(replies[i]);
      size_t len = 0;
      const char *s = cr_reply_get_string(replies[i], &len);
      if (s != nullptr) r.text.assign(s, len);
      r.integer = cr_reply_get_integer(replies[i]);
      for (size_t j = 0; j < cr_reply_get_count(replies[i]); ++j) {
        s = cr_reply_get_string(cr_reply_get_element(replies[i], j), &len);
        r.elements.emplace_back(s == nullptr ? "(nil)" : std::string(s, len));
      }
      cr_reply_free(replies[i]);
    }
    args_.clear();
    ptrs_.clear();
    lens_.clear();
    return st;
  }

 private:
  void Hold(std::vector<std::string> argv) {
    args_.push_back(std::move(argv));
    ptrs_.emplace_back();
    lens_.emplace_back();
    for (const std::string &a : args_.back()) {
      ptrs_.back().push_back(a.data());
      lens_.back().push_back(a.size());
    }
  }

  cr_pipeline *p_ = nullptr;
  std::deque<std::vector<std::string>> args_;
  std::deque<std::vector<const void *>> ptrs_;
  std::deque<std::vector<size_t>> lens_;
};

}  // namespace crtest
