// Reply: one server reply as a tree, built by the capped hiredis reader
// (see reader.hpp). Children are owned by pointer, so building a reply never
// allocates from a declared element count and a node's address is stable
// while its children arrive.
//
// Thread-safety: plain data.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cloudroute/core/resp.hpp"

namespace cloudroute {
namespace net {

struct Reply {
  RespType type = RespType::kNull;
  int64_t integer = 0;
  std::string str;  // strings, status, error text, RESP3 double / big number as text
  std::vector<std::unique_ptr<Reply>> elements;

  bool is_error() const { return type == RespType::kError; }
  bool is_string() const {
    return type == RespType::kBulkString || type == RespType::kSimpleString;
  }
};
using ReplyPtr = std::unique_ptr<Reply>;

// A copy as core's value type (what the topology parsers take).
RespValue ToRespValue(const Reply &r);

// An error reply's first word: "MOVED", "ASK", "TRYAGAIN", "WRONGTYPE", …
std::string ErrorPrefix(const Reply &r);

}  // namespace net
}  // namespace cloudroute
