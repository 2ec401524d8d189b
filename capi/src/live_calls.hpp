// Internal to capi/: the calls the cluster client (cr_client), the
// pre-sharded client (cr_sharded_client) and the Sentinel client
// (cr_sentinel_client) share, written once over the handle: H is a handle
// whose `client` is a net::Client, net::ShardedClient or
// net::SentinelClient (each template names what it needs of it: Execute for
// CommandCall; the engine's MGet, MSet, Del, ExecuteKeys, EvalScript,
// ExecuteOnNodes and stats() for the rest, which the Sentinel client runs
// as its group batches instead).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cloudroute/net/node_commands.hpp"
#include "commands.hpp"
#include "live.hpp"

namespace cloudroute {
namespace capi {

// Any command on one key, with call options (opts may be NULL); CR_ACCESS_AUTO
// is refused (the cluster client alone learns a command table; it runs
// cr_client_command's own path).
template <typename H>
cr_status CommandCall(cr_reply **out, H *c, const cr_call_options *opts, const cr_access &access,
                      size_t key_index, size_t argc, const void *const *argv, const size_t *argvlen,
                      const char *fn) {
  if (cr_status s = CheckCommand(out, c, RawEnum(access), key_index, argc, argv, argvlen, fn);
      s != CR_OK) {
    return s;
  }
  net::CallOptions call;
  if (cr_status s = ReadCallOptions(&call, opts, fn); s != CR_OK) return s;
  if (RawEnum(access) == CR_ACCESS_AUTO) {
    return Fail(CR_EINVAL, std::string(fn) +
                               ": CR_ACCESS_AUTO is for the cluster client; give CR_ACCESS_READ "
                               "or CR_ACCESS_WRITE and the key's index");
  }
  net::Args args = ArgsFrom(argv, argvlen, argc);
  const std::string key = args[key_index];
  const net::Access a =
      RawEnum(access) == CR_ACCESS_WRITE ? net::Access::kWrite : net::Access::kRead;
  return ReplyOut(out, c->client->Execute(a, key, args, call));
}

template <typename H>
cr_status MGetCall(cr_reply **out, H *c, const void *const *keys, const size_t *lens, size_t n,
                   const char *fn) {
  if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
  *out = nullptr;
  if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
  std::vector<std::string> k;
  if (cr_status s = Keys(&k, keys, lens, n, fn, "keys"); s != CR_OK) return s;
  return ReplyOut(out, c->client->MGet(k));
}

template <typename H>
cr_status MSetCall(H *c, const void *const *keys, const size_t *key_lens, const void *const *values,
                   const size_t *value_lens, size_t n, const char *fn) {
  if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
  std::vector<std::string> k, v;
  if (cr_status s = Keys(&k, keys, key_lens, n, fn, "keys"); s != CR_OK) return s;
  if (cr_status s = Keys(&v, values, value_lens, n, fn, "values"); s != CR_OK) return s;
  return Check(c->client->MSet(k, v));
}

// A multi-key command answering a count (DEL, EXISTS): count is the
// client's member that runs it; *out (may be NULL) gets the count.
template <typename H, typename Count>
cr_status CountCall(int64_t *out, H *c, const void *const *keys, const size_t *lens, size_t n,
                    Count count, const char *fn) {
  if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
  std::vector<std::string> k;
  if (cr_status s = Keys(&k, keys, lens, n, fn, "keys"); s != CR_OK) return s;
  Result<int64_t> r = ((*c->client).*count)(k);
  if (!r.ok()) return Fail(r.status());
  if (out != nullptr) *out = *r;
  return CR_OK;
}

// The engine's counters as cr_client_stats.
cr_client_stats ClientStatsFrom(const net::StatsValues &v);

// numkeys keys and nargs args of a script or function call, checked.
cr_status KeysAndArgs(std::vector<std::string> *keys, std::vector<std::string> *args,
                      size_t numkeys, const void *const *k, const size_t *kl, size_t nargs,
                      const void *const *a, const size_t *al, const char *fn);

// What a script or function call checks first.
cr_status CheckCall(cr_reply **out, const void *c, int read_only, const void *what,
                    const char *what_name, net::CallOptions *call, const cr_call_options *opts,
                    const char *fn);

// EVALSHA (EVALSHA_RO) of script on its keys' place.
template <typename H>
cr_status EvalCall(cr_reply **out, H *c, const cr_call_options *opts, const cr_script *script,
                   int read_only, size_t numkeys, const void *const *keys, const size_t *key_lens,
                   size_t nargs, const void *const *args, const size_t *arg_lens, const char *fn) {
  net::CallOptions call;
  if (cr_status s = CheckCall(out, c, read_only, script, "script", &call, opts, fn); s != CR_OK)
    return s;
  std::vector<std::string> k, a;
  if (cr_status s = KeysAndArgs(&k, &a, numkeys, keys, key_lens, nargs, args, arg_lens, fn);
      s != CR_OK)
    return s;
  return ReplyOut(out, c->client->EvalScript(script->script, read_only == 1, k, a, call));
}

// FCALL (FCALL_RO) of function on its keys' place.
template <typename H>
cr_status FcallCall(cr_reply **out, H *c, const cr_call_options *opts, const char *function,
                    int read_only, size_t numkeys, const void *const *keys, const size_t *key_lens,
                    size_t nargs, const void *const *args, const size_t *arg_lens, const char *fn) {
  net::CallOptions call;
  if (cr_status s = CheckCall(out, c, read_only, function, "function", &call, opts, fn); s != CR_OK)
    return s;
  std::vector<std::string> k, a;
  if (cr_status s = KeysAndArgs(&k, &a, numkeys, keys, key_lens, nargs, args, arg_lens, fn);
      s != CR_OK)
    return s;
  net::Args cmd{read_only == 1 ? "FCALL_RO" : "FCALL", function, std::to_string(k.size())};
  cmd.insert(cmd.end(), k.begin(), k.end());
  cmd.insert(cmd.end(), a.begin(), a.end());
  return ReplyOut(
      out, c->client->ExecuteKeys(read_only == 1 ? net::Access::kRead : net::Access::kWrite, k, cmd,
                                  call));
}

// The checks of a node-targeted command (target, node, argv, opts); *call
// gets the call options.
cr_status CheckNodesCall(cr_node_replies **out, const void *c, const cr_call_options *opts,
                         const cr_target &target, const char *node, size_t argc,
                         const void *const *argv, const size_t *argvlen, net::CallOptions *call,
                         const char *fn);
// The nodes' answers as a cr_node_replies (*out); a failed r is recorded.
cr_status NodeRepliesOut(cr_node_replies **out, Result<std::vector<net::NodeReply>> r);

template <typename H>
cr_status NodesCall(cr_node_replies **out, H *c, const cr_call_options *opts,
                    const cr_target &target, const char *node, size_t argc, const void *const *argv,
                    const size_t *argvlen, const char *fn) {
  net::CallOptions call;
  if (cr_status s = CheckNodesCall(out, c, opts, target, node, argc, argv, argvlen, &call, fn);
      s != CR_OK) {
    return s;
  }
  const bool one = RawEnum(target) == CR_TARGET_NODE;
  return NodeRepliesOut(
      out, c->client->ExecuteOnNodes(static_cast<net::NodeTarget>(RawEnum(target)), one ? node : "",
                                     ArgsFrom(argv, argvlen, argc), call));
}

// cr_scan_options (opts may be NULL) as the net layer's.
cr_status ScanOptionsFrom(net::ScanOptions *out, const cr_scan_options *opts, const char *fn);

template <typename H>
cr_status ScanNew(cr_scan **out, H *c, const cr_scan_options *opts, const char *fn) {
  if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
  *out = nullptr;
  if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
  net::ScanOptions so;
  if (cr_status s = ScanOptionsFrom(&so, opts, fn); s != CR_OK) return s;
  auto s = std::make_unique<cr_scan>();
  s->scan = c->client->Scan(std::move(so));
  *out = s.release();
  return CR_OK;
}

// A pipeline of the cluster client (its command table classes
// CR_ACCESS_AUTO), or of a client of shard groups.
inline cr_pipeline *NewPipeline(net::Client *c) { return new cr_pipeline(c); }
template <typename C>
cr_pipeline *NewPipeline(C *c) {
  return new cr_pipeline(&c->topology(), &c->executor());
}

template <typename H>
cr_status PipelineNew(cr_pipeline **out, H *c, const char *fn) {
  if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
  *out = nullptr;
  if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
  *out = NewPipeline(c->client.get());
  return CR_OK;
}

}  // namespace capi
}  // namespace cloudroute
