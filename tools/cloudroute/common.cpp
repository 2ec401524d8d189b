#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "cli.hpp"

namespace cli {

int Die(const std::string &what, cr_status s) {
  std::fprintf(stderr, "cloudroute: %s: %s: %s\n", Printable(what).c_str(), cr_status_str(s),
               Printable(cr_last_error()).c_str());
  return kExitUsage;
}

int Usage(const std::string &msg) {
  std::fprintf(stderr, "cloudroute: %s\n", Printable(msg).c_str());
  return kExitUsage;
}

int ParseDb(const std::string &text, uint32_t *db) {
  char *end = nullptr;
  const unsigned long n = std::strtoul(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || n > 2147483647ul)
    return Usage("--db wants a database index 0-2147483647, got '" + text + "'");
  *db = static_cast<uint32_t>(n);
  return 0;
}

int ParseHostPort(const std::string &option, const std::string &text, std::string *host,
                  uint16_t *port) {
  const auto bad = [&](const std::string &why) {
    return Usage(option + " wants HOST:PORT or [IPv6]:PORT, not '" + text + "' (" + why + ")");
  };
  std::string h;
  size_t colon;
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return bad("an IPv6 address ends in ']:PORT'");
    }
    h = text.substr(1, close - 1);
    if (h.find(':') == std::string::npos) return bad("brackets hold an IPv6 address");
    colon = close + 1;
  } else {
    colon = text.rfind(':');
    if (colon == std::string::npos) return bad("no :PORT");
    h = text.substr(0, colon);
    if (h.empty()) return bad("no host");
    if (h.find(':') != std::string::npos) return bad("put an IPv6 address in brackets");
  }
  const char *p = text.c_str() + colon + 1;
  char *end = nullptr;
  const unsigned long n = std::strtoul(p, &end, 10);
  if (*p < '0' || *p > '9' || *end != '\0' || n == 0 || n > 65535) {
    return bad("the port is a number 1-65535");
  }
  *host = std::move(h);
  *port = static_cast<uint16_t>(n);
  return 0;
}

std::vector<std::string> KeysFromArgsOrStdin(const std::vector<std::string> &args) {
  if (!args.empty()) return args;
  std::vector<std::string> keys;
  std::string line;
  while (std::getline(std::cin, line)) keys.push_back(line);
  return keys;
}

std::string Address(const char *host, uint16_t port) {
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";
  return h + ":" + std::to_string(port);
}

ByteArgs::ByteArgs(const std::vector<std::string> &strings) {
  ptrs.reserve(strings.size());
  lens.reserve(strings.size());
  for (const std::string &s : strings) {
    ptrs.push_back(s.data());
    lens.push_back(s.size());
  }
}

std::vector<const char *> CStrings(const std::vector<std::string> &strings) {
  std::vector<const char *> out;
  out.reserve(strings.size());
  for (const std::string &s : strings) out.push_back(s.c_str());
  return out;
}

namespace {

// One escaper for every output. JSON: \" and \u00XX for control bytes;
// other bytes as they are (JSON text is UTF-8). Terminal: \xHH for every
// byte outside printable ASCII; quoted (redis-cli's "…"): the same and \".
// All: \\ \n \r \t.
enum class EscapeMode { kJson, kTerminal, kQuoted };

std::string Escape(std::string_view text, EscapeMode mode) {
  const bool json = mode == EscapeMode::kJson;
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '"':
        out += mode == EscapeMode::kTerminal ? "\"" : "\\\"";
        break;
      default: {
        char buf[8];
        if (c >= 0x20 && (json || c < 0x7F)) {
          out += static_cast<char>(c);
        } else {
          if (json) {
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
          } else {
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
          }
          out += buf;
        }
      }
    }
  }
  return out;
}

}  // namespace

std::string JsonString(const std::string &s) { return "\"" + Escape(s, EscapeMode::kJson) + "\""; }

std::string Printable(std::string_view text) { return Escape(text, EscapeMode::kTerminal); }

std::string Quoted(std::string_view text) {
  return "\"" + Escape(text, EscapeMode::kQuoted) + "\"";
}

