// The capped hiredis reader (see reader.hpp). Builds against hiredis 0.14
// and 1.x: the object-function signatures and the RESP3 types differ.
#include "cloudroute/net/reader.hpp"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace cloudroute {
namespace net {

namespace {

#if HIREDIS_MAJOR >= 1
using ElementCount = size_t;
#else
using ElementCount = int;
#endif

// An aggregate reserves room for this many children at most before they
// arrive: memory follows bytes received, not a declared count.
constexpr uint64_t kReserveBound = 64;

// The block malloc (glibc) hands out for a request of n bytes: 8 bytes of
// header, 16-byte steps, 32 at least; past its mmap threshold (128 KiB by
// default) whole pages.
uint64_t MallocBlock(uint64_t n) {
  if (n >= 128u * 1024) return (n + 16 + 4095) & ~uint64_t{4095};
  return std::max<uint64_t>((n + 8 + 15) & ~uint64_t{15}, 32);
}

ReaderState *StateOf(const redisReadTask *task) {
  return static_cast<ReaderState *>(task->privdata);
}

// Accounts for a new node costing `cost` bytes and refuses it when the
// reply grows past a cap, or when the node sits deeper than max_depth (the
// root is depth 1, and a leaf counts as an aggregate does: the same rule as
// core's ParseResp).
bool Charge(const redisReadTask *task, uint64_t cost) {
  ReaderState *st = StateOf(task);
  uint32_t depth = 1;
  for (const redisReadTask *p = task->parent; p != nullptr; p = p->parent) ++depth;
  if (depth > st->limits.max_depth) {
    st->limit_error = "nesting deeper than " + std::to_string(st->limits.max_depth);
    return false;
  }
  return st->ChargeTree(cost);
}

bool IsChild(const redisReadTask *task) { return task->parent != nullptr; }

// Links a new node under its parent; the root is returned to hiredis alone.
void *Attach(const redisReadTask *task, Reply *node) {
  if (task->parent != nullptr) {
    Reply *parent = static_cast<Reply *>(task->parent->obj);
    parent->elements.emplace_back(node);
  }
  return node;
}

Reply *NewNode(RespType type) {
  try {
    Reply *r = new Reply();
    r->type = type;
    return r;
  } catch (...) {
    return nullptr;  // hiredis reports out of memory
  }
}

// A node that holds text: a string, an error, a double's digits.
Reply *NewTextNode(RespType type, const char *str, size_t len) {
  Reply *r = NewNode(type);
  if (r == nullptr) return nullptr;
  try {
    r->str.assign(str, len);
  } catch (...) {
    delete r;
    return nullptr;
  }
  return r;
}

void *CreateString(const redisReadTask *task, char *str, size_t len) {
  ReaderState *st = StateOf(task);
  if (len > st->limits.max_bulk_len) {
    st->limit_error = "string of " + std::to_string(len) + " bytes exceeds the cap of " +
                      std::to_string(st->limits.max_bulk_len);
    return nullptr;
  }
  RespType type = RespType::kBulkString;
  switch (task->type) {
    case REDIS_REPLY_STATUS:
      type = RespType::kSimpleString;
      break;
    case REDIS_REPLY_ERROR:
      type = RespType::kError;
      break;
#if HIREDIS_MAJOR >= 1
    case REDIS_REPLY_BIGNUM:
      type = RespType::kBigNumber;
      break;
    case REDIS_REPLY_VERB:
      if (len >= 4) {  // "txt:" format prefix
        str += 4;
        len -= 4;
      }
      break;
#endif
    default:
      break;
  }
  if (!Charge(task, ReplyNodeCost(len, 0, IsChild(task)))) return nullptr;
  Reply *r = NewTextNode(type, str, len);
  if (r == nullptr) return nullptr;
  return Attach(task, r);
}

void *CreateArray(const redisReadTask *task, ElementCount elements) {
  ReaderState *st = StateOf(task);
  const uint64_t n = static_cast<uint64_t>(elements);
  if (n > st->limits.max_elements) {
    st->limit_error = "aggregate of " + std::to_string(n) + " elements exceeds the cap of " +
                      std::to_string(st->limits.max_elements);
    return nullptr;
  }
  if (!Charge(task, ReplyNodeCost(0, n, IsChild(task)))) return nullptr;
  RespType type = RespType::kArray;
#if HIREDIS_MAJOR >= 1
  if (task->type == REDIS_REPLY_MAP || task->type == REDIS_REPLY_ATTR) type = RespType::kMap;
#endif
  Reply *r = NewNode(type);
  if (r == nullptr) return nullptr;
  try {
    // Trust the declared count only up to a small bound: memory follows bytes.
    r->elements.reserve(std::min<uint64_t>(n, kReserveBound));
  } catch (...) {
    delete r;
    return nullptr;
  }
  return Attach(task, r);
}

void *CreateInteger(const redisReadTask *task, long long value) {
  if (!Charge(task, ReplyNodeCost(0, 0, IsChild(task)))) return nullptr;
  Reply *r = NewNode(RespType::kInteger);
  if (r == nullptr) return nullptr;
  r->integer = value;
  return Attach(task, r);
}

void *CreateNil(const redisReadTask *task) {
  if (!Charge(task, ReplyNodeCost(0, 0, IsChild(task)))) return nullptr;
  Reply *r = NewNode(RespType::kNull);
  if (r == nullptr) return nullptr;
  return Attach(task, r);
}

#if HIREDIS_MAJOR >= 1
void *CreateDouble(const redisReadTask *task, double, char *str, size_t len) {
  if (!Charge(task, ReplyNodeCost(len, 0, IsChild(task)))) return nullptr;
  Reply *r = NewTextNode(RespType::kDouble, str, len);
  if (r == nullptr) return nullptr;
  return Attach(task, r);
}

void *CreateBool(const redisReadTask *task, int value) {
  if (!Charge(task, ReplyNodeCost(0, 0, IsChild(task)))) return nullptr;
  Reply *r = NewNode(RespType::kBoolean);
  if (r == nullptr) return nullptr;
  r->integer = value != 0;
  return Attach(task, r);
}
#endif

// hiredis frees only the root (children belong to it).
void FreeObject(void *obj) { delete static_cast<Reply *>(obj); }

redisReplyObjectFunctions MakeFunctions() {
  redisReplyObjectFunctions fn{};
  fn.createString = CreateString;
  fn.createArray = CreateArray;
  fn.createInteger = CreateInteger;
  fn.createNil = CreateNil;
#if HIREDIS_MAJOR >= 1
  fn.createDouble = CreateDouble;
  fn.createBool = CreateBool;
#endif
  fn.freeObject = FreeObject;
  return fn;
}

// hiredis keeps a non-const pointer to the table but never writes it.
redisReplyObjectFunctions g_functions = MakeFunctions();

}  // namespace

RespLimits DefaultReplyLimits() {
  RespLimits l;
  l.max_elements = 1u << 24;
  // hiredis 0.14 nests aggregates 7 deep at most; their elements sit one
  // deeper, and every node counts (as in core's ParseResp).
  l.max_depth = 8;
  l.max_bulk_len = 64ull * 1024 * 1024;
  l.max_total_bytes = 256ull * 1024 * 1024;
  return l;
}

uint64_t ClientBudgetFor(const RespLimits &limits) {
  return limits.max_total_bytes > UINT64_MAX / 2 ? UINT64_MAX : 2 * limits.max_total_bytes;
}

bool ReplyBudget::Take(uint64_t n) {
  uint64_t used = used_.load(std::memory_order_relaxed);
  do {
    if (n > cap_ || used > cap_ - n) return false;
  } while (!used_.compare_exchange_weak(used, used + n, std::memory_order_relaxed));
  return true;
}

uint64_t ReplyNodeCost(uint64_t text, uint64_t children, bool child) {
  // libstdc++ keeps up to 15 bytes in the string itself.
  static const uint64_t kInline = std::string().capacity();
  uint64_t cost = MallocBlock(sizeof(Reply));
  // The parent's vector of pointers: at most twice the children it holds
  // once past its reserve, and three times while it grows (old and new).
  if (child) cost += 3 * sizeof(ReplyPtr);
  if (text > kInline) cost += MallocBlock(text + 1);
  if (children > 0) cost += MallocBlock(std::min(children, kReserveBound) * sizeof(ReplyPtr));
  return cost;
}

uint64_t ReplyTreeCost(const Reply &r, bool child) {
  uint64_t cost = ReplyNodeCost(r.str.size(), r.elements.size(), child);
  for (const ReplyPtr &e : r.elements) cost += ReplyTreeCost(*e, true);
  return cost;
}

bool ReaderState::ChargeTree(uint64_t n) {
  bytes += n;
  return Settle();
}

bool ReaderState::NoteBuffer(const redisReader *reader) {
  // An upper bound of the buffer's allocation: hiredis's sds string doubles
  // up to 1 MiB, then grows by 1 MiB, and never shrinks while it lives.
  buf_peak = std::max<uint64_t>(buf_peak, reader->len);
  const uint64_t alloc = buf_peak + std::min<uint64_t>(buf_peak, 1u << 20);
  buffered = alloc > kReaderSlack ? alloc - kReaderSlack : 0;
  return Settle();
}

void ReaderState::Reset() {
  bytes = 0;
  (void)Settle();  // smaller: cannot fail
}

void ReaderState::Release() {
  if (budget != nullptr && held > 0) budget->Give(held);
  held = 0;
}

bool ReaderState::Settle() {
  const uint64_t total = bytes + buffered;
  if (total > limits.max_total_bytes) {
    limit_error = "the reply would need more than its cap of " +
                  std::to_string(limits.max_total_bytes) + " bytes (max_reply_bytes)";
    return false;
  }
  if (budget == nullptr) return true;
  // Held in whole steps, so most nodes touch no shared counter.
  const uint64_t want = (total + kBudgetStep - 1) / kBudgetStep * kBudgetStep;
  if (want > held) {
    if (!budget->Take(want - held)) {
      if (total <= held || !budget->Take(total - held)) {
        limit_error = "the replies the client is reading would need more than its budget of " +
                      std::to_string(budget->cap()) + " bytes (twice max_reply_bytes)";
        return false;
      }
      held = total;
      return true;
    }
    held = want;
  } else if (held > want && (total == 0 || held - want >= kBudgetStep)) {
    budget->Give(held - want);  // all of it once nothing is charged
    held = want;
  }
  return true;
}

redisReader *NewCappedReader(ReaderState *state) {
  redisReader *r = redisReaderCreateWithFunctions(&g_functions);
  if (r == nullptr) return nullptr;
  r->privdata = state;
#if HIREDIS_MAJOR >= 1
  // Our own caps apply; keep hiredis's from refusing first with a vaguer text.
  r->maxelements = 0;
#endif
  return r;
}

bool BufferedOverCap(const redisReader *reader, const ReaderState &state) {
  constexpr uint64_t kSlack = 64 * 1024;  // the item's header and one read's worth beyond it
  const uint64_t unconsumed = reader->len - reader->pos;
  return unconsumed > state.limits.max_bulk_len + kSlack;
}

void ShrinkIdleReader(redisReader **reader, ReaderState *state) {
  if ((*reader)->pos != (*reader)->len || state->buf_peak <= kReaderSlack) return;
  redisReader *fresh = NewCappedReader(state);
  if (fresh == nullptr) return;  // out of memory: the old one still works
  redisReaderFree(*reader);
  *reader = fresh;
  state->buf_peak = 0;
  state->buffered = 0;
}

}  // namespace net
}  // namespace cloudroute
