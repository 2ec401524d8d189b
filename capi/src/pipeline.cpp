// C API: pipelines — any commands in any places, run at once on a cr_client
// or a cr_sharded_client (net/pipeline.hpp does the work).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cloudroute/net/pipeline.hpp"
#include "live.hpp"
#include "live_calls.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary
namespace net = cloudroute::net;

namespace {

// The checks both adds share: the handle, access and argv.
cr_status CheckAdd(const cr_pipeline *p, cr_access access, size_t argc, const void *const *argv,
                   const size_t *argvlen, const char *fn) {
  if (cr_status s = NotNull(p, fn, "pipeline"); s != CR_OK) return s;
  if (cr_status s = EnumInRange(access, CR_ACCESS_AUTO, fn, "access"); s != CR_OK) return s;
  if (argc == 0) return Fail(CR_EINVAL, std::string(fn) + ": argc is 0");
  return BytesArray(argv, argvlen, argc, fn, "argv");
}

// Views of the caller's arguments: borrowed until the pipeline runs.
std::vector<std::string_view> Views(size_t argc, const void *const *argv, const size_t *argvlen) {
  std::vector<std::string_view> v(argc);
  for (size_t i = 0; i < argc; ++i) {
    if (argvlen[i] != 0) v[i] = std::string_view(static_cast<const char *>(argv[i]), argvlen[i]);
  }
  return v;
}

// The access of argv as given, or (CR_ACCESS_AUTO) as the server's command
// table classes it; a pipeline of shard groups refuses CR_ACCESS_AUTO.
cr_status AccessOf(net::Access *out, const cr_pipeline *p, cr_access access,
                   const std::vector<std::string_view> &argv, const char *fn) {
  if (RawEnum(access) != CR_ACCESS_AUTO) {
    *out = RawEnum(access) == CR_ACCESS_READ ? net::Access::kRead : net::Access::kWrite;
    return CR_OK;
  }
  cloudroute::Result<net::CommandRoute> route = p->p.Classify(argv);
  if (!route.ok()) {
    return Fail(cloudroute::Status(route.status().code(),
                                   std::string(fn) + ": " + route.status().message()));
  }
  *out = route->access;
  return CR_OK;
}

}  // namespace

extern "C" {

cr_status cr_pipeline_new(cr_pipeline **out, cr_client *c) {
  return Guard([&] { return PipelineNew(out, c, "cr_pipeline_new"); });
}

void cr_pipeline_free(cr_pipeline *p) { delete p; }

cr_status cr_pipeline_add(cr_pipeline *p, cr_access access, size_t key_index, size_t argc,
                          const void *const *argv, const size_t *argvlen) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_pipeline_add";
    if (cr_status s = CheckAdd(p, access, argc, argv, argvlen, fn); s != CR_OK) return s;
    if (key_index >= argc) {
      return Fail(CR_EINVAL, std::string(fn) + ": key_index " + std::to_string(key_index) +
                                 " is not below argc " + std::to_string(argc) +
                                 " (a keyless command needs cr_pipeline_add_node)");
    }
    if (RawEnum(access) == CR_ACCESS_AUTO) {
      return Check(p->p.AddAuto(key_index, Views(argc, argv, argvlen)));
    }
    net::Access a = net::Access::kWrite;
    std::vector<std::string_view> views = Views(argc, argv, argvlen);
    if (cr_status s = AccessOf(&a, p, access, views, fn); s != CR_OK) return s;
    p->p.Add(a, key_index, std::move(views));
    return CR_OK;
  });
}

cr_status cr_pipeline_add_node(cr_pipeline *p, cr_access access, const char *host, uint16_t port,
                               size_t argc, const void *const *argv, const size_t *argvlen) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_pipeline_add_node";
    if (cr_status s = CheckAdd(p, access, argc, argv, argvlen, fn); s != CR_OK) return s;
    if (cr_status s = NotNull(host, fn, "host"); s != CR_OK) return s;
    net::Access a = net::Access::kWrite;
    std::vector<std::string_view> views = Views(argc, argv, argvlen);
    if (cr_status s = AccessOf(&a, p, access, views, fn); s != CR_OK) return s;
    return Check(p->p.AddForNode(a, host, port, std::move(views)));
  });
}

size_t cr_pipeline_get_count(const cr_pipeline *p) { return p == nullptr ? 0 : p->p.size(); }

void cr_pipeline_clear(cr_pipeline *p) {
  if (p != nullptr) p->p.Clear();
}

cr_status cr_pipeline_execute(cr_reply **replies, cr_status *statuses, size_t cap, size_t *needed,
                              cr_pipeline *p) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_pipeline_execute";
    if (cr_status s = NotNull(p, fn, "pipeline"); s != CR_OK) return s;
    if (cr_status s = OutBuffer(replies, cap, needed, fn); s != CR_OK) return s;
    const size_t n = p->p.size();
    *needed = n;
    if (cap < n) return TooSmall(n, cap, fn, "replies");
    return JobResultsOut(replies, statuses, p->p.Execute(), fn);
  });
}

}  // extern "C"
