// Internal to the CLI: the TLS options of every command that connects to a
// live cluster (get, set, mget, exec, pipe, stats, route/topology --seeds,
// demo), named as redis-cli names them and mapped onto the TLS fields of
// cr_client_options.
#pragma once

#include <string>
#include <vector>

#include "cloudroute.h"

namespace cli {

struct TlsFlags {
  bool tls = false, insecure = false;
  std::string cacert, cacertdir, cert, key, sni;

  // Consumes args[*i] (and its value, advancing *i) when it is a TLS option:
  // returns 1 then, 0 when it is not one, or an exit code (> 1) after printing
  // a usage error.
  int Take(const std::vector<std::string> &args, size_t *i);
  // Fills the TLS fields of *o (pointing into this object). Checks first that
  // every file and directory given can be read, so a typo is named as such
  // rather than as an OpenSSL error. Returns 0 or an exit code after printing
  // the error.
  int Apply(cr_client_options *o) const;
};

// The TLS options, for the commands' help texts.
extern const char kTlsHelp[];

}  // namespace cli
