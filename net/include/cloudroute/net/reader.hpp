// The capped reader: hiredis object functions that build net::Reply trees
// and refuse hostile replies before they cost memory.
//
// hiredis's own reader trusts the element count of an aggregate (0.14
// callocs `*268435456\r\n` pointers — 2 GiB — before one element arrives)
// and buffers a bulk string of any declared length until it is complete.
// ReaderState enforces caps equivalent to core's RespLimits:
//  - max_elements per aggregate: checked when the aggregate header is
//    parsed, nothing is reserved beyond a small bound; max_depth: checked
//    for every node, leaves too (the root is depth 1, as in core);
//  - max_bulk_len: checked on each string, and while a string is still
//    arriving by the connection's read loop (BufferedOverCap);
//  - max_total_bytes: the reply's running size.
// A refused reply makes hiredis stop with an error; limit_error says why and
// the connection is closed (the stream cannot be resynchronised).
//
// Thread-safety: one ReaderState per connection, used by its owner only.
#pragma once

#include <cstdint>
#include <string>

#include "cloudroute/core/resp.hpp"
#include "cloudroute/net/reply.hpp"

struct redisReader;

namespace cloudroute {
namespace net {

// Defaults for command replies: larger than the topology parser's (values
// are user data) but still bounded.
RespLimits DefaultReplyLimits();

struct ReaderState {
  RespLimits limits;
  uint64_t bytes = 0;       // running size of the reply being built
  std::string limit_error;  // set when a cap refused the reply
  void Reset() { bytes = 0; }
};

// A hiredis reader whose objects are net::Reply nodes, capped by *state
// (which must outlive it). Free with redisReaderFree(); a reply it returns
// is a Reply* the caller owns (wrap it in ReplyPtr).
redisReader *NewCappedReader(ReaderState *state);

// True when the bytes the reader holds but has not consumed exceed what any
// allowed item could need: a bulk string beyond max_bulk_len is arriving.
bool BufferedOverCap(const redisReader *reader, const ReaderState &state);

}  // namespace net
}  // namespace cloudroute