void FormatReply(const cr_reply *r, size_t indent, std::string *out) {
  size_t len = 0;
  const char *p = cr_reply_get_string(r, &len);
  const std::string_view text = p == nullptr ? std::string_view() : std::string_view(p, len);
  switch (cr_reply_get_type(r)) {
    case CR_REPLY_TYPE_STRING:
      *out += Quoted(text) + "\n";
      return;
    case CR_REPLY_TYPE_STATUS:
    case CR_REPLY_TYPE_BIGNUM:
      *out += Printable(text) + "\n";
      return;
    case CR_REPLY_TYPE_DOUBLE:
      *out += "(double) " + Printable(text) + "\n";
      return;
    case CR_REPLY_TYPE_ERROR:
      *out += "(error) " + Printable(text) + "\n";
      return;
    case CR_REPLY_TYPE_INTEGER:
      *out += "(integer) " + std::to_string(cr_reply_get_integer(r)) + "\n";
      return;
    case CR_REPLY_TYPE_BOOL:
      *out += cr_reply_get_integer(r) != 0 ? "(true)\n" : "(false)\n";
      return;
    case CR_REPLY_TYPE_NIL:
      *out += "(nil)\n";
      return;
    case CR_REPLY_TYPE_ARRAY:
    case CR_REPLY_TYPE_MAP: {
      const size_t n = cr_reply_get_count(r);
      if (n == 0) {
        *out += "(empty array)\n";
        return;
      }
      const size_t width = std::to_string(n).size();
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) out->append(indent, ' ');
        const std::string idx = std::to_string(i + 1);
        const std::string num = std::string(width - idx.size(), ' ') + idx + ") ";
        *out += num;
        FormatReply(cr_reply_get_element(r, i), indent + num.size(), out);
      }
      return;
    }
  }
}

void PrintReply(const cr_reply *r) {
  std::string out;
  FormatReply(r, 0, &out);
  std::fputs(out.c_str(), stdout);
}

RouterSetup::RouterSetup() { cr_config_new(&cfg); }

RouterSetup::~RouterSetup() {
  if (client == nullptr) cr_router_free(router);  // else the client's, borrowed
  cr_topology_free(topo);
  cr_config_free(cfg);
  cr_client_free(client);
}

namespace {

bool SplitEq(const std::string &v, std::string *a, std::string *b) {
  const size_t eq = v.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) return false;
  *a = v.substr(0, eq);
  *b = v.substr(eq + 1);
  return true;
}

bool ReadFile(const std::string &path, std::string *out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return !f.bad();
}

}  // namespace

int RouterSetup::Parse(const std::vector<std::string> &args, std::vector<std::string> *rest) {
  if (cfg == nullptr) return Usage("out of memory");
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&](std::string *out) -> bool {
      if (i + 1 >= args.size()) return false;
      *out = args[++i];
      return true;
    };
    if (const int taken = tls.Take(args, &i)) {
      if (taken != 1) return taken;
      continue;
    }
    std::string v, x, y;
    cr_status s = CR_OK;
    if (a == "--cluster-slots" || a == "--cluster-shards" || a == "--static" ||
        a == "--default-host" || a == "--local-cidr" || a == "--location-rule" ||
        a == "--client-location" || a == "--client-zone" || a == "--zone" ||
        a == "--node-location" || a == "--weight" || a == "--policy" || a == "--seeds" ||
        a == "--remap" || a == "--selection") {
      if (!value(&v)) return Usage(a + " needs a value");
    } else {
      rest->push_back(a);
      continue;
    }
    if (a == "--seeds")
      seeds = v;
    else if (a == "--cluster-slots")
      slots_file = v;
    else if (a == "--cluster-shards")
      shards_file = v;
    else if (a == "--static")
      static_file = v;
    else if (a == "--default-host")
      default_host = v;
    else if (a == "--local-cidr")
      s = cr_config_add_local_cidr(cfg, v.c_str());
    else if (a == "--client-location")
      s = cr_config_set_client_location(cfg, v.c_str());
    else if (a == "--client-zone")
      s = cr_config_set_client_zone(cfg, v.c_str());
    else if (a == "--policy")
      s = cr_policy_from_name(&opts.policy, v.c_str());
    else if (a == "--selection") {
      cr_selection sel = CR_SELECTION_RANDOM;
      s = cr_selection_from_name(&sel, v.c_str());
      if (s == CR_OK) s = cr_config_set_selection(cfg, sel);
    } else {
      if (!SplitEq(v, &x, &y)) return Usage(a + " wants KEY=VALUE, got '" + v + "'");
      if (a == "--location-rule")
        s = cr_config_add_location_rule(cfg, x.c_str(), y.c_str());
      else if (a == "--zone")
        s = cr_config_add_zone(cfg, x.c_str(), y.c_str());
      else if (a == "--node-location")
        s = cr_config_add_node_location(cfg, x.c_str(), y.c_str());
      else if (a == "--remap")  // a live client dials DIAL for the node announced as x
        s = cr_config_add_address_remap(cfg, x.c_str(), y.c_str());
      else {
        char *end = nullptr;
        const unsigned long w = std::strtoul(y.c_str(), &end, 10);
        if (end == y.c_str() || *end != '\0' || y[0] == '-')
          return Usage("--weight wants NODE=N, got '" + v + "'");
        s = cr_config_set_weight(cfg, x.c_str(),
                                 static_cast<uint32_t>(w > 0xFFFFFFFFul ? 0xFFFFFFFFul : w));
      }
    }
    if (s != CR_OK) return Die(a + " " + v, s);
  }
  return kExitOk;
}

