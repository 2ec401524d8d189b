// RESP values and a strict framer for RESP2 and RESP3 bytes.
//
// The framer parses one complete reply from a buffer (a saved reply, or the
// bytes the net layer read) into a small tree. It is hostile-input safe: the
// element count of every aggregate, the length of every bulk string, the
// nesting depth and the total size are capped, nothing is allocated from a
// declared count before the bytes behind it exist, and every failure says
// what was wrong and at which byte offset.
//
// Thread-safety: pure functions; values are plain data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cloudroute/core/status.hpp"

namespace cloudroute {

enum class RespType : uint8_t {
  kSimpleString,  // +
  kError,         // -  and RESP3 blob error !
  kInteger,       // :
  kBulkString,    // $  and RESP3 verbatim =  (format prefix stripped)
  kNull,          // $-1, *-1, RESP3 _
  kArray,         // *  and RESP3 set ~ and push >
  kMap,           // RESP3 %  (elements hold key, value, key, value, …)
  kDouble,        // RESP3 ,  (kept as text)
  kBoolean,       // RESP3 #  (integer 0/1)
  kBigNumber,     // RESP3 (  (kept as text)
};

struct RespValue {
  RespType type = RespType::kNull;
  int64_t integer = 0;
  std::string str;
  std::vector<RespValue> elements;

  bool is_string() const {
    return type == RespType::kBulkString || type == RespType::kSimpleString;
  }
  // A map as RESP3 sends it, or a flat key/value array as RESP2 sends it.
  bool is_map_like() const {
    return type == RespType::kMap || (type == RespType::kArray && elements.size() % 2 == 0);
  }
};

struct RespLimits {
  uint32_t max_elements = 1u << 20;
  uint32_t max_depth = 8;
  uint64_t max_bulk_len = 64u * 1024;
  uint64_t max_total_bytes = 64u * 1024 * 1024;
};

const char *RespTypeName(RespType type);

// Parses exactly one reply that spans all of `bytes` (trailing bytes are an
// error). Errors: kParse (malformed), kLimit (a cap), kIncomplete (the bytes
// end inside the reply).
Result<RespValue> ParseResp(std::string_view bytes, const RespLimits &limits);

}  // namespace cloudroute
