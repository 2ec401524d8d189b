// Strict RESP2/RESP3 framer. See resp.hpp for the contract.
//
// Why our own and not hiredis's reader here: the core takes bytes in and
// gives decisions out with no dependency, and hiredis 0.14 (Debian 12) has no
// RESP3 and no caps of its own (`*268435456\r\n` makes it allocate ~2 GB).
// The net layer frames sockets with hiredis and the same caps.
#include "cloudroute/core/resp.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace cloudroute {
namespace {

class Framer {
 public:
  Framer(std::string_view in, const RespLimits &limits, RespFlat *out)
      : in_(in), lim_(limits), nodes_(*out) {}

  // Appends one value (and its subtree) to the nodes: one loop over the
  // values in wire order, the open aggregates on a stack (never deeper than
  // kRespMaxDepthBound), so a value costs no call of its own.
  bool Parse() {
    uint32_t open = 0;  // aggregates on the stack; a new value is at depth open + 1
    for (;;) {
      if (open >= lim_.max_depth) {
        return Fail(Code::kLimit, "nesting deeper than " + std::to_string(lim_.max_depth));
      }
      if (pos_ >= in_.size()) return Fail(Code::kIncomplete, "reply ends before a value");
      const char type = in_[pos_++];
      const size_t index = nodes_.size();
      RespNode *const at = Append(type);
      uint64_t paid = 0;
      switch (type) {
        case '$':
          if (!Bulk(at, RespType::kBulkString, /*verbatim=*/false)) return false;
          break;
        case ':':
          at->type = RespType::kInteger;
          if (!Integer(&at->integer)) return false;
          break;
        case '*':
        case '~':
        case '>':
          if (!Aggregate(at, RespType::kArray, open + 1, &paid)) return false;
          break;
        // RESP3 attributes ('|') annotate the next value; they carry nothing
        // the router uses, so they are framed as maps (to stay in frame) and
        // dropped where they end.
        case '%':
        case '|':
          if (!Aggregate(at, RespType::kMap, open + 1, &paid)) return false;
          break;
        default:
          if (!Scalar(type, at)) return false;
      }
      bool dropped = false;  // an attribute ended: the value it annotates follows
      if (at->count != 0) {
        stack_[open++] = Open{at, index, at->count, paid, 0};
      } else if (type == '|') {
        nodes_.Truncate(index);
        dropped = true;
      }
      // Closes what this value completed, up to the aggregate that wants
      // another element (charged as the tree's vector would grow).
      while (!dropped && open != 0) {
        Open &o = stack_[open - 1];
        if (o.left != 0) {
          --o.left;
          if (++o.taken > o.paid) {
            o.paid = o.paid == 0 ? 1 : 2 * o.paid;
            if (!Charge(o.paid * sizeof(RespValue))) return false;
          }
          break;
        }
        o.node->next = static_cast<uint32_t>(nodes_.size());
        --open;
        if (o.node->wire == '|') {
          nodes_.Truncate(o.index);
          dropped = true;
        }
      }
      if (open == 0 && !dropped) return true;
    }
  }

  size_t pos() const { return pos_; }

  // Records why the reply is refused (error() returns it); false, so every
  // step returns it on at once.
  [[gnu::noinline, gnu::cold]] bool Fail(Code code, const std::string &what) {
    err_ = Error(code, "RESP " + what + " at byte " + std::to_string(pos_));
    return false;
  }
  const Status &error() const { return err_; }

 private:
  // A new value of the given wire byte; a leaf until it says otherwise.
  // Blocks never move (RespFlat), so the value stays where it is while its
  // elements are appended after it.
  RespNode *Append(char wire) {
    RespNode *const n = &nodes_.Append();
    n->wire = wire;
    n->next = static_cast<uint32_t>(nodes_.size());
    return n;
  }

