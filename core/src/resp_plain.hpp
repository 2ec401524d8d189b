// The framer's reading of the common RESP values, shared by the framer
// (resp.cpp) and by the reply walkers that read a reply's bytes directly
// (RespPlainReader below). Internal to core/src.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <tuple>

#include "cloudroute/core/resp.hpp"

namespace cloudroute {
namespace resp_plain {

// The common length or integer at *p: 1-18 digits with no sign and no
// leading zero, then CRLF; *p moves past it. False (nothing moved) for
// anything else, which the framer's general steps read with their checks
// and messages.
[[gnu::always_inline]] inline bool PlainLength(const char **p, const char *end, uint64_t *out) {
  const char *const s = *p;
  // A byte below '0' wraps around: one test for a digit.
  auto digit = [](char c) { return unsigned{static_cast<unsigned char>(c)} - '0'; };
  // One or two digits, most lengths in a reply, without a loop.
  if (end - s >= 4) {
    const unsigned d0 = digit(s[0]);
    if (d0 < 10 && s[1] == '\r' && s[2] == '\n') {
      *out = d0;
      *p = s + 3;
      return true;
    }
    const unsigned d1 = digit(s[1]);
    if (d0 - 1 < 9 && d1 < 10 && s[2] == '\r' && s[3] == '\n') {
      *out = d0 * 10 + d1;
      *p = s + 4;
      return true;
    }
  }
  const char *const most = s + std::min<size_t>(static_cast<size_t>(end - s), 18);
  const char *d = s;
  uint64_t v = 0;
  for (unsigned c; d != most && (c = digit(*d)) < 10; ++d) v = v * 10 + c;
  // d < most leaves *d in the input; the LF after it is checked only once
  // the CR is there (and then the input may end right after).
  if (d == s || d == most || *d != '\r' || d + 1 == end || d[1] != '\n' ||
      (*s == '0' && d - s > 1)) {
    return false;
  }
  *out = v;
  *p = d + 2;
  return true;
}

// What the tree's std::string of n bytes allocates: nothing up to the
// inline 15, then at least twice the inline capacity, and the NUL.
inline uint64_t TreeStringCost(size_t n) { return n > 15 ? std::max<size_t>(n, 30) + 1 : 0; }

// The elements an aggregate's tree vector reserves at most up front (see
// the framer's Aggregate step).
constexpr uint64_t kReserve = 1024;

// The longest simple string or number line the framer reads.
constexpr size_t kMaxLine = 4096;

}  // namespace resp_plain

// Reads a reply's values straight from its bytes, in wire order, where they
// are of the plain forms only: bulk strings ('$' with a plain length), simple
// strings ('+'), integers (':' with 1-18 digits, no sign) and arrays ('*')
// or maps ('%') of plain counts. Every value it reads is one the framer
// (ParseRespFlat with the same limits) reads alike and accepts: the same
// caps (elements, per-depth elements, bulk length, depth) and the same
// memory charges against kRespMemoryPerInputByte, made at the same bytes.
// Anything else — any other form, and anything the framer would refuse —
// makes a step return false, after which the reader is not used again: a
// walker over it then gives the reply to the framer, which refuses it or
// frames it in full (so the reader never decides a refusal).
//
// The walker says where each value sits (its depth, 1 for the reply) and
// begins each element of an aggregate with Begin, as the framer charges an
// element its tree vector has no room for as it begins.
class RespPlainReader {
 public:
  // A value as read: wire is the type byte ('$', '+', ':', '*' or '%').
  struct Value {
    char wire = 0;
    std::string_view str;  // strings
    uint64_t n = 0;        // integers; aggregates: elements (a map counts keys and values)
    uint64_t paid = 0;     // aggregates: elements the tree's vector has room for
    uint64_t begun = 0;    // aggregates: elements begun
  };

  // limits as the framer would take them; false from usable() when they
  // are ones the framer refuses at once, or the reply may hold values
  // deeper than min_depth that this reader would have to refuse.
  RespPlainReader(std::string_view bytes, const RespLimits &limits, uint32_t min_depth)
      : begin_(bytes.data()),
        p_(bytes.data()),
        end_(bytes.data() + bytes.size()),
        max_bulk_len_(limits.max_bulk_len),
        max_elements_(limits.max_elements),
        max_depth_(limits.max_depth),
        usable_(limits.max_depth >= min_depth && limits.max_depth <= kRespMaxDepthBound &&
                bytes.size() <= limits.max_total_bytes) {
    for (size_t d = 0; d < kCapped; ++d) {
      const uint32_t cap = limits.max_elements_at_depth[d];
      cap_at_[d] = cap != 0 ? cap : ~uint64_t{0};
    }
  }

