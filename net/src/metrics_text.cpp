// Prometheus text exposition of the client's statistics (see metrics_text.hpp).
#include "cloudroute/net/metrics_text.hpp"

#include <cstdio>

#include "cloudroute/core/locality.hpp"

namespace cloudroute {
namespace net {

namespace {

// A label value: backslash, double quote and newline escaped.
std::string Escape(const std::string &v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

class Writer {
 public:
  void Family(const char *name, const char *type, const char *help) {
    out_ += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  // name{labels} value; labels is "" or `k="v",…` (already escaped).
  void Sample(const std::string &name, const std::string &labels, const std::string &value) {
    out_ += name;
    if (!labels.empty()) out_ += "{" + labels + "}";
    out_ += " " + value + "\n";
  }
  void Sample(const std::string &name, const std::string &labels, uint64_t value) {
    Sample(name, labels, std::to_string(value));
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

std::string Seconds(uint64_t us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", static_cast<double>(us) / 1e6);
  return buf;
}

}  // namespace

std::string PrometheusText(const StatsValues &s, const std::vector<NodeStatsValues> &nodes,
                           int64_t now_ns) {
  Writer w;
  w.Family("cloudroute_reads_total", "counter",
           "Read commands a node answered, by the serving node's tier (local, same-region, "
           "same-cloud, other-cloud, unknown).");
  for (int t = 0; t < kTierCount; ++t) {
    w.Sample("cloudroute_reads_total",
             std::string("tier=\"") + TierName(static_cast<Tier>(t)) + "\"", s.reads_by_tier[t]);
  }
  struct Counter {
    const char *name, *help;
    uint64_t value;
  };
  const Counter counters[] = {
      {"cloudroute_writes_total", "Write commands a master answered.", s.writes},
      {"cloudroute_read_fallbacks_total",
       "Reads served by a later candidate after an earlier one failed.", s.fallbacks},
      {"cloudroute_retries_total", "TRYAGAIN, CLUSTERDOWN and LOADING retries.", s.retries},
      {"cloudroute_timeouts_total", "Connect and command deadlines that passed.", s.timeouts},
      {"cloudroute_connection_errors_total", "Connections that failed or dropped.", s.conn_errors},
      {"cloudroute_server_errors_total", "Error replies returned to the caller.", s.server_errors},
      {"cloudroute_connections_total", "Connections dialed.", s.connections},
      {"cloudroute_hedges_total", "Reads also sent to the next candidate (hedged).", s.hedges},
      {"cloudroute_hedges_won_total", "Hedged reads the next candidate answered first.",
       s.hedges_won},
      {"cloudroute_hedges_denied_total",
       "Reads past their hedge delay that the hedge budget did not hedge.", s.hedges_denied},
      {"cloudroute_poisoned_connections_total",
       "Connections closed because what a server sent stopped matching what was asked.",
       s.poisoned},
  };
  for (const Counter &c : counters) {
    w.Family(c.name, "counter", c.help);
    w.Sample(c.name, "", c.value);
  }
  w.Family("cloudroute_redirects_total", "counter", "MOVED and ASK redirects followed.");
  w.Sample("cloudroute_redirects_total", "kind=\"moved\"", s.moved);
  w.Sample("cloudroute_redirects_total", "kind=\"ask\"", s.ask);
  w.Family("cloudroute_refreshes_total", "counter", "Topology refreshes, by result.");
  w.Sample("cloudroute_refreshes_total", "result=\"ok\"", s.refreshes);
  w.Sample("cloudroute_refreshes_total", "result=\"failed\"", s.refresh_failures);

  auto per_node = [&](const char *name, const char *type, const char *help, auto value) {
    w.Family(name, type, help);
    for (const NodeStatsValues &n : nodes) {
      w.Sample(name, "node=\"" + Escape(n.node->address) + "\"", value(n));
    }
  };
  per_node("cloudroute_node_reads_total", "counter", "Read commands the node answered.",
           [](const NodeStatsValues &n) { return n.reads; });
  per_node("cloudroute_node_writes_total", "counter", "Write commands the node answered.",
           [](const NodeStatsValues &n) { return n.writes; });
  per_node("cloudroute_node_errors_total", "counter", "Failed round trips to the node.",
           [](const NodeStatsValues &n) { return n.errors; });
  per_node("cloudroute_node_up", "gauge", "1 unless the node's breaker is open (marked down).",
           [now_ns](const NodeStatsValues &n) -> uint64_t {
             return n.node->health.State(now_ns) == HealthState::kDown ? 0 : 1;
           });

  const char *h = "cloudroute_node_latency_seconds";
  w.Family(h, "histogram", "Round trips to the node (commands and idle PINGs).");
  for (const NodeStatsValues &n : nodes) {
    const std::string node = "node=\"" + Escape(n.node->address) + "\"";
    uint64_t cum = 0;
    for (int b = 0; b < kLatencyBuckets; ++b) {
      cum += n.latency.buckets[b];
      const std::string le = b + 1 < kLatencyBuckets ? Seconds(kLatencyBoundsUs[b]) : "+Inf";
      w.Sample(std::string(h) + "_bucket", node + ",le=\"" + le + "\"", cum);
    }
    w.Sample(std::string(h) + "_sum", node, Seconds(n.latency.sum_us));
    w.Sample(std::string(h) + "_count", node, n.latency.count);
  }
  return w.Take();
}

}  // namespace net
}  // namespace cloudroute
