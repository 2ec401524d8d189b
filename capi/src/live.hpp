// Internal to capi/: what the two live clients' sections (client.cpp,
// sentinel.cpp) share — options to connect options, command arguments,
// replies handed to the caller.
#pragma once

#include <memory>
#include <string>

#include "api.hpp"
#include "cloudroute/net/connection.hpp"
#include "cloudroute/net/reply.hpp"

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
  c.db = o.db;
  return c;
}

// The checks both option structs share: timeouts and pool size non-zero.
template <typename O>
cr_status CheckLiveOptions(const O &o, const char *fn) {
  if (o.pool_size == 0) return Fail(CR_EINVAL, std::string(fn) + ": pool_size must be at least 1");
  if (o.connect_timeout_ms == 0)
    return Fail(CR_EINVAL, std::string(fn) + ": connect_timeout_ms must be > 0");
  if (o.db > 2147483647u) {
    return Fail(CR_EINVAL, std::string(fn) + ": db " + std::to_string(o.db) +
                               " is above the largest database index, 2147483647");
  }
  for (uint32_t t : o.command_timeout_ms) {
    if (t == 0)
      return Fail(CR_EINVAL, std::string(fn) + ": command_timeout_ms entries must be > 0");
  }
  return CR_OK;
}

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
