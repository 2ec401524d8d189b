// C API: SCAN over every shard of a cr_client or a cr_sharded_client.
#include <memory>
#include <string>

#include "commands.hpp"
#include "live.hpp"
#include "live_calls.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary
namespace net = cloudroute::net;

namespace {
constexpr cr_scan_options kScanDefaults = CR_SCAN_OPTIONS_INIT;
}  // namespace

cr_status cloudroute::capi::ScanOptionsFrom(net::ScanOptions *so, const cr_scan_options *opts,
                                            const char *fn) {
  cr_scan_options o;
  if (cr_status s = ReadInput(&o, opts, kScanDefaults, fn, "opts"); s != CR_OK) return s;
  if (cr_status s = Bytes(o.match, o.match_len, fn, "match"); s != CR_OK) return s;
  so->has_match = o.match != nullptr;
  if (o.match != nullptr) so->match.assign(static_cast<const char *>(o.match), o.match_len);
  so->count = o.count;
  if (o.type != nullptr) {
    if (o.type[0] == '\0') return Fail(CR_EINVAL, std::string(fn) + ": type is empty");
    so->type = o.type;
  }
  so->timeout_ms = o.timeout_ms;
  return CR_OK;
}

extern "C" {

cr_status cr_scan_options_init(cr_scan_options *opts, size_t size) {
  return Guard([&] { return InitOptions(opts, size, kScanDefaults, "cr_scan_options_init"); });
}

cr_status cr_scan_new(cr_scan **out, cr_client *c, const cr_scan_options *opts) {
  return Guard([&] { return ScanNew(out, c, opts, "cr_scan_new"); });
}

cr_status cr_scan_next(cr_reply **out, cr_scan *s) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_scan_next";
    if (cr_status st = NotNull(out, fn, "out"); st != CR_OK) return st;
    *out = nullptr;
    if (cr_status st = NotNull(s, fn, "scan"); st != CR_OK) return st;
    std::vector<std::string> keys;
    bool done = false;
    if (cr_status st = Check(s->scan->Next(&keys, &done)); st != CR_OK) return st;
    if (done) return CR_OK;
    if (s->scan->node() != nullptr) s->address = s->scan->node()->address;
    auto r = std::make_unique<cr_reply>();
    r->type = CR_REPLY_TYPE_ARRAY;
    r->elements.resize(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      r->elements[i].type = CR_REPLY_TYPE_STRING;
      r->elements[i].str = std::move(keys[i]);
    }
    *out = r.release();
    return CR_OK;
  });
}

const char *cr_scan_get_address(const cr_scan *s) {
  return s == nullptr || s->address.empty() ? nullptr : s->address.c_str();
}

void cr_scan_free(cr_scan *s) { delete s; }

}  // extern "C"
