// libFuzzer target: the net layer's capped hiredis reader (the object
// callbacks that build net::Reply trees), fed the input in chunks whose sizes
// come from the input too, under small caps. Invariants: every reply handed
// out respects the caps (depth, elements per aggregate, bulk length, total
// charged cost, which is the tree's ReplyTreeCost, within the total cap and
// the client-wide budget); a refused stream says why; memory stays bounded (ASan/LSan: no
// leak of half-built replies when the reader stops with an error).
#include <fuzzer/FuzzedDataProvider.h>
#include <hiredis/hiredis.h>

#include <memory>

#include "cloudroute/net/reader.hpp"
#include "cloudroute/net/reply.hpp"
#include "fuzz_common.hpp"

namespace {

using cloudroute::net::Reply;

void CheckReply(const Reply &r, const cloudroute::RespLimits &caps, uint32_t depth,
                uint64_t *total) {
  CRFUZZ_REQUIRE(depth <= caps.max_depth);
  CRFUZZ_REQUIRE(r.elements.size() <= caps.max_elements);
  if (r.is_string()) CRFUZZ_REQUIRE(r.str.size() <= caps.max_bulk_len);
  *total += r.str.size();
  for (const auto &e : r.elements) {
    CRFUZZ_REQUIRE(e != nullptr);
    CheckReply(*e, caps, depth + 1, total);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  cloudroute::net::ReaderState state;
  state.limits.max_elements = in.ConsumeIntegralInRange<uint32_t>(1, 64);
  state.limits.max_depth = in.ConsumeIntegralInRange<uint32_t>(1, 8);
  state.limits.max_bulk_len = in.ConsumeIntegralInRange<uint64_t>(0, 256);
  state.limits.max_total_bytes = in.ConsumeIntegralInRange<uint64_t>(16, 1u << 16);
  // A client-wide budget, sometimes tighter than the reply's own cap.
  state.budget = std::make_shared<cloudroute::net::ReplyBudget>(
      in.ConsumeIntegralInRange<uint64_t>(16, 1u << 16));
  redisReader *reader = cloudroute::net::NewCappedReader(&state);
  CRFUZZ_REQUIRE(reader != nullptr);
  bool failed = false;
  while (!failed && in.remaining_bytes() > 0) {
    const size_t chunk = in.ConsumeIntegralInRange<size_t>(1, 64);
    const std::string bytes = in.ConsumeBytesAsString(chunk);
    if (redisReaderFeed(reader, bytes.data(), bytes.size()) != REDIS_OK) break;
    if (!state.NoteBuffer(reader)) {  // the buffer alone is over the total cap
      CRFUZZ_REQUIRE(!state.limit_error.empty());
      break;
    }
    for (;;) {
      void *obj = nullptr;
      if (redisReaderGetReply(reader, &obj) != REDIS_OK) {
        failed = true;  // hiredis's protocol error or one of our caps
        CRFUZZ_REQUIRE(reader->errstr[0] != '\0' || !state.limit_error.empty());
        break;
      }
      if (obj == nullptr) break;  // needs more bytes
      std::unique_ptr<Reply> reply(static_cast<Reply *>(obj));
      uint64_t text = 0;
      CheckReply(*reply, state.limits, 1, &text);
      // The charge is the tree's cost, node by node as the reader made it,
      // and it stays within the cap together with the buffer's.
      const uint64_t cost = cloudroute::net::ReplyTreeCost(*reply);
      CRFUZZ_REQUIRE(cost == state.bytes);
      CRFUZZ_REQUIRE(cost >= text);
      CRFUZZ_REQUIRE(cost + state.buffered <= state.limits.max_total_bytes);
      state.Reset();
      CRFUZZ_REQUIRE(state.bytes == 0);
      if (cloudroute::net::BufferedOverCap(reader, state)) failed = true;
    }
  }
  redisReaderFree(reader);
  // Whatever happened, what the reader holds of the budget goes back.
  const std::shared_ptr<cloudroute::net::ReplyBudget> budget = state.budget;
  state.Release();
  CRFUZZ_REQUIRE(budget->used() == 0);
  return 0;
}
