// libFuzzer target: the server's command table (net/command_table.hpp) —
// bytes read as a COMMAND reply by the capped reader (max_depth 10, as the
// table's own connection reads it), parsed by CommandTable::Parse, and,
// when accepted, asked to class and place commands of every shape its key
// specs may meet (numkeys, keywords, empty keys, runs past the end). The
// input is the reply itself, so real replies seed it
// (tests/fuzz/seeds/command_table/). Invariants: a refused reply says why (kParse or
// kServerError with a message); every key position Classify returns lies
// inside argv, in ascending order, never the command's name.
#include <hiredis/hiredis.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cloudroute/net/command_table.hpp"
#include "cloudroute/net/reader.hpp"
#include "cloudroute/net/reply.hpp"
#include "fuzz_common.hpp"

namespace {

using cloudroute::net::CommandRoute;
using cloudroute::net::CommandTable;
using cloudroute::net::Reply;

void Check(const CommandTable &t, const std::vector<std::string_view> &argv) {
  const CommandRoute r = t.Classify(argv);
  for (size_t i = 0; i < r.keys.size(); ++i) {
    CRFUZZ_REQUIRE(r.keys[i] >= 1 && r.keys[i] < argv.size());
    if (i > 0) CRFUZZ_REQUIRE(r.keys[i] > r.keys[i - 1]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::vector<std::string> kWords = {"k1",   "2",       "STREAMS", "a",  "b",
                                                  "KEYS", "",        "0",       "1",  "9",
                                                  "x",    "streams", "9999999", "-1", "ENCODING"};
  cloudroute::net::ReaderState state;
  state.limits.max_depth = 10;
  redisReader *reader = cloudroute::net::NewCappedReader(&state);
  CRFUZZ_REQUIRE(reader != nullptr);
  void *obj = nullptr;
  if (redisReaderFeed(reader, reinterpret_cast<const char *>(data), size) == REDIS_OK &&
      redisReaderGetReply(reader, &obj) == REDIS_OK && obj != nullptr) {
    std::unique_ptr<Reply> reply(static_cast<Reply *>(obj));
    auto table = CommandTable::Parse(*reply);
    if (!table.ok()) {
      CRFUZZ_REQUIRE(table.status().code() == cloudroute::Code::kParse ||
                     table.status().code() == cloudroute::Code::kServerError);
      CRFUZZ_REQUIRE(!table.status().message().empty());
    } else {
      // Each entry's name (and container|subcommand), with every rotation
      // of the words as arguments.
      for (const auto &entry : reply->elements) {
        if (entry->elements.empty() || !entry->elements[0]->is_string()) continue;
        const std::string &name = entry->elements[0]->str;
        for (size_t r = 0; r < kWords.size(); ++r) {
          std::vector<std::string_view> argv{name};
          for (size_t j = 0; j < kWords.size(); ++j)
            argv.push_back(kWords[(r + j) % kWords.size()]);
          Check(**table, argv);
          argv.resize(1 + r % 4);
          Check(**table, argv);
        }
      }
    }
    state.Reset();
  }
  redisReaderFree(reader);
  state.Release();
  return 0;
}
