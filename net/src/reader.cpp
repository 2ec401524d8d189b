// The capped hiredis reader (see reader.hpp). Builds against hiredis 0.14
// and 1.x: the object-function signatures and the RESP3 types differ.
#include "cloudroute/net/reader.hpp"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <string>

namespace cloudroute {
namespace net {

namespace {

#if HIREDIS_MAJOR >= 1
using ElementCount = size_t;
#else
using ElementCount = int;
#endif

ReaderState *StateOf(const redisReadTask *task) {
  return static_cast<ReaderState *>(task->privdata);
}

// Accounts for a new node and refuses it when the reply grows past the cap,
// or when the node sits deeper than max_depth (the root is depth 1, and a
// leaf counts as an aggregate does: the same rule as core's ParseResp).
bool Charge(const redisReadTask *task, uint64_t bytes) {
  ReaderState *st = StateOf(task);
  uint32_t depth = 1;
  for (const redisReadTask *p = task->parent; p != nullptr; p = p->parent) ++depth;
  if (depth > st->limits.max_depth) {
    st->limit_error = "nesting deeper than " + std::to_string(st->limits.max_depth);
    return false;
  }
  st->bytes += 16 + bytes;
  if (st->bytes > st->limits.max_total_bytes) {
    st->limit_error = "reply exceeds " + std::to_string(st->limits.max_total_bytes) + " bytes";
    return false;
  }
  return true;
}

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
  if (!Charge(task, len)) return nullptr;
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
  if (!Charge(task, 0)) return nullptr;
  RespType type = RespType::kArray;
#if HIREDIS_MAJOR >= 1
  if (task->type == REDIS_REPLY_MAP || task->type == REDIS_REPLY_ATTR) type = RespType::kMap;
#endif
  Reply *r = NewNode(type);
  if (r == nullptr) return nullptr;
  try {
    // Trust the declared count only up to a small bound: memory follows bytes.
    r->elements.reserve(std::min<uint64_t>(n, 64));
  } catch (...) {
    delete r;
    return nullptr;
  }
  return Attach(task, r);
}

void *CreateInteger(const redisReadTask *task, long long value) {
  if (!Charge(task, 0)) return nullptr;
  Reply *r = NewNode(RespType::kInteger);
  if (r == nullptr) return nullptr;
  r->integer = value;
  return Attach(task, r);
}

void *CreateNil(const redisReadTask *task) {
  if (!Charge(task, 0)) return nullptr;
  Reply *r = NewNode(RespType::kNull);
  if (r == nullptr) return nullptr;
  return Attach(task, r);
}

#if HIREDIS_MAJOR >= 1
void *CreateDouble(const redisReadTask *task, double, char *str, size_t len) {
  if (!Charge(task, len)) return nullptr;
  Reply *r = NewTextNode(RespType::kDouble, str, len);
  if (r == nullptr) return nullptr;
  return Attach(task, r);
}

void *CreateBool(const redisReadTask *task, int value) {
  if (!Charge(task, 0)) return nullptr;
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
  l.max_bulk_len = 512ull * 1024 * 1024;
  l.max_total_bytes = 1024ull * 1024 * 1024;
  return l;
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

}  // namespace net
}  // namespace cloudroute
