// Reply trees built by hand, for tests of code that checks what a server
// sent (the command table, pub/sub frames): Str("x"), Int(1), Nil(),
// A(Str("a"), A()) for an array of its arguments. Header-only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cloudroute/net/reply.hpp"

namespace reply_build {

using cloudroute::RespType;
using cloudroute::net::Reply;
using cloudroute::net::ReplyPtr;

inline ReplyPtr Str(const std::string &s) {
  auto r = std::make_unique<Reply>();
  r->type = RespType::kBulkString;
  r->str = s;
  return r;
}
inline ReplyPtr Int(int64_t v) {
  auto r = std::make_unique<Reply>();
  r->type = RespType::kInteger;
  r->integer = v;
  return r;
}
inline ReplyPtr Nil() { return std::make_unique<Reply>(); }
inline ReplyPtr Arr(std::vector<ReplyPtr> els) {
  auto r = std::make_unique<Reply>();
  r->type = RespType::kArray;
  r->elements = std::move(els);
  return r;
}
template <typename... T>
ReplyPtr A(T... els) {
  std::vector<ReplyPtr> v;
  (v.push_back(std::move(els)), ...);
  return Arr(std::move(v));
}

}  // namespace reply_build
