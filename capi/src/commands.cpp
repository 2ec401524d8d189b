// C API: per-call options and node-targeted commands of the live client.
#include "commands.hpp"

#include <memory>
#include <string>

#include "live.hpp"
#include "live_calls.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary
namespace net = cloudroute::net;

namespace {

constexpr cr_call_options kCallDefaults = CR_CALL_OPTIONS_INIT;

const cr_node_replies::Entry *EntryAt(const cr_node_replies *r, size_t i) {
  return r != nullptr && i < r->entries.size() ? &r->entries[i] : nullptr;
}

}  // namespace

cr_status cloudroute::capi::ReadCallOptions(net::CallOptions *out, const cr_call_options *opts,
                                            const char *fn) {
  cr_call_options o;
  if (cr_status s = ReadInput(&o, opts, kCallDefaults, fn, "opts"); s != CR_OK) return s;
  out->timeout_ms = o.timeout_ms;
  return CR_OK;
}

cr_status cloudroute::capi::CheckNodesCall(cr_node_replies **out, const void *c,
                                           const cr_call_options *opts, const cr_target &target,
                                           const char *node, size_t argc, const void *const *argv,
                                           const size_t *argvlen, net::CallOptions *call,
                                           const char *fn) {
  if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
  *out = nullptr;
  if (cr_status s = NotNull(c, fn, "client"); s != CR_OK) return s;
  if (cr_status s = EnumInRange(target, CR_TARGET_ALL_NODES, fn, "target"); s != CR_OK) return s;
  const bool one = RawEnum(target) == CR_TARGET_NODE;
  if (one && node == nullptr) {
    return Fail(CR_EINVAL, std::string(fn) + ": CR_TARGET_NODE needs a node (\"host:port\")");
  }
  if (!one && node != nullptr) {
    return Fail(CR_EINVAL, std::string(fn) + ": node is only for CR_TARGET_NODE");
  }
  if (argc == 0) return Fail(CR_EINVAL, std::string(fn) + ": argc is 0");
  if (cr_status s = BytesArray(argv, argvlen, argc, fn, "argv"); s != CR_OK) return s;
  return ReadCallOptions(call, opts, fn);
}

cr_status cloudroute::capi::NodeRepliesOut(cr_node_replies **out,
                                           Result<std::vector<net::NodeReply>> r) {
  if (!r.ok()) return Fail(r.status());
  auto res = std::make_unique<cr_node_replies>();
  for (net::NodeReply &n : *r) {
    cr_node_replies::Entry e;
    e.address = n.address;
    e.role = n.role == cloudroute::Role::kMaster ? CR_ROLE_MASTER : CR_ROLE_REPLICA;
    e.status = static_cast<cr_status>(n.status.code());
    e.error = n.status.ok() ? "" : n.status.message();
    if (n.reply != nullptr) {
      cr_reply *converted = nullptr;
      (void)ReplyOut(&converted, std::move(n.reply));
      e.reply.reset(converted);
    }
    if (e.status != CR_OK) ++res->failed;
    res->entries.push_back(std::move(e));
  }
  *out = res.release();
  return CR_OK;
}

extern "C" {

cr_status cr_call_options_init(cr_call_options *opts, size_t size) {
  return Guard([&] { return InitOptions(opts, size, kCallDefaults, "cr_call_options_init"); });
}

cr_status cr_client_command_opts(cr_reply **out, cr_client *c, const cr_call_options *opts,
                                 cr_access access, size_t key_index, size_t argc,
                                 const void *const *argv, const size_t *argvlen) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_client_command_opts";
    if (cr_status s = CheckCommand(out, c, RawEnum(access), key_index, argc, argv, argvlen, fn);
        s != CR_OK) {
      return s;
    }
    net::CallOptions call;
    if (cr_status s = ReadCallOptions(&call, opts, fn); s != CR_OK) return s;
    return ReplyOut(out, RunCommand(c->client.get(), RawEnum(access), key_index,
                                    ArgsFrom(argv, argvlen, argc), call));
  });
}

cr_status cr_client_command_nodes(cr_node_replies **out, cr_client *c, const cr_call_options *opts,
                                  cr_target target, const char *node, size_t argc,
                                  const void *const *argv, const size_t *argvlen) {
  return Guard([&] {
    return NodesCall(out, c, opts, target, node, argc, argv, argvlen, "cr_client_command_nodes");
  });
}

size_t cr_node_replies_get_count(const cr_node_replies *r) {
  return r == nullptr ? 0 : r->entries.size();
}

size_t cr_node_replies_get_failed(const cr_node_replies *r) { return r == nullptr ? 0 : r->failed; }

const char *cr_node_replies_get_address(const cr_node_replies *r, size_t i) {
  const auto *e = EntryAt(r, i);
  return e == nullptr ? nullptr : e->address.c_str();
}

cr_role cr_node_replies_get_role(const cr_node_replies *r, size_t i) {
  const auto *e = EntryAt(r, i);
  return e == nullptr ? CR_ROLE_MASTER : e->role;
}

cr_status cr_node_replies_get_status(const cr_node_replies *r, size_t i) {
  const auto *e = EntryAt(r, i);
  return e == nullptr ? CR_EINVAL : e->status;
}

const char *cr_node_replies_get_error(const cr_node_replies *r, size_t i) {
  const auto *e = EntryAt(r, i);
  return e == nullptr ? "" : e->error.c_str();
}

const cr_reply *cr_node_replies_get_reply(const cr_node_replies *r, size_t i) {
  const auto *e = EntryAt(r, i);
  return e == nullptr ? nullptr : e->reply.get();
}

void cr_node_replies_free(cr_node_replies *r) { delete r; }

}  // extern "C"
