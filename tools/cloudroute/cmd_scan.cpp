// `cloudroute scan --seeds HOST:PORT[,…] [LOCALITY] [--policy P] [--match PATTERN]
// [--count N] [--type TYPE] [--timeout MS] [--nodes]`: every key of the cluster,
// one per line (cr_scan_*: each shard once, on the node a read of it would use:
// a local replica where there is one). Keys are printed through Printable, so
// a key with control bytes cannot break the output; --nodes prefixes each
// key with the address of the node that listed it. Locality, --remap, the TLS
// options, --user and --client-name as for get/set/mget.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "client_setup.hpp"

namespace cli {

namespace {

const char kUsage[] =
    "usage: cloudroute scan --seeds HOST:PORT[,...] [LOCALITY] [--policy P] [--match PATTERN]\n"
    "                       [--count N] [--type TYPE] [--timeout MS] [--nodes]\n"
    "  Every key of the cluster, one per line: each shard scanned once, on the node a\n"
    "  read of it would use (a local replica where there is one). --match, --count and\n"
    "  --type are SCAN's MATCH, COUNT and TYPE; --timeout bounds each round trip;\n"
    "  --nodes prints the address of the node that listed each key before it.\n";

// A non-negative number up to 2^32-1, or false.
bool ParseCount(const std::string &v, uint32_t *out) {
  char *end = nullptr;
  const unsigned long n = std::strtoul(v.c_str(), &end, 10);
  if (v.empty() || v[0] == '-' || *end != '\0' || n > 0xFFFFFFFFul) return false;
  *out = static_cast<uint32_t>(n);
  return true;
}

}  // namespace

int CmdScan(const std::vector<std::string> &args) {
  for (const std::string &a : args) {
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
  }
  ClientSetup setup;
  std::vector<std::string> rest;
  if (int rc = setup.Parse(args, &rest)) return rc;
  std::string match, type;
  bool with_nodes = false;
  cr_scan_options so = CR_SCAN_OPTIONS_INIT;
  for (size_t i = 0; i < rest.size(); ++i) {
    const std::string &a = rest[i];
    const bool has_value = i + 1 < rest.size();
    if (a == "--match" || a == "--type") {
      if (!has_value) return Usage("scan: " + a + " needs a value");
      (a == "--match" ? match : type) = rest[++i];
      if (type.empty() && a == "--type") return Usage("scan: --type needs a type name");
    } else if (a == "--count") {
      if (!has_value || !ParseCount(rest[++i], &so.count) || so.count == 0)
        return Usage("scan: --count wants N >= 1");
    } else if (a == "--timeout") {
      if (!has_value || !ParseCount(rest[++i], &so.timeout_ms) || so.timeout_ms == 0)
        return Usage("scan: --timeout wants milliseconds > 0");
    } else if (a == "--nodes") {
      with_nodes = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return Usage("scan: unknown option '" + a + "' (try: cloudroute scan --help)");
    } else {
      return Usage("scan: unexpected argument '" + a + "' (the pattern goes after --match)");
    }
  }
  if (!match.empty()) {
    so.match = match.data();
    so.match_len = match.size();
  }
  if (!type.empty()) so.type = type.c_str();
  if (int rc = setup.Connect()) return rc;
  cr_scan *scan = nullptr;
  if (cr_status s = cr_scan_new(&scan, setup.client, &so); s != CR_OK) return Die("scan", s);
  int exit_code = kExitOk;
  for (;;) {
    cr_reply *batch = nullptr;
    if (cr_status s = cr_scan_next(&batch, scan); s != CR_OK) {
      const char *at = cr_scan_get_address(scan);
      std::fprintf(stderr, "cloudroute: scan%s%s: %s: %s\n", at != nullptr ? " at " : "",
                   at != nullptr ? Printable(at).c_str() : "", cr_status_str(s),
                   Printable(cr_last_error()).c_str());
      exit_code = kExitCommandFailed;
      break;
    }
    if (batch == nullptr) break;  // every shard done
    const std::string node = with_nodes ? Printable(cr_scan_get_address(scan)) + " " : "";
    for (size_t i = 0; i < cr_reply_get_count(batch); ++i) {
      const cr_reply *k = cr_reply_get_element(batch, i);
      size_t len = 0;
      const char *text = cr_reply_get_string(k, &len);
      std::printf("%s%s\n", node.c_str(), Printable(std::string_view(text, len)).c_str());
    }
    cr_reply_free(batch);
  }
  cr_scan_free(scan);
  return exit_code;
}

}  // namespace cli