  // The values other than bulk strings, integers and aggregates.
  bool Scalar(char type, RespNode *at) {
    switch (type) {
      case '+':
        return Leaf(at, RespType::kSimpleString);
      case '-':
        return Leaf(at, RespType::kError);
      case '!':
        return Bulk(at, RespType::kError, false);
      case '=':
        return Bulk(at, RespType::kBulkString, true);
      case '_': {
        std::string_view empty;
        if (!Line(&empty)) return false;
        if (!empty.empty()) return Fail(Code::kParse, "null '_' carries data");
        return true;
      }
      case ',':
        return Leaf(at, RespType::kDouble);
      case '(':
        return Leaf(at, RespType::kBigNumber);
      case '#': {
        at->type = RespType::kBoolean;
        std::string_view v;
        if (!Line(&v)) return false;
        if (v != "t" && v != "f") return Fail(Code::kParse, "boolean is neither 't' nor 'f'");
        at->integer = v == "t";
        return true;
      }
      default: {
        --pos_;
        char buf[64];
        std::snprintf(buf, sizeof buf, "unknown type byte 0x%02x",
                      static_cast<unsigned char>(type));
        return Fail(Code::kParse, buf);
      }
    }
  }

  bool Leaf(RespNode *at, RespType type) {
    at->type = type;
    return Line(&at->str);
  }

  // Reads up to CRLF (exclusive) and moves past it.
  bool Line(std::string_view *out) {
    const size_t max_line = 4096;  // simple strings and numbers are short
    const char *start = in_.data() + pos_;
    const size_t avail = in_.size() - pos_;
    const void *cr = std::memchr(start, '\r', std::min(avail, max_line + 1));
    if (cr == nullptr) {
      if (avail > max_line) return Fail(Code::kLimit, "line longer than 4096 bytes");
      return Fail(Code::kIncomplete, "line without CRLF");
    }
    const size_t n = static_cast<size_t>(static_cast<const char *>(cr) - start);
    if (pos_ + n + 1 >= in_.size()) return Fail(Code::kIncomplete, "line without CRLF");
    if (in_[pos_ + n + 1] != '\n') {
      pos_ += n;
      return Fail(Code::kParse, "CR not followed by LF");
    }
    if (std::memchr(start, '\n', n) != nullptr) return Fail(Code::kParse, "bare LF in a line");
    *out = std::string_view(start, n);
    pos_ += n + 2;
    return true;
  }

  static std::string Shown(std::string_view text) { return std::string(text.substr(0, 32)); }

  // The common integer, read in one pass: 1-18 digits with no sign and no
  // leading zero, then CRLF. False (nothing consumed) for anything else,
  // which Integer() reads the long way, with its checks and messages.
  bool PlainInteger(int64_t *out) {
    const char *const p = in_.data() + pos_;
    const size_t most = std::min<size_t>(in_.size() - pos_, 18);
    uint64_t v = 0;
    size_t n = 0;
    // A byte below '0' wraps around: one test for a digit.
    for (unsigned d; n < most && (d = unsigned{static_cast<unsigned char>(p[n])} - '0') < 10; ++n) {
      v = v * 10 + d;
    }
    // n < most leaves p[n] in the input; the LF after it is checked only
    // once the CR is there (and then the input may end right after).
    if (n == 0 || n == most || p[n] != '\r' || (n > 1 && p[0] == '0') ||
        pos_ + n + 1 == in_.size() || p[n + 1] != '\n') {
      return false;
    }
    *out = static_cast<int64_t>(v);
    pos_ += n + 2;
    return true;
  }

  // Most integers are plain (PlainInteger, inlined where they are read);
  // the rest take SpelledInteger's checks, out of line.
  bool Integer(int64_t *out) { return PlainInteger(out) || SpelledInteger(out); }

  [[gnu::noinline]] bool SpelledInteger(int64_t *out) {
    const size_t at = pos_;
    std::string_view text;
    if (!Line(&text)) return false;
    size_t i = 0;
    const bool neg = !text.empty() && text[0] == '-';
    if (neg) ++i;
    if (i == text.size()) {
      pos_ = at;
      return Fail(Code::kParse, "empty integer");
    }
    // One spelling per number: no '+', no "-0", no leading zeros.
    if (text[0] == '+' || (text[i] == '0' && (neg || text.size() > i + 1))) {
      pos_ = at;
      return Fail(Code::kParse, "integer with a sign or leading zero '" + Shown(text) + "'");
    }
    uint64_t v = 0;
    // 18 digits always fit; from the 19th on, each is checked for overflow.
    const size_t safe_end = i + 18;
    for (; i < text.size(); ++i) {
      const char c = text[i];
      if (c < '0' || c > '9') {
        pos_ = at;
        return Fail(Code::kParse, "invalid integer '" + Shown(text) + "'");
      }
      const uint64_t limit = neg ? 9223372036854775808ull : 9223372036854775807ull;
      const uint64_t d = static_cast<uint64_t>(c - '0');
      if (i >= safe_end && v > (limit - d) / 10) {
        pos_ = at;
        return Fail(Code::kParse, "integer out of range '" + Shown(text) + "'");
      }
      v = v * 10 + d;
    }
    *out = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
    return true;
  }

