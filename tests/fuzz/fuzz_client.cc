// libFuzzer target: the live client (through the C API) against a node on
// loopback whose replies to data commands come from the fuzzer
// (tests/net/fake_server.hpp answers the topology and the handshake; the
// input is cut into one reply per data command, in the order the commands
// arrive). Each input runs GET, SET, an MGET of two keys of one slot, a
// three-command pipeline and an HGETALL on a new client. Invariants: every
// call returns a known status with a message when it fails, and what a typed
// call returns has the shape its command promises (a GET a string or nil, an
// MGET an array of exactly its keys' count of strings or nils, a SET only
// when it was +OK); no hang (every wait is bounded by 30 ms timeouts), no
// leak, no sanitizer report. Redirects are not followed (max_redirects 0):
// the fuzzer's hosts are never dialed.
#include <fuzzer/FuzzedDataProvider.h>

#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../net/fake_server.hpp"
#include "fuzz_common.hpp"

namespace {

std::mutex g_mu;
std::deque<std::string> g_replies;  // the current input's replies, in order

std::string Upper(std::string s) {
  for (char &c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The topology and handshake answers of a one-node cluster at port; every
// other command takes the next reply of the input (nil once none is left).
std::string Answer(uint16_t port, const std::vector<std::string> &argv) {
  const std::string cmd = argv.empty() ? "" : Upper(argv[0]);
  if (cmd == "CLUSTER") {
    if (argv.size() > 1 && Upper(argv[1]) == "SHARDS") return "-ERR unknown subcommand\r\n";
    return fake::OneNodeSlots(port);
  }
  if (cmd == "READONLY") return "+OK\r\n";
  if (cmd == "PING") return argv.size() == 2 ? fake::Bulk(argv[1]) : std::string("+PONG\r\n");
  if (cmd == "INFO") return fake::Bulk("# Server\r\n");
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_replies.empty()) return "$-1\r\n";
  std::string r = std::move(g_replies.front());
  g_replies.pop_front();
  return r.empty() ? "$-1\r\n" : r;  // an empty answer would make the fake wait for more input
}

FakeServer &Server() {
  static uint16_t port = 0;
  static FakeServer *server = new FakeServer([](const std::string &req) {
    size_t used = 0;
    std::string out;
    for (const auto &argv : fake::Commands(req, &used)) out += Answer(port, argv);
    return out;
  });
  port = server->port();
  return *server;
}

bool StringOrNil(const cr_reply *r) {
  const cr_reply_type t = cr_reply_get_type(r);
  return t == CR_REPLY_TYPE_STRING || t == CR_REPLY_TYPE_NIL;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FakeServer &server = Server();
  FuzzedDataProvider in(data, size);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_replies.clear();
    for (int i = 0; i < 8 && in.remaining_bytes() > 0; ++i) {
      g_replies.push_back(in.ConsumeRandomLengthString(512));
    }
  }
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.connect_timeout_ms = 30;
  for (uint32_t &t : o.command_timeout_ms) t = 30;
  o.refresh_interval_ms = 0;
  o.max_redirects = 0;
  o.max_retries = 0;
  o.pool_size = 2;
  o.max_reply_elements = 64;
  o.max_bulk_len = 1024;
  o.max_reply_bytes = 1 << 16;
  cr_client *c = nullptr;
  const std::string seed = "127.0.0.1:" + std::to_string(server.port());
  const cr_status made = cr_client_new(&c, nullptr, &o, seed.c_str());
  crfuzz::RequireExplained(made);
  if (made != CR_OK) return 0;

  cr_reply *r = nullptr;
  cr_status s = cr_client_cmd_get(&r, c, "k", 1);
  crfuzz::RequireExplained(s);
  CRFUZZ_REQUIRE((s == CR_OK) == (r != nullptr));
  if (r != nullptr) CRFUZZ_REQUIRE(StringOrNil(r));
  cr_reply_free(r);

  crfuzz::RequireExplained(cr_client_cmd_set(c, "k", 1, "v", 1, 0));

  const char *keys[] = {"{t}a", "{t}b"};
  const size_t lens[] = {4, 4};
  r = nullptr;
  s = cr_client_cmd_mget(&r, c, reinterpret_cast<const void *const *>(keys), lens, 2);
  crfuzz::RequireExplained(s);
  if (s == CR_OK) {
    CRFUZZ_REQUIRE(cr_reply_get_type(r) == CR_REPLY_TYPE_ARRAY && cr_reply_get_count(r) == 2);
    for (size_t i = 0; i < 2; ++i) CRFUZZ_REQUIRE(StringOrNil(cr_reply_get_element(r, i)));
  }
  cr_reply_free(r);

  cr_pipeline *p = nullptr;
  CRFUZZ_REQUIRE(cr_pipeline_new(&p, c) == CR_OK);
  const char *get[] = {"GET", "a"};
  const size_t get_len[] = {3, 1};
  const char *set[] = {"SET", "b", "v"};
  const size_t set_len[] = {3, 1, 1};
  const char *hgetall[] = {"HGETALL", "h"};
  const size_t hgetall_len[] = {7, 1};
  CRFUZZ_REQUIRE(cr_pipeline_add(p, CR_ACCESS_READ, 1, 2,
                                 reinterpret_cast<const void *const *>(get), get_len) == CR_OK);
  CRFUZZ_REQUIRE(cr_pipeline_add(p, CR_ACCESS_WRITE, 1, 3,
                                 reinterpret_cast<const void *const *>(set), set_len) == CR_OK);
  CRFUZZ_REQUIRE(cr_pipeline_add(p, CR_ACCESS_READ, 1, 2,
                                 reinterpret_cast<const void *const *>(hgetall),
                                 hgetall_len) == CR_OK);
  cr_reply *replies[3] = {nullptr, nullptr, nullptr};
  cr_status statuses[3] = {CR_OK, CR_OK, CR_OK};
  size_t needed = 0;
  crfuzz::RequireExplained(cr_pipeline_execute(replies, statuses, 3, &needed, p));
  CRFUZZ_REQUIRE(needed == 3);
  for (int i = 0; i < 3; ++i) {
    crfuzz::RequireExplained(statuses[i]);
    CRFUZZ_REQUIRE(replies[i] != nullptr);
  }
  if (statuses[0] == CR_OK) CRFUZZ_REQUIRE(StringOrNil(replies[0]));
  if (statuses[1] == CR_OK) {
    size_t n = 0;
    const char *ok = cr_reply_get_string(replies[1], &n);
    CRFUZZ_REQUIRE(ok != nullptr && std::string(ok, n) == "OK");
  }
  if (statuses[2] == CR_OK) {
    CRFUZZ_REQUIRE(cr_reply_get_type(replies[2]) == CR_REPLY_TYPE_ARRAY &&
                   cr_reply_get_count(replies[2]) % 2 == 0);
  }
  for (cr_reply *x : replies) cr_reply_free(x);
  cr_pipeline_free(p);

  cr_client_stats st = CR_CLIENT_STATS_INIT;
  CRFUZZ_REQUIRE(cr_client_get_stats(&st, c) == CR_OK);
  cr_client_free(c);
  return 0;
}
