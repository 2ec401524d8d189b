// C API: pipelines submitted without waiting (cr_pipeline_submit) on the
// client's asynchronous fan-out (net/async_calls.hpp), and the results both
// the blocking and the submitted pipeline hand out.
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cloudroute/net/pipeline.hpp"
#include "live.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary
namespace net = cloudroute::net;

namespace {

// What a submitted pipeline owns until its completion: a copy of every
// argument (the queue's are the caller's, borrowed only until the submit
// returns), which the jobs view, and the nodes cr_pipeline_add_node named.
struct Submitted {
  std::string bytes;
  cloudroute::NodePins pins;
};

// Points the jobs' arguments into s->bytes, a copy made here.
void CopyArguments(std::vector<net::Job> *jobs, Submitted *s) {
  size_t total = 0;
  for (const net::Job &j : *jobs) {
    for (std::string_view a : j.argv) total += a.size();
  }
  s->bytes.reserve(total);  // never reallocated below: the views stay valid
  for (net::Job &j : *jobs) {
    for (std::string_view &a : j.argv) {
      const size_t at = s->bytes.size();
      s->bytes.append(a.data(), a.size());
      a = std::string_view(s->bytes.data() + at, a.size());
    }
  }
}

}  // namespace

cr_status cloudroute::capi::JobResultsOut(cr_reply **replies, cr_status *statuses,
                                          const std::vector<net::Job> &jobs, const char *fn) {
  const size_t n = jobs.size();
  ResultsOut(
      replies, statuses, n, [&](size_t i) { return jobs[i].reply.get(); },
      [&](size_t i) -> const cloudroute::Status & { return jobs[i].status; });
  for (size_t i = 0; i < n; ++i) {
    const cloudroute::Status &st = jobs[i].status;
    if (!st.ok()) {
      return Fail(static_cast<cr_status>(st.code()),
                  std::string(fn) + ": command " + std::to_string(i) + " of " + std::to_string(n) +
                      " failed: " + st.message());
    }
  }
  return CR_OK;
}

extern "C" {

cr_status cr_pipeline_submit(cr_pipeline *p, cr_pipeline_completion_fn done, void *ud) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_pipeline_submit";
    if (cr_status s = NotNull(p, fn, "pipeline"); s != CR_OK) return s;
    if (done == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": done is NULL");
    net::Client *client = p->p.client();
    if (client == nullptr) {
      return Fail(CR_EINVAL, std::string(fn) +
                                 ": a pipeline of shard groups runs with cr_pipeline_execute "
                                 "(only the cluster client submits)");
    }
    if (p->p.size() == 0) return Fail(CR_EINVAL, std::string(fn) + ": the pipeline is empty");
    auto owned = std::make_shared<Submitted>();
    std::vector<net::Job> jobs = p->p.Take(&owned->pins);
    CopyArguments(&jobs, owned.get());
    const size_t n = jobs.size();
    cloudroute::Status s =
        client->SubmitJobs(std::move(jobs), [done, ud, owned, n](std::vector<net::Job> &settled) {
          std::vector<cr_reply *> replies(n, nullptr);
          std::vector<cr_status> statuses(n, CR_OK);
          const cr_status st = Guard([&] {
            return JobResultsOut(replies.data(), statuses.data(), settled, "cr_pipeline_submit");
          });
          done(ud, st, n, replies.data(), statuses.data());
        });
    return Check(s);
  });
}

}  // extern "C"