  bool usable() const { return usable_; }
  // All the bytes are read (the framer refuses trailing bytes).
  bool at_end() const { return p_ == end_; }

  // The value at `depth` (not above the limits' max_depth: the caller's
  // shape keeps to usable()'s min_depth, Skip checks it). Inlined where it
  // is read, which mostly knows the depth; each result is stored into *v
  // last (a char store may alias the reader's members, which would then be
  // read again).
  [[gnu::always_inline]] bool Read(uint32_t depth, Value *v) {
    const char *const p = p_;
    if (p == end_) return false;
    const char type = *p;
    const char *q = p + 1;
    uint64_t n;
    if (type == '$') {
      if (!resp_plain::PlainLength(&q, end_, &n) || n > max_bulk_len_ ||
          static_cast<size_t>(end_ - q) < n + 2 || q[n] != '\r' || q[n + 1] != '\n') {
        return false;
      }
      p_ = q + n + 2;
      // A short string costs the tree nothing.
      if (n > 15 && !Charge(resp_plain::TreeStringCost(n))) return false;
      v->str = std::string_view(q, n);
      v->wire = '$';
      return true;
    }
    if (type == ':') {
      if (!resp_plain::PlainLength(&q, end_, &n)) return false;
      p_ = q;
      v->n = n;
      v->wire = ':';
      return true;
    }
    if (type == '*' || type == '%') {
      if (!resp_plain::PlainLength(&q, end_, &n) || n > max_elements_) return false;
      if (type == '%') n *= 2;
      if (depth < kCapped && n > cap_at_[depth]) return false;
      p_ = q;
      const uint64_t paid =
          std::min({n, static_cast<uint64_t>(end_ - q) / 3, resp_plain::kReserve});
      if (!Charge(paid * sizeof(RespValue))) return false;
      v->n = n;
      v->paid = paid;
      v->begun = 0;
      v->wire = type;
      return true;
    }
    if (type == '+') return Line(v);
    return false;
  }

  // Begins the next element of aggregate a (the caller counts them against
  // a->n): charged as the tree's vector grows.
  [[gnu::always_inline]] bool Begin(Value *a) {
    if (++a->begun <= a->paid) return true;
    a->paid = a->paid == 0 ? 1 : 2 * a->paid;
    return Charge(a->paid * sizeof(RespValue));
  }

  // Reads the value at `depth` and its subtree, for a value the shape
  // ignores.
  bool Skip(uint32_t depth) {
    Value v;
    return depth <= max_depth_ && Read(depth, &v) && SkipElements(&v, depth + 1);
  }

  // Reads the elements (at `depth`) of v, just read, if it is an
  // aggregate, for one the shape ignores.
  bool SkipElements(Value *v, uint32_t depth) {
    if (v->wire != '*' && v->wire != '%') return true;
    for (uint64_t i = 0; i < v->n; ++i) {
      if (!Begin(v) || !Skip(depth)) return false;
    }
    return true;
  }

 private:
  // A simple string: up to CRLF, as the framer's Line accepts it.
  bool Line(Value *v) {
    const char *const start = p_ + 1;
    const size_t avail = static_cast<size_t>(end_ - start);
    const void *cr = std::memchr(start, '\r', std::min(avail, resp_plain::kMaxLine + 1));
    if (cr == nullptr) return false;
    const size_t n = static_cast<size_t>(static_cast<const char *>(cr) - start);
    if (n + 1 >= avail || start[n + 1] != '\n' || std::memchr(start, '\n', n) != nullptr) {
      return false;
    }
    p_ = start + n + 2;
    v->str = std::string_view(start, n);
    v->wire = '+';
    return true;
  }

  // As the framer charges what the tree would cost: refused past
  // kRespMemoryPerInputByte per byte read so far, plus kRespMemoryFloor.
  bool Charge(uint64_t bytes) {
    cost_ += bytes;
    return cost_ <= kRespMemoryPerInputByte * static_cast<uint64_t>(p_ - begin_) + kRespMemoryFloor;
  }

  // The depths whose element caps a RespLimits can set.
  static constexpr size_t kCapped = std::tuple_size<decltype(RespLimits::max_elements_at_depth)>();

  const char *const begin_;
  const char *p_;
  const char *const end_;
  // The limits, copied: a walker's stores may not alias them.
  const uint64_t max_bulk_len_;
  const uint64_t max_elements_;
  const uint32_t max_depth_;
  uint64_t cap_at_[kCapped];  // ~0 where none is set
  uint64_t cost_ = 0;
  const bool usable_;
};

}  // namespace cloudroute