  [[gnu::always_inline]] bool Bulk(RespNode *node, RespType type, bool verbatim) {
    const size_t at = pos_;
    int64_t len = 0;
    if (!Integer(&len)) return false;
    if (len == -1 && !verbatim && type == RespType::kBulkString) return true;  // null
    if (len < 0 || static_cast<uint64_t>(len) > lim_.max_bulk_len) return BadBulkLength(at, len);
    const size_t n = static_cast<size_t>(len);
    if (in_.size() - pos_ < n + 2) return Fail(Code::kIncomplete, "bulk string cut short");
    if (in_[pos_ + n] != '\r' || in_[pos_ + n + 1] != '\n') {
      pos_ += n;
      return Fail(Code::kParse, "bulk string not followed by CRLF");
    }
    RespNode &out = *node;
    out.type = type;
    if (verbatim) {
      // "txt:" then the text.
      if (n < 4 || in_[pos_ + 3] != ':')
        return Fail(Code::kParse, "verbatim string without format");
      out.str = in_.substr(pos_ + 4, n - 4);
    } else {
      out.str = std::string_view(in_.data() + pos_, n);  // in the input: checked above
    }
    pos_ += n + 2;
    // A short string costs the tree nothing (and charging nothing cannot
    // fail: the input only grew since the last charge).
    return out.str.size() <= 15 || Charge(TreeStringCost(out.str.size()));
  }

  // A bulk length (read at `at`) below 0 or above the cap.
  [[gnu::noinline, gnu::cold]] bool BadBulkLength(size_t at, int64_t len) {
    pos_ = at;
    if (len < 0) return Fail(Code::kParse, "negative bulk length " + std::to_string(len));
    return Fail(Code::kLimit, "bulk length " + std::to_string(len) + " exceeds the cap of " +
                                  std::to_string(lim_.max_bulk_len));
  }

  // An aggregate's header: its count, checked against the caps, and what
  // the tree's element vector reserves up front (*paid elements; see
  // resp.hpp): every element takes at least 3 bytes ("_\r\n"), so the tree
  // never reserves more than the remaining input can hold, nor more than
  // kReserve, then doubles as elements arrive (Parse charges that).
  bool Aggregate(RespNode *node, RespType type, uint32_t depth, uint64_t *paid) {
    const size_t at = pos_;
    int64_t count = 0;
    if (!Integer(&count)) return false;
    if (count == -1 && type == RespType::kArray) return true;  // null
    if (count < 0) {
      pos_ = at;
      return Fail(Code::kParse, "negative element count " + std::to_string(count));
    }
    if (static_cast<uint64_t>(count) > lim_.max_elements) {
      pos_ = at;
      return Fail(Code::kLimit, "element count " + std::to_string(count) + " exceeds the cap of " +
                                    std::to_string(lim_.max_elements));
    }
    uint64_t n = static_cast<uint64_t>(count);
    if (type == RespType::kMap) n *= 2;
    if (depth < lim_.max_elements_at_depth.size() && lim_.max_elements_at_depth[depth] != 0 &&
        n > lim_.max_elements_at_depth[depth]) {
      pos_ = at;
      return Fail(Code::kLimit, std::to_string(n) + " elements at depth " + std::to_string(depth) +
                                    " where this reply has at most " +
                                    std::to_string(lim_.max_elements_at_depth[depth]));
    }
    node->type = type;
    node->count = static_cast<uint32_t>(n);
    const uint64_t can_hold = (in_.size() - pos_) / 3;
    *paid = std::min({n, can_hold, kReserve});
    return Charge(*paid * sizeof(RespValue));
  }

  // What the tree's std::string of n bytes allocates: nothing up to the
  // inline 15, then at least twice the inline capacity, and the NUL.
  static uint64_t TreeStringCost(size_t n) { return n > 15 ? std::max<size_t>(n, 30) + 1 : 0; }

