// RESP values and a strict framer for RESP2 and RESP3 bytes.
//
// The framer parses one complete reply from a buffer (a saved reply, or the
// bytes the net layer read) into a flat list of values (RespFlat: what the
// CLUSTER SLOTS / SHARDS parsers walk for a reply their direct walk of the
// bytes leaves to it, see core/src/resp_plain.hpp) or a small tree built
// from it. It is hostile-input safe: the
// element count of every aggregate, the length of every bulk string, the
// nesting depth and the total size are capped, nothing is allocated from a
// declared count before the bytes behind it exist, and every failure says
// what was wrong and at which byte offset.
//
// Thread-safety: pure functions; values are plain data.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
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
  // The type byte as framed here ('=' verbatim, '~' set, '>' push, '+', '$',
  // '*' …), so a parser can refuse a kind the type merges; 0 when the value
  // was framed elsewhere (the net layer's hiredis reader).
  char wire = 0;
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

// One reply as a flat list of values in preorder (a value, then its
// elements' subtrees), for parsers that walk a reply once: a few blocks
// instead of a heap node per value, and strings as views into the framed
// bytes (or into the RespValue it was flattened from), so it must not
// outlive them. flat[0] is the reply; a value's elements start right after
// it and each element's subtree ends where `next` says.
struct RespNode {
  std::string_view str;  // strings, error text, double / big number text
  int64_t integer = 0;   // integers; booleans as 0/1
  uint32_t next = 0;     // index just past this value's subtree
  uint32_t count = 0;    // aggregates: elements (a map counts keys and values)
  RespType type = RespType::kNull;
  char wire = 0;  // as RespValue::wire

  bool is_string() const {
    return type == RespType::kBulkString || type == RespType::kSimpleString;
  }
  bool is_map_like() const {
    return type == RespType::kMap || (type == RespType::kArray && count % 2 == 0);
  }
};

// The values sit in blocks of kBlock: growing never copies what is there,
// and what is allocated stays within one block of what is used (a memory
// refusal, see kRespMemoryPerInputByte, comes before the flat form has
// allocated as much as the input's size).
class RespFlat {
 public:
  static constexpr size_t kBlock = 512;

  size_t size() const { return size_; }
  RespNode &operator[](size_t i) { return blocks_[i / kBlock].get()[i % kBlock]; }
  const RespNode &operator[](size_t i) const { return blocks_[i / kBlock].get()[i % kBlock]; }
  // A new, default value at the end (index size() - 1).
  RespNode &Append() {
    if (room_ == 0) NextBlock();
    --room_;
    ++size_;
    return *new (tail_++) RespNode();
  }
  // Drops the values from index n on (their blocks stay for reuse).
  void Truncate(size_t n) {
    if (n >= size_) return;
    SetSize(n);
  }

  // For a writer that makes values in place (the framer, which keeps its
  // place and room in registers rather than here): value i's place, its
  // block allocated if new, and in *room the places from it to its block's
  // end. SetSize(n) then says values 0 … n-1 are made (and the next Append
  // goes after them).
  RespNode *Place(size_t i, size_t *room);
  void SetSize(size_t n) {
    size_ = n;
    room_ = 0;  // the next Append finds value n's place
  }

 private:
  // A block's values are made as Append reaches them (RespNode needs no
  // destruction), not all at once when it is allocated.
  static_assert(std::is_trivially_destructible<RespNode>::value, "blocks are freed unmade");
  struct FreeBlock {
    void operator()(RespNode *block) const { ::operator delete(block); }
  };
  std::vector<std::unique_ptr<RespNode, FreeBlock>> blocks_;
  void NextBlock() { tail_ = Place(size_, &room_); }

  RespNode *tail_ = nullptr;  // where the next value goes
  size_t room_ = 0;           // values left in tail_'s block
  size_t size_ = 0;
};

// The framer recurses once per level, so the depth has a hard bound whatever
// a caller asks for (kInvalid above it).
constexpr uint32_t kRespMaxDepthBound = 64;

// The parsed tree costs at most this many bytes per input byte read so far,
// plus kRespMemoryFloor: content that would cost more (thousands of 3-byte
// nulls, each a 72-byte RespValue) is refused as soon as it outgrows the
// ratio, so memory stays within a small multiple of the input. The flat
// form is charged what the tree would cost, so a reply is accepted or
// refused alike in either form; the flat one costs less (40 bytes a value,
// no string copies).
constexpr uint64_t kRespMemoryPerInputByte = 16;
constexpr uint64_t kRespMemoryFloor = 1u << 20;

struct RespLimits {
  uint32_t max_elements = 1u << 20;
  uint32_t max_depth = 8;
  uint64_t max_bulk_len = 64u * 1024;
  uint64_t max_total_bytes = 64u * 1024 * 1024;
  // Per-depth element caps for replies of a known shape (index 1 = the reply
  // itself, 2 = its elements, …; a map counts keys and values); 0 = no cap
  // beyond max_elements.
  std::array<uint32_t, 8> max_elements_at_depth{};
};

const char *RespTypeName(RespType type);

// Parses exactly one reply that spans all of `bytes` (trailing bytes are an
// error). Integers are strict: an optional '-', then digits without leading
// zeros ("+1", "-0" and "007" are refused). Errors: kParse (malformed),
// kLimit (a cap, or the memory ratio above), kIncomplete (the bytes end
// inside the reply), kInvalid (max_depth above kRespMaxDepthBound).
Result<RespValue> ParseResp(std::string_view bytes, const RespLimits &limits);

// The same framing and errors, into the flat form (views into `bytes`).
Status ParseRespFlat(std::string_view bytes, const RespLimits &limits, RespFlat *out);

// A value framed elsewhere as the flat form (views into `v`).
void FlattenResp(const RespValue &v, RespFlat *out);

}  // namespace cloudroute
