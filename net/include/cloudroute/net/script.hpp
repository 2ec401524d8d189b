// Script: a Lua script's body and its SHA1 (what EVALSHA names), so a call
// can send EVALSHA and, when a node answers NOSCRIPT (restarted, SCRIPT
// FLUSH, a replica promoted), load the body there and send it once more
// (CommandExecutor::ExecuteSlot with CallOptions::script).
//
// Thread-safety: immutable after construction.
#pragma once

#include <string>
#include <vector>

#include "cloudroute/net/connection.hpp"

namespace cloudroute {
namespace net {

class Script {
 public:
  explicit Script(std::string body);
  const std::string &body() const { return body_; }
  const std::string &sha() const { return sha_; }  // 40 lowercase hex digits

  // EVALSHA (EVALSHA_RO when read_only) sha numkeys keys… args….
  Args Command(bool read_only, const std::vector<std::string> &keys,
               const std::vector<std::string> &args) const;

 private:
  std::string body_;
  std::string sha_;
};

}  // namespace net
}  // namespace cloudroute
