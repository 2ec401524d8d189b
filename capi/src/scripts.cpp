// C API: scripts and functions routed by their keys, and connections pinned
// to one slot's master for transactions.
#include <memory>
#include <string>
#include <vector>

#include "cloudroute/core/keyslot.hpp"
#include "commands.hpp"
#include "live.hpp"
#include "live_calls.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary
namespace net = cloudroute::net;

cr_status cloudroute::capi::KeysAndArgs(std::vector<std::string> *keys,
                                        std::vector<std::string> *args, size_t numkeys,
                                        const void *const *k, const size_t *kl, size_t nargs,
                                        const void *const *a, const size_t *al, const char *fn) {
  if (cr_status s = BytesArray(k, kl, numkeys, fn, "keys"); s != CR_OK) return s;
  if (cr_status s = BytesArray(a, al, nargs, fn, "args"); s != CR_OK) return s;
  *keys = ArgsFrom(k, kl, numkeys);
  *args = ArgsFrom(a, al, nargs);
  return CR_OK;
}

cr_status cloudroute::capi::CheckCall(cr_reply **out, const void *c, int read_only,
                                      const void *what, const char *what_name,
                                      net::CallOptions *call, const cr_call_options *opts,
                                      const char *fn) {
  if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
  *out = nullptr;
  if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
  if (cr_status s = NotNull(what, fn, what_name); s != CR_OK) return s;
  if (cr_status s = Boolean(read_only, fn, "read_only"); s != CR_OK) return s;
  return ReadCallOptions(call, opts, fn);
}

extern "C" {

cr_status cr_script_new(cr_script **out, const void *body, size_t len) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_script_new";
    if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
    *out = nullptr;
    if (len == 0) return Fail(CR_EINVAL, std::string(fn) + ": the script body is empty");
    if (cr_status s = NotNull(body, fn, "body"); s != CR_OK) return s;
    *out = new cr_script(std::string(static_cast<const char *>(body), len));
    return CR_OK;
  });
}

const char *cr_script_get_sha(const cr_script *s) {
  return s == nullptr ? nullptr : s->script.sha().c_str();
}

void cr_script_free(cr_script *s) { delete s; }

cr_status cr_client_eval(cr_reply **out, cr_client *c, const cr_call_options *opts,
                         const cr_script *script, int read_only, size_t numkeys,
                         const void *const *keys, const size_t *key_lens, size_t nargs,
                         const void *const *args, const size_t *arg_lens) {
  return Guard([&] {
    return EvalCall(out, c, opts, script, read_only, numkeys, keys, key_lens, nargs, args, arg_lens,
                    "cr_client_eval");
  });
}

cr_status cr_client_fcall(cr_reply **out, cr_client *c, const cr_call_options *opts,
                          const char *function, int read_only, size_t numkeys,
                          const void *const *keys, const size_t *key_lens, size_t nargs,
                          const void *const *args, const size_t *arg_lens) {
  return Guard([&] {
    return FcallCall(out, c, opts, function, read_only, numkeys, keys, key_lens, nargs, args,
                     arg_lens, "cr_client_fcall");
  });
}

cr_status cr_client_pin_slot(cr_pinned **out, cr_client *c, uint16_t slot) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_client_pin_slot";
    if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
    *out = nullptr;
    if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
    if (cr_status s = Slot(slot, fn); s != CR_OK) return s;
    auto p = c->client->Pin(slot);
    if (!p.ok()) return Fail(p.status());
    *out = new cr_pinned{std::move(*p)};
    return CR_OK;
  });
}

cr_status cr_client_pin(cr_pinned **out, cr_client *c, const void *key, size_t len) {
  return Guard([&]() -> cr_status {
    if (cr_status s = Bytes(key, len, "cr_client_pin", "key"); s != CR_OK) return s;
    return cr_client_pin_slot(out, c, cloudroute::KeySlot(key, len));
  });
}

cr_status cr_pinned_command(cr_reply **out, cr_pinned *p, const cr_call_options *opts, size_t nkeys,
                            const size_t *key_indexes, size_t argc, const void *const *argv,
                            const size_t *argvlen) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_pinned_command";
    if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
    *out = nullptr;
    if (cr_status s = NotNull(p, fn, "pinned"); s != CR_OK) return s;
    if (argc == 0) return Fail(CR_EINVAL, std::string(fn) + ": argc is 0");
    if (cr_status s = BytesArray(argv, argvlen, argc, fn, "argv"); s != CR_OK) return s;
    if (nkeys > 0 && key_indexes == nullptr) {
      return Fail(CR_EINVAL, std::string(fn) + ": key_indexes is NULL with nkeys > 0");
    }
    net::CallOptions call;
    if (cr_status s = ReadCallOptions(&call, opts, fn); s != CR_OK) return s;
    net::Args args = ArgsFrom(argv, argvlen, argc);
    std::vector<std::string> keys;
    for (size_t i = 0; i < nkeys; ++i) {
      if (key_indexes[i] == 0 || key_indexes[i] >= argc) {
        return Fail(CR_EINVAL, std::string(fn) + ": key_indexes[" + std::to_string(i) + "] " +
                                   std::to_string(key_indexes[i]) + " is not in 1-" +
                                   std::to_string(argc - 1));
      }
      keys.push_back(args[key_indexes[i]]);
    }
    return ReplyOut(out, p->pinned->Command(keys, args, call));
  });
}

uint16_t cr_pinned_get_slot(const cr_pinned *p) { return p == nullptr ? 0 : p->pinned->slot(); }

void cr_pinned_free(cr_pinned *p) { delete p; }

}  // extern "C"
