// Reply helpers: conversion to core's RespValue and error prefixes.
#include "cloudroute/net/reply.hpp"

namespace cloudroute {
namespace net {

RespValue ToRespValue(const Reply &r) {
  RespValue v;
  v.type = r.type;
  v.integer = r.integer;
  v.str = r.str;
  v.elements.reserve(r.elements.size());
  for (const ReplyPtr &e : r.elements) v.elements.push_back(ToRespValue(*e));
  return v;
}

std::string ErrorPrefix(const Reply &r) {
  if (!r.is_error()) return std::string();
  const size_t sp = r.str.find(' ');
  return r.str.substr(0, sp);
}

}  // namespace net
}  // namespace cloudroute
