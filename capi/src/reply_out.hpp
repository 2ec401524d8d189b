// Internal to capi/: hands a net reply to the caller as a cr_reply (the
// struct is private to client.cpp; every client section shares it).
#pragma once

#include "api.hpp"
#include "cloudroute/net/reply.hpp"

namespace cloudroute {
namespace capi {

// *out gets the converted reply on success; a failed r is recorded with
// Fail() and its status returned. REQUIRES: out != NULL.
cr_status ReplyOutFrom(cr_reply **out, Result<net::ReplyPtr> r);

}  // namespace capi
}  // namespace cloudroute
