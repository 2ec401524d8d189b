// `cloudroute stats --seeds HOST:PORT[,…] [LOCALITY] [--policy P] [--log LEVEL] [KEY...]`:
// a live client reads each KEY once (GET), then prints its statistics as
// Prometheus text on stdout; --log prints the client's events on stderr.
// A password is read from the environment (CLOUDROUTE_PASSWORD), never from
// the command line.
#include <cstdio>
#include <cstdlib>

#include "cli.hpp"

namespace cli {

namespace {

const char kUsage[] =
    "usage: cloudroute stats --seeds HOST:PORT[,...] [LOCALITY] [--policy P] [--selection S]\n"
    "                        [--log debug|info|warn|error] [KEY...]\n"
    "  Reads each KEY once, then prints the client's statistics as Prometheus text\n"
    "  (reads by tier, fallbacks, redirects, timeouts, refreshes, per-node latency).\n";

void PrintEvent(cr_log_level level, const char *message, const cr_log_field *fields, size_t n,
                void *) {
  std::string line = std::string("cloudroute: ") + cr_log_level_name(level) + ": " + message;
  for (size_t i = 0; i < n; ++i) line += std::string(" ") + fields[i].key + "=" + fields[i].value;
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace

int CmdStats(const std::vector<std::string> &args) {
  RouterSetup setup;
  std::vector<std::string> rest;
  if (int rc = setup.Parse(args, &rest); rc != 0) return rc;
  std::vector<std::string> keys;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string &a = rest[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return kExitOk;
    } else if (a == "--log") {
      if (i + 1 >= rest.size()) return Usage("stats: --log needs a level");
      const std::string level = rest[++i];
      cr_log_level l = CR_LOG_LEVEL_DEBUG;
      while (l <= CR_LOG_LEVEL_ERROR && level != cr_log_level_name(l))
        l = static_cast<cr_log_level>(l + 1);
      if (l > CR_LOG_LEVEL_ERROR)
        return Usage("stats: unknown --log level '" + level + "' (debug, info, warn or error)");
      if (cr_status s = cr_config_set_log_callback(setup.cfg, l, &PrintEvent, nullptr); s != CR_OK)
        return Die("--log", s);
    } else if (a.size() > 1 && a[0] == '-') {
      return Usage("stats: unknown option '" + a + "' (try: cloudroute stats --help)");
    } else {
      keys.push_back(a);
    }
  }
  if (setup.seeds.empty()) return Usage("stats: --seeds HOST:PORT[,HOST:PORT...] is required");
  if (int rc = setup.BuildLive(); rc != 0) return rc;
  int exit_code = kExitOk;
  for (const std::string &k : keys) {
    cr_reply *r = nullptr;
    if (cr_status s = cr_client_cmd_get(&r, setup.client, k.data(), k.size()); s != CR_OK) {
      std::fprintf(stderr, "cloudroute: GET %s: %s\n", k.c_str(), cr_last_error());
      exit_code = kExitRouteFailed;
    }
    cr_reply_free(r);
  }
  size_t needed = 0;
  cr_status s = cr_client_get_metrics_text(nullptr, 0, &needed, setup.client);
  std::string text;
  while (s == CR_EBUFS) {
    text.resize(needed);
    s = cr_client_get_metrics_text(&text[0], text.size(), &needed, setup.client);
  }
  if (s != CR_OK) return Die("metrics", s);
  std::fwrite(text.data(), 1, needed - 1, stdout);
  return exit_code;
}

}  // namespace cli
