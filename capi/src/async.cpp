// C API: asynchronous calls of the live client (net/async_calls.hpp).
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cloudroute/net/key_batch.hpp"
#include "commands.hpp"
#include "live.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary
namespace net = cloudroute::net;

namespace {

// A call's completion as the C callback sees it: the callback owns the
// reply; a failure's text is this thread's cr_last_error() while it runs.
net::AsyncCalls::Done Completion(cr_completion_fn done, void *ud) {
  return [done, ud](cloudroute::Result<net::ReplyPtr> r) {
    cr_reply *reply = nullptr;
    const cr_status st = Guard([&] { return ReplyOut(&reply, std::move(r)); });
    done(ud, st, reply);
  };
}

// A client's asynchronous side: the cluster and Sentinel clients forward
// its calls themselves, the pre-sharded client hands it out.
template <typename H>
auto &AsyncOf(H *c) {
  if constexpr (std::is_same_v<H, cr_sharded_client>) {
    return c->client->async();
  } else {
    return *c->client;
  }
}

// The multi-key submits: keys (and, for kMSet, values) copied, then handed
// to the client's asynchronous fan-out.
template <typename H>
cr_status SubmitMulti(H *c, net::KeyBatchKind kind, const void *const *keys, const size_t *key_lens,
                      const void *const *values, const size_t *value_lens, size_t n,
                      cr_completion_fn done, void *ud, const char *fn) {
  if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
  if (done == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": done is NULL");
  std::vector<std::string> k, v;
  if (cr_status s = Keys(&k, keys, key_lens, n, fn, "keys"); s != CR_OK) return s;
  if (kind == net::KeyBatchKind::kMSet) {
    if (cr_status s = Keys(&v, values, value_lens, n, fn, "values"); s != CR_OK) return s;
  }
  return Check(AsyncOf(c).SubmitMulti(kind, std::move(k), std::move(v), Completion(done, ud)));
}

// A single-key command submitted (cr_client_submit, cr_sentinel_client_submit):
// CR_ACCESS_AUTO is the cluster client's alone (it learns a command table).
template <typename H>
cr_status SubmitCall(H *c, const cr_call_options *opts, const cr_access &access, size_t key_index,
                     size_t argc, const void *const *argv, const size_t *argvlen,
                     cr_completion_fn done, void *ud, const char *fn) {
  cr_reply *unused = nullptr;
  if (cr_status s = CheckCommand(&unused, c, RawEnum(access), key_index, argc, argv, argvlen, fn);
      s != CR_OK) {
    return s;
  }
  if (done == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": done is NULL");
  net::CallOptions call;
  if (cr_status s = ReadCallOptions(&call, opts, fn); s != CR_OK) return s;
  net::Args args = ArgsFrom(argv, argvlen, argc);
  net::Access a = RawEnum(access) == CR_ACCESS_READ ? net::Access::kRead : net::Access::kWrite;
  size_t key_at = key_index;
  if (RawEnum(access) == CR_ACCESS_AUTO) {
    if constexpr (std::is_same_v<H, cr_client>) {
      // As the blocking call classes it (the first such call of a client
      // learns the server's command table, on this thread).
      cloudroute::Result<net::CommandRoute> route = c->client->PlanAuto(key_index, args);
      if (!route.ok()) return Check(route.status());
      a = route->access;
      key_at = route->keys[0];
    } else {
      return Fail(CR_EINVAL, std::string(fn) +
                                 ": CR_ACCESS_AUTO is for the cluster client; give CR_ACCESS_READ "
                                 "or CR_ACCESS_WRITE and the key's index");
    }
  }
  const std::string key = args[key_at];
  return Check(AsyncOf(c).Submit(a, key, std::move(args), call, Completion(done, ud)));
}

template <typename H>
cr_status CompletionFdCall(int *out_fd, H *c, const char *fn) {
  if (cr_status s = NotNull(out_fd, fn, "out_fd"); s != CR_OK) return s;
  if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
  auto fd = AsyncOf(c).CompletionFd();
  if (!fd.ok()) return Fail(fd.status());
  *out_fd = *fd;
  return CR_OK;
}

template <typename H>
cr_status RunCompletionsCall(size_t *out_ran, H *c, size_t max, const char *fn) {
  if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
  if (AsyncOf(c).InCompletion()) {
    return Fail(CR_EINVAL, std::string(fn) + ": called from a completion callback");
  }
  const size_t ran = AsyncOf(c).RunCompletions(max);
  if (out_ran != nullptr) *out_ran = ran;
  return CR_OK;
}

}  // namespace

