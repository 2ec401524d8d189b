#include "tls_flags.hpp"

#include <dirent.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli.hpp"

namespace cli {

const char kTlsHelp[] =
    "\nTLS (every command that connects to a live cluster; any of them turns TLS on):\n"
    "  --tls                                  connect over TLS (the seeds are TLS ports)\n"
    "  --cacert FILE                          trusted CAs (PEM); default: the system store\n"
    "  --cacertdir DIR                        trusted CAs (an OpenSSL hashed directory)\n"
    "  --cert FILE --key FILE                 a client certificate and its unencrypted key\n"
    "  --sni NAME                             verify (and send as SNI) NAME instead of each\n"
    "                                         node's address\n"
    "  --insecure                             no certificate checks at all (tests only)\n";

namespace {

// "" when path can be opened for reading, else why not.
std::string Unreadable(const std::string &path, bool dir) {
  if (dir) {
    DIR *d = opendir(path.c_str());
    if (d == nullptr) return std::strerror(errno);
    closedir(d);
    return "";
  }
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return std::strerror(errno);
  std::fclose(f);
  return "";
}

}  // namespace

int TlsFlags::Take(const std::vector<std::string> &args, size_t *i) {
  const std::string &a = args[*i];
  if (a == "--tls" || a == "--insecure") {
    tls = true;
    if (a == "--insecure") insecure = true;
    return 1;
  }
  std::string *field = a == "--cacert"      ? &cacert
                       : a == "--cacertdir" ? &cacertdir
                       : a == "--cert"      ? &cert
                       : a == "--key"       ? &key
                       : a == "--sni"       ? &sni
                                            : nullptr;
  if (field == nullptr) return 0;
  if (*i + 1 >= args.size() || args[*i + 1].empty()) return Usage(a + " needs a value");
  *field = args[++*i];
  tls = true;
  return 1;
}

int TlsFlags::Apply(cr_client_options *o) const {
  if (!tls) return kExitOk;
  if (cert.empty() != key.empty()) return Usage("--cert and --key go together");
  const struct {
    const char *flag;
    const std::string &path;
    bool dir;
  } files[] = {{"--cacert", cacert, false},
               {"--cacertdir", cacertdir, true},
               {"--cert", cert, false},
               {"--key", key, false}};
  for (const auto &f : files) {
    if (f.path.empty()) continue;
    const std::string why = Unreadable(f.path, f.dir);
    if (!why.empty()) return Usage(std::string(f.flag) + " '" + f.path + "': cannot read: " + why);
  }
  auto or_null = [](const std::string &s) { return s.empty() ? nullptr : s.c_str(); };
  o->tls = 1;
  o->tls_verify = insecure ? 0 : 1;
  o->tls_ca_file = or_null(cacert);
  o->tls_ca_dir = or_null(cacertdir);
  o->tls_cert_file = or_null(cert);
  o->tls_key_file = or_null(key);
  o->tls_server_name = or_null(sni);
  return kExitOk;
}

}  // namespace cli
