// Internal to capi/: what the two live clients' sections (client.cpp,
// sentinel.cpp) share — options to connect options, command arguments,
// replies handed to the caller.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api.hpp"
#include "cloudroute/net/connection.hpp"
#include "cloudroute/net/node_pools.hpp"
#include "cloudroute/net/reply.hpp"
#include "cloudroute/net/tls.hpp"

namespace cloudroute {
namespace capi {

// The connection settings both option structs carry (cr_client_options,
// cr_sentinel_options): one mapping for both.
template <typename O>
net::ConnectOptions NodeConnectOptions(const O &o) {
  net::ConnectOptions c;
  c.connect_timeout_ms = o.connect_timeout_ms;
  c.keepalive_idle_s = o.tcp_keepalive_s;
  c.user_timeout_ms = o.tcp_user_timeout_ms;
  if (o.username != nullptr) c.username = o.username;
  if (o.password != nullptr) c.password = o.password;
  if (o.client_name != nullptr) c.client_name = o.client_name;
  return c;
}

// The checks both option structs share: timeouts and pool size non-zero.
template <typename O>
cr_status CheckLiveOptions(const O &o, const char *fn) {
  if (o.pool_size == 0) return Fail(CR_EINVAL, std::string(fn) + ": pool_size must be at least 1");
  if (o.connect_timeout_ms == 0)
    return Fail(CR_EINVAL, std::string(fn) + ": connect_timeout_ms must be > 0");
  for (uint32_t t : o.command_timeout_ms) {
    if (t == 0)
      return Fail(CR_EINVAL, std::string(fn) + ": command_timeout_ms entries must be > 0");
  }
  return CR_OK;
}

// The TLS fields both option structs carry, checked (tls, tls_verify are
// booleans) and, when tls is 1, a TLS context into *conn (CR_EINVAL naming
// fn when the files do not load).
template <typename O>
cr_status TlsFrom(const O &o, const char *fn, net::ConnectOptions *conn) {
  if (cr_status s = Boolean(o.tls, fn, "tls"); s != CR_OK) return s;
  if (cr_status s = Boolean(o.tls_verify, fn, "tls_verify"); s != CR_OK) return s;
  if (o.tls == 0) return CR_OK;
  net::TlsOptions t;
  t.verify = o.tls_verify != 0;
  if (o.tls_ca_file != nullptr) t.ca_file = o.tls_ca_file;
  if (o.tls_ca_dir != nullptr) t.ca_dir = o.tls_ca_dir;
  if (o.tls_cert_file != nullptr) t.cert_file = o.tls_cert_file;
  if (o.tls_key_file != nullptr) t.key_file = o.tls_key_file;
  if (o.tls_server_name != nullptr) t.server_name = o.tls_server_name;
  auto tls = net::TlsContext::Create(t);
  if (!tls.ok()) return Fail(CR_EINVAL, std::string(fn) + ": " + tls.status().message());
  conn->tls = std::move(*tls);
  return CR_OK;
}

// cr_client_get_node_stats and cr_sentinel_client_get_node_stats: all into
// (out, cap, needed).
cr_status NodeStatsOut(cr_client_node_stats *out, size_t cap, size_t *needed,
                       const std::vector<net::NodeStatsValues> &all, const char *fn);

// The clients' Prometheus text into (buf, cap, needed).
cr_status TextOut(char *buf, size_t cap, size_t *needed, const std::string &text, const char *fn);

// A command's arguments (checked with BytesArray first) as net::Args.
net::Args ArgsFrom(const void *const *argv, const size_t *argvlen, size_t argc);

// The checks of cr_client_command and cr_sentinel_client_command: out,
// access, argc/key_index and argv. *out is cleared first.
cr_status CheckCommand(cr_reply **out, const void *client, int access, size_t key_index,
                       size_t argc, const void *const *argv, const size_t *argvlen, const char *fn);

// A net reply tree moved into a new C reply.
std::unique_ptr<cr_reply> NewReply(net::Reply &from);

// *out gets the converted reply on success; a failed r is recorded with
// Fail() and its status returned. REQUIRES: out != NULL.
cr_status ReplyOut(cr_reply **out, Result<net::ReplyPtr> r);

}  // namespace capi
}  // namespace cloudroute