extern "C" {

cr_status cr_client_submit(cr_client *c, const cr_call_options *opts, cr_access access,
                           size_t key_index, size_t argc, const void *const *argv,
                           const size_t *argvlen, cr_completion_fn done, void *ud) {
  return Guard([&] {
    return SubmitCall(c, opts, access, key_index, argc, argv, argvlen, done, ud,
                      "cr_client_submit");
  });
}

cr_status cr_sentinel_client_submit(cr_sentinel_client *c, const cr_call_options *opts,
                                    cr_access access, size_t key_index, size_t argc,
                                    const void *const *argv, const size_t *argvlen,
                                    cr_completion_fn done, void *ud) {
  return Guard([&] {
    return SubmitCall(c, opts, access, key_index, argc, argv, argvlen, done, ud,
                      "cr_sentinel_client_submit");
  });
}

cr_status cr_client_submit_mget(cr_client *c, const void *const *keys, const size_t *lens, size_t n,
                                cr_completion_fn done, void *ud) {
  return Guard([&] {
    return SubmitMulti(c, net::KeyBatchKind::kMGet, keys, lens, nullptr, nullptr, n, done, ud,
                       "cr_client_submit_mget");
  });
}

cr_status cr_client_submit_mset(cr_client *c, const void *const *keys, const size_t *key_lens,
                                const void *const *values, const size_t *value_lens, size_t n,
                                cr_completion_fn done, void *ud) {
  return Guard([&] {
    return SubmitMulti(c, net::KeyBatchKind::kMSet, keys, key_lens, values, value_lens, n, done, ud,
                       "cr_client_submit_mset");
  });
}

cr_status cr_client_submit_del(cr_client *c, const void *const *keys, const size_t *lens, size_t n,
                               cr_completion_fn done, void *ud) {
  return Guard([&] {
    return SubmitMulti(c, net::KeyBatchKind::kDel, keys, lens, nullptr, nullptr, n, done, ud,
                       "cr_client_submit_del");
  });
}

cr_status cr_client_submit_exists(cr_client *c, const void *const *keys, const size_t *lens,
                                  size_t n, cr_completion_fn done, void *ud) {
  return Guard([&] {
    return SubmitMulti(c, net::KeyBatchKind::kExists, keys, lens, nullptr, nullptr, n, done, ud,
                       "cr_client_submit_exists");
  });
}

cr_status cr_client_completion_fd(int *out_fd, cr_client *c) {
  return Guard([&] { return CompletionFdCall(out_fd, c, "cr_client_completion_fd"); });
}

cr_status cr_client_run_completions(size_t *out_ran, cr_client *c, size_t max) {
  return Guard([&] { return RunCompletionsCall(out_ran, c, max, "cr_client_run_completions"); });
}

cr_status cr_sentinel_client_completion_fd(int *out_fd, cr_sentinel_client *c) {
  return Guard([&] { return CompletionFdCall(out_fd, c, "cr_sentinel_client_completion_fd"); });
}

cr_status cr_sentinel_client_run_completions(size_t *out_ran, cr_sentinel_client *c, size_t max) {
  return Guard(
      [&] { return RunCompletionsCall(out_ran, c, max, "cr_sentinel_client_run_completions"); });
}

cr_status cr_sharded_client_submit(cr_sharded_client *c, const cr_call_options *opts,
                                   cr_access access, size_t key_index, size_t argc,
                                   const void *const *argv, const size_t *argvlen,
                                   cr_completion_fn done, void *ud) {
  return Guard([&] {
    return SubmitCall(c, opts, access, key_index, argc, argv, argvlen, done, ud,
                      "cr_sharded_client_submit");
  });
}

cr_status cr_sharded_client_submit_mget(cr_sharded_client *c, const void *const *keys,
                                        const size_t *lens, size_t n, cr_completion_fn done,
                                        void *ud) {
  return Guard([&] {
    return SubmitMulti(c, net::KeyBatchKind::kMGet, keys, lens, nullptr, nullptr, n, done, ud,
                       "cr_sharded_client_submit_mget");
  });
}

cr_status cr_sharded_client_submit_mset(cr_sharded_client *c, const void *const *keys,
                                        const size_t *key_lens, const void *const *values,
                                        const size_t *value_lens, size_t n, cr_completion_fn done,
                                        void *ud) {
  return Guard([&] {
    return SubmitMulti(c, net::KeyBatchKind::kMSet, keys, key_lens, values, value_lens, n, done, ud,
                       "cr_sharded_client_submit_mset");
  });
}

cr_status cr_sharded_client_submit_del(cr_sharded_client *c, const void *const *keys,
                                       const size_t *lens, size_t n, cr_completion_fn done,
                                       void *ud) {
  return Guard([&] {
    return SubmitMulti(c, net::KeyBatchKind::kDel, keys, lens, nullptr, nullptr, n, done, ud,
                       "cr_sharded_client_submit_del");
  });
}

cr_status cr_sharded_client_submit_exists(cr_sharded_client *c, const void *const *keys,
                                          const size_t *lens, size_t n, cr_completion_fn done,
                                          void *ud) {
  return Guard([&] {
    return SubmitMulti(c, net::KeyBatchKind::kExists, keys, lens, nullptr, nullptr, n, done, ud,
                       "cr_sharded_client_submit_exists");
  });
}

cr_status cr_sharded_client_completion_fd(int *out_fd, cr_sharded_client *c) {
  return Guard([&] { return CompletionFdCall(out_fd, c, "cr_sharded_client_completion_fd"); });
}

cr_status cr_sharded_client_run_completions(size_t *out_ran, cr_sharded_client *c, size_t max) {
  return Guard(
      [&] { return RunCompletionsCall(out_ran, c, max, "cr_sharded_client_run_completions"); });
}

}  // extern "C"
