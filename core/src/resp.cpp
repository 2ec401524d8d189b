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

#include "resp_plain.hpp"

namespace cloudroute {
namespace {

using resp_plain::kReserve;
using resp_plain::PlainLength;
using resp_plain::TreeStringCost;

class Framer {
 public:
  Framer(std::string_view in, const RespLimits &limits, RespFlat *out)
      : in_(in), lim_(limits), nodes_(*out) {
    // The reply's element cap at each depth, none where it sets none.
    for (uint32_t d = 0; d <= kRespMaxDepthBound; ++d) {
      const bool capped =
          d < lim_.max_elements_at_depth.size() && lim_.max_elements_at_depth[d] != 0;
      cap_at_[d] = capped ? lim_.max_elements_at_depth[d] : ~uint64_t{0};
    }
  }

  // Appends one value (and its subtree) to the nodes: one loop over the
  // values in wire order, the open aggregates on a stack (never deeper than
  // kRespMaxDepthBound), so a value costs no call of its own. The common
  // values (bulk strings, integers and aggregates of plain lengths within
  // the caps) are read right here from a local cursor; anything else, and
  // every refusal, takes the general steps below from the same byte, so
  // both read a value alike.
  bool Parse() {
    const char *const begin = in_.data();
    const char *const end = begin + in_.size();
    const char *p = begin;  // pos_ is kept only around the general steps
    size_t count = 0;       // values made (the flat's size, set on the way out)
    RespNode *tail = nullptr;
    size_t room = 0;    // places left at tail in its block
    uint32_t open = 0;  // aggregates on the stack; a new value is at depth open + 1
    auto done = [&](bool ok) {
      nodes_.SetSize(count);
      return ok;
    };
    for (;;) {
      if (open >= lim_.max_depth) {
        pos_ = static_cast<size_t>(p - begin);
        return done(Fail(Code::kLimit, "nesting deeper than " + std::to_string(lim_.max_depth)));
      }
      if (p == end) {
        pos_ = in_.size();
        return done(Fail(Code::kIncomplete, "reply ends before a value"));
      }
      const char type = *p++;
      if (room == 0) tail = nodes_.Place(count, &room);
      RespNode *const at = new (tail++) RespNode();
      --room;
      at->wire = type;
      at->next = static_cast<uint32_t>(++count);
      uint64_t n;
      const char *q = p;
      // Bulk strings first, outside the switch: most values of a cluster
      // reply are (a node's field names and values), and the switch's jump
      // cost each about ten instructions.
      if (type == '$') {
        if (PlainLength(&q, end, &n) && n <= lim_.max_bulk_len &&
            static_cast<size_t>(end - q) >= n + 2 && q[n] == '\r' && q[n + 1] == '\n') {
          at->type = RespType::kBulkString;
          at->str = std::string_view(q, n);
          p = q + n + 2;
          // A short string costs the tree nothing (and charging nothing
          // cannot fail: the input only grew since the last charge).
          if (n > 15 && !Charge(TreeStringCost(n), p)) return done(false);
        } else {
          pos_ = static_cast<size_t>(p - begin);
          if (!Bulk(at, RespType::kBulkString, /*verbatim=*/false)) return done(false);
          p = begin + pos_;
        }
      } else {
        switch (type) {
          case ':':
            at->type = RespType::kInteger;
            if (PlainLength(&q, end, &n)) {
              at->integer = static_cast<int64_t>(n);
              p = q;
              break;
            }
            pos_ = static_cast<size_t>(p - begin);
            if (!SpelledInteger(&at->integer)) return done(false);
            p = begin + pos_;
            break;
          case '*':
          case '~':
          case '>':
          case '%':
          // RESP3 attributes ('|') annotate the next value; they carry nothing
          // the router uses, so they are framed as maps (to stay in frame) and
          // dropped where they end.
          case '|': {
            const bool map = type == '%' || type == '|';
            uint64_t paid;
            if (PlainLength(&q, end, &n) && n <= lim_.max_elements &&
                (map ? 2 * n : n) <= cap_at_[open + 1]) {
              if (map) n *= 2;
              at->type = map ? RespType::kMap : RespType::kArray;
              at->count = static_cast<uint32_t>(n);
              p = q;
              paid = std::min({n, static_cast<uint64_t>(end - p) / 3, kReserve});
              if (!Charge(paid * sizeof(RespValue), p)) return done(false);
            } else {
              pos_ = static_cast<size_t>(p - begin);
              if (!Aggregate(at, map ? RespType::kMap : RespType::kArray, open + 1, &paid)) {
                return done(false);
              }
              p = begin + pos_;
            }
            if (at->count != 0) {
              stack_[open++] = Open{at, count - 1, at->count, paid, ChargeBelow(at->count, paid)};
            } else if (type == '|') {
              count = count - 1;
              room = 0;  // the next value, which it annotated, takes its place
              continue;
            }
            break;
          }
          default:
            pos_ = static_cast<size_t>(p - begin);
            if (!Scalar(type, at)) return done(false);
            p = begin + pos_;
        }
      }
      // Closes what this value completed, up to the aggregate that wants
      // another element (charged as the tree's vector would grow).
      bool dropped = false;  // an attribute ended: the value it annotates follows
      while (open != 0) {
        Open &o = stack_[open - 1];
        if (o.left != 0) {
          --o.left;
          if (o.left < o.charge_below && !Grow(&o, p)) return done(false);
          break;
        }
        o.node->next = static_cast<uint32_t>(count);
        --open;
        if (o.node->wire == '|') {
          count = o.index;
          room = 0;
          dropped = true;
          break;
        }
      }
      if (open == 0 && !dropped) {
        pos_ = static_cast<size_t>(p - begin);
        return done(true);
      }
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
  // An aggregate whose elements are being framed.
  struct Open {
    RespNode *node;
    size_t index;           // of node
    uint32_t left;          // elements not yet begun
    uint64_t paid;          // elements the tree's vector has room for
    uint64_t charge_below;  // once left is below this, more are begun than paid
  };

  // Elements begun = count - left, which passes paid once left < count - paid.
  static uint64_t ChargeBelow(uint64_t count, uint64_t paid) {
    return paid >= count ? 0 : count - paid;
  }

  // One more element of o was begun than its vector has room for: the
  // vector doubles (see resp.hpp), charged with the input read up to p.
  bool Grow(Open *o, const char *p) {
    o->paid = o->paid == 0 ? 1 : 2 * o->paid;
    o->charge_below = ChargeBelow(o->node->count, o->paid);
    return Charge(o->paid * sizeof(RespValue), p);
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
    const size_t max_line = resp_plain::kMaxLine;  // simple strings and numbers are short
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

  // Any integer, with the checks and messages (Parse reads the plain ones
  // itself).
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

  // Any bulk string (Parse reads the plain ones itself).
  [[gnu::noinline]] bool Bulk(RespNode *node, RespType type, bool verbatim) {
    const size_t at = pos_;
    int64_t len = 0;
    if (!SpelledInteger(&len)) return false;
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
    return out.str.size() <= 15 || Charge(TreeStringCost(out.str.size()), in_.data() + pos_);
  }

  // A bulk length (read at `at`) below 0 or above the cap.
  [[gnu::noinline, gnu::cold]] bool BadBulkLength(size_t at, int64_t len) {
    pos_ = at;
    if (len < 0) return Fail(Code::kParse, "negative bulk length " + std::to_string(len));
    return Fail(Code::kLimit, "bulk length " + std::to_string(len) + " exceeds the cap of " +
                                  std::to_string(lim_.max_bulk_len));
  }

  // Any aggregate's header (Parse reads the plain ones itself): its count,
  // checked against the caps, and what the tree's element vector reserves
  // up front (*paid elements; see resp.hpp): every element takes at least
  // 3 bytes ("_\r\n"), so the tree never reserves more than the remaining
  // input can hold, nor more than kReserve, then doubles as elements arrive
  // (Parse charges that).
  [[gnu::noinline]] bool Aggregate(RespNode *node, RespType type, uint32_t depth, uint64_t *paid) {
    const size_t at = pos_;
    int64_t count = 0;
    if (!SpelledInteger(&count)) return false;
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
    return Charge(*paid * sizeof(RespValue), in_.data() + pos_);
  }

  // Adds `bytes` to what the tree costs and refuses content that costs more
  // than kRespMemoryPerInputByte per byte read (up to p; see resp.hpp).
  // Vectors that grew count every buffer they had, as the allocator saw them.
  bool Charge(uint64_t bytes, const char *p) {
    cost_ += bytes;
    const size_t read = static_cast<size_t>(p - in_.data());
    return cost_ <= kRespMemoryPerInputByte * read + kRespMemoryFloor || Overcharged(read);
  }
  [[gnu::noinline, gnu::cold]] bool Overcharged(size_t read) {
    pos_ = read;
    return Fail(Code::kLimit, "reply costs " + std::to_string(cost_) + " bytes of memory after " +
                                  std::to_string(pos_) + " bytes of input (more than " +
                                  std::to_string(kRespMemoryPerInputByte) + " per byte)");
  }

  std::string_view in_;
  const RespLimits &lim_;
  RespFlat &nodes_;
  size_t pos_ = 0;
  uint64_t cost_ = 0;
  Status err_;  // the failure, once a step returned false
  uint64_t cap_at_[kRespMaxDepthBound + 1];
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

RespNode *RespFlat::Place(size_t i, size_t *room) {
  const size_t b = i / kBlock;
  if (b == blocks_.size()) {
    std::unique_ptr<RespNode, FreeBlock> block(
        static_cast<RespNode *>(::operator new(kBlock * sizeof(RespNode))));
    blocks_.push_back(std::move(block));
  }
  *room = kBlock - i % kBlock;
  return blocks_[b].get() + i % kBlock;
}

void FlattenResp(const RespValue &v, RespFlat *out) {
  out->Truncate(0);
  Flatten(v, out);
}

}  // namespace cloudroute