  // Adds `bytes` to what the tree costs and refuses content that costs more
  // than kRespMemoryPerInputByte per byte read (see resp.hpp). Vectors that
  // grew count every buffer they had, as the allocator saw them.
  bool Charge(uint64_t bytes) {
    cost_ += bytes;
    return cost_ <= kRespMemoryPerInputByte * pos_ + kRespMemoryFloor || Overcharged();
  }
  [[gnu::noinline, gnu::cold]] bool Overcharged() {
    return Fail(Code::kLimit, "reply costs " + std::to_string(cost_) + " bytes of memory after " +
                                  std::to_string(pos_) + " bytes of input (more than " +
                                  std::to_string(kRespMemoryPerInputByte) + " per byte)");
  }

  static constexpr uint64_t kReserve = 1024;

  // An aggregate whose elements are being framed.
  struct Open {
    RespNode *node;
    size_t index;    // of node
    uint32_t left;   // elements not yet begun
    uint64_t paid;   // elements the tree's vector has room for
    uint64_t taken;  // elements begun
  };

  std::string_view in_;
  const RespLimits &lim_;
  RespFlat &nodes_;
  size_t pos_ = 0;
  uint64_t cost_ = 0;
  Status err_;  // the failure, once a step returned false
  Open stack_[kRespMaxDepthBound];
};

// The tree of the subtree at nodes[i].
void ToTree(const RespFlat &nodes, size_t i, RespValue *out) {
  const RespNode &n = nodes[i];
  out->type = n.type;
  out->wire = n.wire;
  out->integer = n.integer;
  out->str.assign(n.str.data(), n.str.size());
  out->elements.resize(n.count);
  size_t c = i + 1;
  for (RespValue &e : out->elements) {
    ToTree(nodes, c, &e);
    c = nodes[c].next;
  }
}

void Flatten(const RespValue &v, RespFlat *out) {
  const size_t at = out->size();
  RespNode &n = out->Append();
  n.str = v.str;
  n.integer = v.integer;
  n.count = static_cast<uint32_t>(v.elements.size());
  n.type = v.type;
  n.wire = v.wire;
  for (const RespValue &e : v.elements) Flatten(e, out);
  (*out)[at].next = static_cast<uint32_t>(out->size());
}

}  // namespace

const char *RespTypeName(RespType type) {
  switch (type) {
    case RespType::kSimpleString:
      return "simple string";
    case RespType::kError:
      return "error";
    case RespType::kInteger:
      return "integer";
    case RespType::kBulkString:
      return "bulk string";
    case RespType::kNull:
      return "null";
    case RespType::kArray:
      return "array";
    case RespType::kMap:
      return "map";
    case RespType::kDouble:
      return "double";
    case RespType::kBoolean:
      return "boolean";
    case RespType::kBigNumber:
      return "big number";
  }
  return "?";
}

Status ParseRespFlat(std::string_view bytes, const RespLimits &limits, RespFlat *out) {
  if (limits.max_depth > kRespMaxDepthBound) {
    return Error(Code::kInvalid, "RESP max_depth " + std::to_string(limits.max_depth) +
                                     " is above the bound of " +
                                     std::to_string(kRespMaxDepthBound));
  }
  if (bytes.size() > limits.max_total_bytes) {
    return Error(Code::kLimit, "RESP reply of " + std::to_string(bytes.size()) +
                                   " bytes exceeds the cap of " +
                                   std::to_string(limits.max_total_bytes));
  }
  out->Truncate(0);
  Framer f(bytes, limits, out);
  if (!f.Parse()) return f.error();
  if (f.pos() != bytes.size()) {
    f.Fail(Code::kParse, "trailing bytes after the reply");
    return f.error();
  }
  return Status::Ok();
}

Result<RespValue> ParseResp(std::string_view bytes, const RespLimits &limits) {
  RespFlat flat;
  Status s = ParseRespFlat(bytes, limits, &flat);
  if (!s.ok()) return s;
  RespValue v;
  ToTree(flat, 0, &v);
  return v;
}

void RespFlat::NextBlock() {
  const size_t b = size_ / kBlock;
  if (b == blocks_.size()) {
    std::unique_ptr<RespNode, FreeBlock> block(
        static_cast<RespNode *>(::operator new(kBlock * sizeof(RespNode))));
    blocks_.push_back(std::move(block));
  }
  tail_ = blocks_[b].get() + size_ % kBlock;
  room_ = kBlock - size_ % kBlock;
}

void FlattenResp(const RespValue &v, RespFlat *out) {
  out->Truncate(0);
  Flatten(v, out);
}

}  // namespace cloudroute