int RouterSetup::Build() {
  const int sources =
      !slots_file.empty() + !shards_file.empty() + !static_file.empty() + !seeds.empty();
  if (sources != 1) {
    return Usage(
        "give exactly one of --cluster-slots FILE, --cluster-shards FILE, --static FILE, --seeds "
        "HOST:PORT[,...]");
  }
  if (!seeds.empty()) return BuildLive();
  if (tls.tls) return Usage("the TLS options are for a live cluster (--seeds)");
  const std::string &path = !slots_file.empty()    ? slots_file
                            : !shards_file.empty() ? shards_file
                                                   : static_file;
  std::string bytes;
  if (!ReadFile(path, &bytes)) return Usage("cannot read '" + path + "'");
  cr_status s;
  if (!static_file.empty()) {
    s = cr_topology_parse_static(&topo, bytes.data(), bytes.size());
  } else {
    cr_parse_options po = CR_PARSE_OPTIONS_INIT;
    if (!default_host.empty()) po.default_host = default_host.c_str();
    s = cr_topology_parse(
        &topo, bytes.data(), bytes.size(),
        !slots_file.empty() ? CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS : CR_TOPOLOGY_FORMAT_CLUSTER_SHARDS,
        &po);
  }
  if (s != CR_OK) return Die("parsing " + path, s);
  if ((s = cr_config_set_router_options(cfg, &opts)) != CR_OK) return Die("options", s);
  if ((s = cr_router_new(&router, cfg)) != CR_OK) return Die("router", s);
  if ((s = cr_router_update(router, topo)) != CR_OK) return Die("installing the topology", s);
  return kExitOk;
}

// The live topology, through the C API client: it reads CLUSTER SHARDS (or
// SLOTS) from the seeds, learns the nodes' zones, and its router is the one
// routed on; topo is that router's current topology.
int RouterSetup::BuildLive() {
  cr_status s = cr_config_set_router_options(cfg, &opts);
  if (s != CR_OK) return Die("options", s);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  const char *pw = std::getenv("CLOUDROUTE_PASSWORD");
  o.password = pw != nullptr && *pw != '\0' ? pw : nullptr;
  o.client_name = "cloudroute-cli";
  o.refresh_interval_ms = 0;  // a short-lived process
  if (const int rc = tls.Apply(&o)) return rc;
  if ((s = cr_client_new(&client, cfg, &o, seeds.c_str())) != CR_OK)
    return Die("connect to " + seeds, s);
  router = cr_client_get_router(client);
  cr_snapshot *snap = nullptr;
  if ((s = cr_router_get_snapshot(&snap, router)) != CR_OK) return Die("snapshot", s);
  topo = cr_snapshot_get_topology(snap);
  cr_snapshot_free(snap);
  if (topo == nullptr) return Die("topology", CR_ENOMEM);
  return kExitOk;
}

}  // namespace cli
