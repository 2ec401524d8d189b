// Status and Result<T>: how the core reports data errors — as values, never
// as exceptions. Codes mirror cr_status one to one, so the C API maps them
// without a table.
//
// Thread-safety: plain values.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace cloudroute {

enum class Code : int {
  kOk = 0,
  kInvalid = -1,
  kNoMemory = -2,
  kBufferTooSmall = -3,
  kParse = -4,
  kLimit = -5,
  kIncomplete = -6,
  kNoTopology = -7,
  kSlotUncovered = -8,
  kUnavailable = -9,
  kNotFound = -10,
  kInternal = -11,
  // Live-cluster outcomes (the net layer); the same numbers as cr_status.
  kConnError = -12,    // refused, reset, closed, name resolution
  kTimeout = -13,      // connect or command deadline passed
  kServerError = -14,  // the server answered with an error reply
};

class Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  // A kParse for an answer that is well formed but contradicts itself: a
  // topology with two masters for one shard, a slot claimed by two shards, a
  // node listed as master and as replica. A cluster's nodes answer so for a
  // moment while they disagree (during a failover), so asking again — or
  // another node — may get a consistent answer; a malformed answer is never
  // one of these.
  static Status Contradiction(std::string message) {
    Status s(Code::kParse, std::move(message));
    s.contradiction_ = true;
    return s;
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string &message() const { return message_; }
  bool contradiction() const { return contradiction_; }
  // This status with prefix put before its message (code and kind kept).
  Status Prefixed(const std::string &prefix) const {
    Status s = *this;
    s.message_ = prefix + message_;
    return s;
  }

 private:
  Code code_ = Code::kOk;
  std::string message_;
  bool contradiction_ = false;
};

inline Status Error(Code code, std::string message) { return Status(code, std::move(message)); }

// Either a value or a non-OK Status.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  // REQUIRES: ok()
  T &value() { return std::get<0>(v_); }
  const T &value() const { return std::get<0>(v_); }
  T &operator*() { return value(); }
  T *operator->() { return &value(); }
  // REQUIRES: !ok()
  const Status &status() const { return std::get<1>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace cloudroute
