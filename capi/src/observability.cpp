// C API: what an operator sees of a client — log events through a callback,
// statistics as Prometheus text.
#include <cstring>

#include "api.hpp"
#include "cloudroute/net/metrics_text.hpp"
#include "handles.hpp"
#include "live.hpp"
#include "live_calls.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary
namespace net = cloudroute::net;

cr_status cloudroute::capi::TextOut(char *buf, size_t cap, size_t *needed, const std::string &text,
                                    const char *fn) {
  *needed = text.size() + 1;
  if (cap < text.size() + 1) {
    if (cap != 0) {
      std::memcpy(buf, text.data(), cap - 1);
      buf[cap - 1] = '\0';
    }
    return TooSmall(text.size() + 1, cap, fn, "bytes");
  }
  std::memcpy(buf, text.c_str(), text.size() + 1);
  return CR_OK;
}

cr_client_stats cloudroute::capi::ClientStatsFrom(const net::StatsValues &v) {
  cr_client_stats o = CR_CLIENT_STATS_INIT;
  o.reads = v.reads;
  for (int i = 0; i < CR_TIER_COUNT; ++i) o.reads_by_tier[i] = v.reads_by_tier[i];
  o.writes = v.writes;
  o.fallbacks = v.fallbacks;
  o.moved = v.moved;
  o.ask = v.ask;
  o.retries = v.retries;
  o.conn_errors = v.conn_errors;
  o.timeouts = v.timeouts;
  o.server_errors = v.server_errors;
  o.refreshes = v.refreshes;
  o.refresh_failures = v.refresh_failures;
  o.connections = v.connections;
  o.hedges = v.hedges;
  o.hedges_won = v.hedges_won;
  o.hedges_denied = v.hedges_denied;
  o.poisoned = v.poisoned;
  return o;
}

namespace {

// A live client's statistics as Prometheus text into (buf, cap, needed);
// registry(c): the registry its node entries live in (for the clock).
template <typename H, typename Registry>
cr_status MetricsText(char *buf, size_t cap, size_t *needed, H *c, const char *fn,
                      Registry registry) {
  if (cr_status s = OutBuffer(buf, cap, needed, fn); s != CR_OK) return s;
  if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
  const cloudroute::NodeRegistry &reg = registry(c);
  return TextOut(buf, cap, needed,
                 net::PrometheusText(c->client->stats(), c->client->node_stats(), reg.clock()()),
                 fn);
}

// The registry of a client of shard groups (Sentinel, pre-sharded).
template <typename H>
const cloudroute::NodeRegistry &GroupsRegistry(const H *c) {
  return c->groups->groups.registry();
}

}  // namespace

extern "C" {

cr_status cr_config_set_log_callback(cr_config *cfg, cr_log_level min_level,
                                     cr_log_callback callback, void *payload) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_config_set_log_callback";
    if (cr_status s = NotNull(cfg, fn, "config"); s != CR_OK) return s;
    if (cr_status s = EnumInRange(min_level, net::kLogLevelCount - 1, fn, "min_level"); s != CR_OK)
      return s;
    net::LogSink sink;
    sink.min_level = static_cast<net::LogLevel>(RawEnum(min_level));
    if (callback != nullptr) {
      sink.fn = [callback, payload](net::LogLevel l, const std::string &message,
                                    const net::LogFields &fields) {
        cr_log_field out[16];
        size_t n = 0;
        for (const auto &f : fields) {
          if (n == sizeof out / sizeof out[0]) break;
          out[n++] = cr_log_field{f.first.c_str(), f.second.c_str()};
        }
        callback(static_cast<cr_log_level>(l), message.c_str(), out, n, payload);
      };
    }
    cfg->log = std::move(sink);
    return CR_OK;
  });
}

const char *cr_log_level_name(cr_log_level level) {
  const int l = RawEnum(level);
  if (l < 0 || l >= net::kLogLevelCount) return "?";
  return net::LogLevelName(static_cast<net::LogLevel>(l));
}

cr_status cr_client_get_metrics_text(char *buf, size_t cap, size_t *needed, const cr_client *c) {
  return Guard([&] {
    return MetricsText(buf, cap, needed, c, "cr_client_get_metrics_text",
                       [](const cr_client *h) -> const cloudroute::NodeRegistry & {
                         return h->client->router().registry();
                       });
  });
}

cr_status cr_sentinel_client_get_metrics_text(char *buf, size_t cap, size_t *needed,
                                              const cr_sentinel_client *c) {
  return Guard([&] {
    return MetricsText(buf, cap, needed, c, "cr_sentinel_client_get_metrics_text",
                       GroupsRegistry<cr_sentinel_client>);
  });
}

cr_status cr_sharded_client_get_metrics_text(char *buf, size_t cap, size_t *needed,
                                             const cr_sharded_client *c) {
  return Guard([&] {
    return MetricsText(buf, cap, needed, c, "cr_sharded_client_get_metrics_text",
                       GroupsRegistry<cr_sharded_client>);
  });
}

}  // extern "C"
