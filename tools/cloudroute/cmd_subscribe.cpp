// `cloudroute subscribe|psubscribe|ssubscribe --seeds HOST:PORT[,…] [LOCALITY]
// [--count N] [--timeout MS] NAME...`: the messages of channels, patterns or
// shard channels (cr_client_subscribe), one line per message on stdout —
// "CHANNEL PAYLOAD", "PATTERN CHANNEL PAYLOAD" for psubscribe, each through
// Printable — and the subscription's events on stderr ("subscribed NAME at
// NODE", "moving NAME from NODE: REASON", "resubscribed NAME at NODE").
// --count ends after N messages, --timeout after MS milliseconds (exit 1 when
// --count was not reached). `publish|spublish CHANNEL MESSAGE` sends one
// (cr_client_publish / cr_client_spublish) and prints the receiver count.
// Locality, --remap, the TLS options, --user and --client-name as for get/set.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "client_setup.hpp"

namespace cli {

namespace {

const char kSubscribeUsage[] =
    "usage: cloudroute subscribe|psubscribe|ssubscribe --seeds HOST:PORT[,...] [LOCALITY]\n"
    "                  [--count N] [--timeout MS] [--nodes] NAME...\n"
    "  Prints each message on one line: CHANNEL PAYLOAD (psubscribe: PATTERN CHANNEL\n"
    "  PAYLOAD); --nodes puts the node it came from first. Events (subscribed, moving,\n"
    "  resubscribed, with the node) go to stderr. Channels and patterns are subscribed\n"
    "  on the node a read would use first (a local one); shard channels on their slot's\n"
    "  read candidates (a local replica first). --count N ends after N messages,\n"
    "  --timeout MS after MS ms (exit 1 if --count was not reached by then).\n";

const char kPublishUsage[] =
    "usage: cloudroute publish|spublish --seeds HOST:PORT[,...] [LOCALITY] CHANNEL MESSAGE\n"
    "  Publishes MESSAGE on CHANNEL (spublish: a shard channel, sent to its slot's\n"
    "  master) and prints how many subscribers received it.\n";

bool ParseNumber(const std::string &v, uint64_t *out) {
  char *end = nullptr;
  const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || v[0] == '-' || *end != '\0') return false;
  *out = n;
  return true;
}

bool WantsHelp(const std::vector<std::string> &args) {
  for (const std::string &a : args) {
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

const char *EventName(cr_message_type t) {
  switch (t) {
    case CR_MESSAGE_TYPE_SUBSCRIBED:
      return "subscribed";
    case CR_MESSAGE_TYPE_RESUBSCRIBED:
      return "resubscribed";
    case CR_MESSAGE_TYPE_MOVING:
      return "moving";
    case CR_MESSAGE_TYPE_UNSUBSCRIBED:
      return "unsubscribed";
    default:
      return "message";
  }
}

}  // namespace

int CmdSubscribe(const std::string &verb, const std::vector<std::string> &args) {
  if (WantsHelp(args)) {
    std::fputs(kSubscribeUsage, stdout);
    return kExitOk;
  }
  const cr_channel_kind kind = verb == "psubscribe"   ? CR_CHANNEL_KIND_PATTERN
                               : verb == "ssubscribe" ? CR_CHANNEL_KIND_SHARD
                                                      : CR_CHANNEL_KIND_CHANNEL;
  ClientSetup setup;
  std::vector<std::string> rest, names;
  if (int rc = setup.Parse(args, &rest)) return rc;
  uint64_t count = 0, timeout_ms = 0;
  bool with_nodes = false;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string &a = rest[i];
    if (a == "--count" || a == "--timeout") {
      uint64_t *v = a == "--count" ? &count : &timeout_ms;
      if (i + 1 >= rest.size() || !ParseNumber(rest[++i], v) || *v == 0) {
        return Usage(verb + ": " + a + " wants a number > 0");
      }
    } else if (a == "--nodes") {
      with_nodes = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return Usage(verb + ": unknown option '" + a + "' (try: cloudroute " + verb + " --help)");
    } else {
      names.push_back(a);
    }
  }
  if (names.empty()) return Usage(verb + ": name at least one channel");
  if (int rc = setup.Connect()) return rc;
  cr_subscription *sub = nullptr;
  if (cr_status s = cr_client_subscribe(&sub, setup.client); s != CR_OK) return Die(verb, s);
  const ByteArgs n(names);
  if (cr_status s = cr_subscription_add(sub, kind, n.size(), n.ptrs.data(), n.lens.data());
      s != CR_OK) {
    cr_subscription_free(sub);
    return Die(verb, s);
  }
  // Elapsed time by the sum of the waits' bounds would drift; a deadline.
  const auto start = std::chrono::steady_clock::now();
  uint64_t got = 0;
  int exit_code = kExitOk;
  for (;;) {
    uint32_t wait = 1000;
    if (timeout_ms > 0) {
      const auto used = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                  std::chrono::steady_clock::now() - start)
                                                  .count());
      if (used >= timeout_ms) {
        if (count > 0) exit_code = kExitCommandFailed;
        break;
      }
      wait = static_cast<uint32_t>(std::min<uint64_t>(timeout_ms - used, 1000));
    }
    cr_message *m = nullptr;
    if (cr_status s = cr_subscription_next(&m, sub, wait); s != CR_OK) {
      exit_code = Die(verb, s);
      break;
    }
    if (m == nullptr) continue;
    size_t ch_len = 0;
    const char *ch = cr_message_get_channel(m, &ch_len);
    const std::string node = Printable(cr_message_get_node(m));
    const cr_message_type t = cr_message_get_type(m);
    if (t != CR_MESSAGE_TYPE_MESSAGE) {
      const std::string reason = Printable(cr_message_get_reason(m));
      std::fprintf(stderr, "%s %s %s %s%s%s\n", EventName(t),
                   Printable(std::string_view(ch, ch_len)).c_str(),
                   t == CR_MESSAGE_TYPE_MOVING ? "from" : "at", node.c_str(),
                   reason.empty() ? "" : ": ", reason.c_str());
      std::fflush(stderr);
      cr_message_free(m);
      continue;
    }
    size_t pat_len = 0, len = 0;
    const char *pat = cr_message_get_pattern(m, &pat_len);
    const char *payload = cr_message_get_payload(m, &len);
    std::printf("%s%s%s%s %s\n", with_nodes ? (node + " ").c_str() : "",
                pat != nullptr ? Printable(std::string_view(pat, pat_len)).c_str() : "",
                pat != nullptr ? " " : "", Printable(std::string_view(ch, ch_len)).c_str(),
                Printable(std::string_view(payload, len)).c_str());
    std::fflush(stdout);
    cr_message_free(m);
    if (count > 0 && ++got >= count) break;
  }
  cr_subscription_free(sub);
  return exit_code;
}

int CmdPublish(const std::string &verb, const std::vector<std::string> &args) {
  if (WantsHelp(args)) {
    std::fputs(kPublishUsage, stdout);
    return kExitOk;
  }
  ClientSetup setup;
  std::vector<std::string> rest;
  if (int rc = setup.Parse(args, &rest)) return rc;
  for (const std::string &a : rest) {
    if (a.size() > 1 && a[0] == '-') {
      return Usage(verb + ": unknown option '" + a + "' (try: cloudroute " + verb + " --help)");
    }
  }
  if (rest.size() != 2) return Usage(verb + ": wants CHANNEL MESSAGE");
  if (int rc = setup.Connect()) return rc;
  int64_t receivers = 0;
  const cr_status s = (verb == "spublish" ? cr_client_spublish : cr_client_publish)(
      &receivers, setup.client, rest[0].data(), rest[0].size(), rest[1].data(), rest[1].size());
  if (s != CR_OK) {
    std::fprintf(stderr, "cloudroute: %s: %s: %s\n", verb.c_str(), cr_status_str(s),
                 Printable(cr_last_error()).c_str());
    return kExitCommandFailed;
  }
  std::printf("%lld\n", static_cast<long long>(receivers));
  return kExitOk;
}

}  // namespace cli
