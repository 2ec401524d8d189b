// Connection: hiredis connects and frames; we own the socket I/O and its
// deadlines (see connection.hpp).
#include "cloudroute/net/connection.hpp"

#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "cloudroute/core/health.hpp"
#include "cloudroute/core/topology.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"
#include "cloudroute/net/interrupt.hpp"
#include "cloudroute/net/tls.hpp"

namespace cloudroute {
namespace net {

namespace {

// Waits until fd is ready for events or the deadline passes. 1 ready,
// 0 deadline passed, -1 error (errno; ECANCELED: the thread's interrupt
// check asked to stop, interrupt.hpp). With a check set the wait sleeps in
// slices and asks it between them.
int WaitFd(int fd, short events, int64_t deadline_ns) {
  const bool checked = HasInterruptCheck();
  for (;;) {
    uint32_t ms = MsLeft(deadline_ns);
    if (ms == 0) return 0;
    if (checked) ms = std::min(ms, kInterruptSliceMs);
    pollfd p{fd, events, 0};
    const int rc = poll(&p, 1, static_cast<int>(std::min<uint32_t>(ms, INT_MAX)));
    if (rc > 0) return 1;
    if (rc < 0 && errno != EINTR) return -1;
    // A slice or the deadline passed (poll may round down), or a signal
    // came: the check may want the caller back.
    if (checked && InterruptAsked()) {
      errno = ECANCELED;
      return -1;
    }
  }
}

// What a failed WaitFd says.
std::string WaitError() {
  if (errno == ECANCELED) {
    return "interrupted by the caller while waiting (the connection is closed; a command "
           "already sent may have run)";
  }
  return std::string("poll: ") + std::strerror(errno);
}

void SetSockOpt(int fd, int level, int name, int value) {
  // Best effort: a kernel without the option still gets the others.
  (void)setsockopt(fd, level, name, &value, sizeof value);
}

// One TLS read or write as recv(2) / send(2) report theirs: the bytes moved,
// 0 when a read finds the session closed, or -1 with errno EAGAIN (and in
// *want the poll event the session waits for) or EPROTO (a TLS error, or a
// write to a closed session).
ssize_t AsSocketResult(TlsSession::Io io, size_t moved, bool reading, short *want) {
  switch (io) {
    case TlsSession::Io::kOk:
      return static_cast<ssize_t>(moved);
    case TlsSession::Io::kClosed:
      if (reading) return 0;
      break;
    case TlsSession::Io::kWantRead:
      *want = POLLIN;
      errno = EAGAIN;
      return -1;
    case TlsSession::Io::kWantWrite:
      *want = POLLOUT;
      errno = EAGAIN;
      return -1;
    case TlsSession::Io::kError:
      break;
  }
  errno = EPROTO;
  return -1;
}

}  // namespace

Result<std::unique_ptr<Connection>> Connection::Open(const std::string &host, uint16_t port,
                                                     const ConnectOptions &opts,
                                                     uint32_t timeout_ms) {
  const std::string address = FormatAddress(host, port);
  timeval tv{};
  tv.tv_sec = opts.connect_timeout_ms / 1000;
  tv.tv_usec = static_cast<suseconds_t>((opts.connect_timeout_ms % 1000) * 1000);
  errno = 0;
  redisContext *c = redisConnectWithTimeout(host.c_str(), port, tv);
  const int saved_errno = errno;
  if (c == nullptr) return Error(Code::kNoMemory, address + ": out of memory");
  if (c->err != 0) {
    const std::string why = c->errstr;
    redisFree(c);
    const bool timed_out = saved_errno == ETIMEDOUT || why.find("timed out") != std::string::npos;
    return Error(
        timed_out ? kTimeout : kConnError,
        address + ": connect " +
            (timed_out ? "timed out after " + std::to_string(opts.connect_timeout_ms) + " ms"
                       : "failed: " + why));
  }
  std::unique_ptr<Connection> conn(new Connection());
  conn->ctx_ = c;
  conn->address_ = address;
  conn->state_.limits = opts.limits;
  conn->state_.budget = opts.reply_budget;
  redisReader *capped = NewCappedReader(&conn->state_);
  if (capped == nullptr) return Error(Code::kNoMemory, address + ": out of memory");
  redisReaderFree(c->reader);
  c->reader = capped;

  const int fd = c->fd;
  const int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    return Error(kConnError, address + ": cannot make the socket non-blocking");
  }
  SetSockOpt(fd, IPPROTO_TCP, TCP_NODELAY, 1);
  if (opts.keepalive_idle_s > 0) {
    SetSockOpt(fd, SOL_SOCKET, SO_KEEPALIVE, 1);
    SetSockOpt(fd, IPPROTO_TCP, TCP_KEEPIDLE, static_cast<int>(opts.keepalive_idle_s));
    const int interval =
        opts.keepalive_idle_s >= 3 ? static_cast<int>(opts.keepalive_idle_s / 3) : 1;
    SetSockOpt(fd, IPPROTO_TCP, TCP_KEEPINTVL, interval);
    SetSockOpt(fd, IPPROTO_TCP, TCP_KEEPCNT, 3);
  }
#ifdef TCP_USER_TIMEOUT
  if (opts.user_timeout_ms > 0) {
    SetSockOpt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, static_cast<int>(opts.user_timeout_ms));
  }
#endif

  if (opts.tls != nullptr) {
    Status s = conn->StartTls(opts.tls, host, DeadlineAfter(opts.connect_timeout_ms));
    if (!s.ok()) return s;
  }

  // The handshake, in one round trip.
  Args auth, select, setname, readonly;
  std::vector<const Args *> cmds;
  if (!opts.password.empty()) {
    auth = opts.username.empty() ? Args{"AUTH", opts.password}
                                 : Args{"AUTH", opts.username, opts.password};
    cmds.push_back(&auth);
  }
  if (opts.db != 0) {
    select = Args{"SELECT", std::to_string(opts.db)};
    cmds.push_back(&select);
  }
  if (!opts.client_name.empty()) {
    setname = Args{"CLIENT", "SETNAME", opts.client_name};
    cmds.push_back(&setname);
  }
  if (opts.readonly) {
    readonly = Args{"READONLY"};
    cmds.push_back(&readonly);
  }
  if (!cmds.empty()) {
    std::vector<ReplyPtr> replies;
    Status s = conn->Pipeline(cmds, timeout_ms, &replies);
    if (!s.ok()) return s;
    for (size_t i = 0; i < cmds.size(); ++i) {
      if (!replies[i]->is_error() || cmds[i] == &readonly) continue;  // READONLY: best effort
      // The server's text never echoes the password.
      const std::string what = cmds[i] == &auth     ? std::string("AUTH")
                               : cmds[i] == &select ? "SELECT " + select[1]
                                                    : std::string("CLIENT SETNAME");
      return Error(kServerError, address + ": " + what + " refused: " + replies[i]->str);
    }
  }
  return conn;
}

Connection::~Connection() {
  tls_.reset();  // its close_notify goes out on the socket redisFree closes
  if (ctx_ != nullptr) redisFree(ctx_);
}

Status Connection::StartTls(const std::shared_ptr<const TlsContext> &tls, const std::string &host,
                            int64_t deadline_ns) {
  auto session = TlsSession::New(tls, ctx_->fd, host);
  if (!session.ok()) return Fail(session.status().code(), session.status().message());
  tls_ = std::move(*session);
  std::string why;
  for (;;) {
    const TlsSession::Io io = tls_->Handshake(&why);
    if (io == TlsSession::Io::kOk) return Status::Ok();
    if (io == TlsSession::Io::kClosed || io == TlsSession::Io::kError) {
      return Fail(kConnError, why);
    }
    const int w = WaitFd(ctx_->fd, io == TlsSession::Io::kWantRead ? POLLIN : POLLOUT, deadline_ns);
    if (w == 0) return Fail(kTimeout, "TLS handshake timed out (is the port a TLS port?)");
    if (w < 0) return Fail(kConnError, WaitError());
  }
}

ssize_t Connection::RawSend(const char *p, size_t n, short *want) {
  *want = POLLOUT;
  if (tls_ == nullptr) return send(ctx_->fd, p, n, MSG_NOSIGNAL);
  size_t done = 0;
  const TlsSession::Io io = tls_->Write(p, n, &done, &tls_error_);
  return AsSocketResult(io, done, /*reading=*/false, want);
}

ssize_t Connection::RawRecv(char *p, size_t n, short *want) {
  *want = POLLIN;
  if (tls_ == nullptr) return recv(ctx_->fd, p, n, 0);
  size_t got = 0;
  const TlsSession::Io io = tls_->Read(p, n, &got, &tls_error_);
  return AsSocketResult(io, got, /*reading=*/true, want);
}

int Connection::fd() const { return ctx_->fd; }

Status Connection::Fail(Code code, const std::string &what) {
  broken_ = true;
  return Error(code, address_ + ": " + what);
}

Status Connection::SendAll(const std::string &bytes, int64_t deadline_ns) {
  size_t off = 0;
  while (off < bytes.size()) {
    short want = POLLOUT;
    const ssize_t n = RawSend(bytes.data() + off, bytes.size() - off, &want);
    if (n > 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      const int w = WaitFd(ctx_->fd, want, deadline_ns);
      if (w == 0) return Fail(kTimeout, "send timed out");
      if (w < 0) return Fail(kConnError, WaitError());
      continue;
    }
    if (n < 0 && errno == EPROTO && tls_ != nullptr) return Fail(kConnError, tls_error_);
    return Fail(kConnError, std::string("send: ") + std::strerror(errno));
  }
  return Status::Ok();
}

Status Connection::ReadReply(int64_t deadline_ns, ReplyPtr *out, bool idle_ok) {
  char buf[16384];
  for (;;) {
    void *reply = nullptr;
    if (redisReaderGetReply(ctx_->reader, &reply) != REDIS_OK) {
      if (!state_.limit_error.empty())
        return Fail(Code::kLimit, "reply refused: " + state_.limit_error);
      return Fail(Code::kParse, std::string("protocol error: ") + ctx_->reader->errstr);
    }
    if (reply != nullptr) {
      out->reset(static_cast<Reply *>(reply));
      ShrinkIdleReader(&ctx_->reader, &state_);
      state_.Reset();
      return Status::Ok();
    }
    if (BufferedOverCap(ctx_->reader, state_)) {
      return Fail(Code::kLimit, "reply refused: a string longer than the cap of " +
                                    std::to_string(state_.limits.max_bulk_len) +
                                    " bytes is arriving");
    }
    short want = POLLIN;
    const ssize_t n = RawRecv(buf, sizeof buf, &want);
    if (n > 0) {
      if (redisReaderFeed(ctx_->reader, buf, static_cast<size_t>(n)) != REDIS_OK) {
        return Fail(Code::kNoMemory, "out of memory buffering a reply");
      }
      if (!state_.NoteBuffer(ctx_->reader)) {
        return Fail(Code::kLimit, "reply refused: " + state_.limit_error);
      }
      continue;
    }
    if (n == 0) {
      return Fail(kConnError, tls_ != nullptr && !tls_error_.empty()
                                  ? tls_error_
                                  : "connection closed by the server");
    }
    if (errno == EINTR) continue;
    if (errno == EPROTO && tls_ != nullptr) return Fail(kConnError, tls_error_);
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      const int w = WaitFd(ctx_->fd, want, deadline_ns);
      if (w == 0 && idle_ok) return Status::Ok();
      if (w == 0) return Fail(kTimeout, "no reply before the deadline");
      if (w < 0) return Fail(kConnError, WaitError());
      continue;
    }
    return Fail(errno == ETIMEDOUT ? kTimeout : kConnError,
                std::string("recv: ") + std::strerror(errno));
  }
}

Status Connection::TrySend(const char *p, size_t n, size_t *written) {
  *written = 0;
  if (broken_) return Error(kConnError, address_ + ": connection is broken");
  while (*written < n) {
    short want = POLLOUT;
    const ssize_t k = RawSend(p + *written, n - *written, &want);
    if (k > 0) {
      *written += static_cast<size_t>(k);
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Status::Ok();
    if (k < 0 && errno == EPROTO && tls_ != nullptr) return Fail(kConnError, tls_error_);
    return Fail(kConnError, std::string("send: ") + std::strerror(errno));
  }
  return Status::Ok();
}

Status Connection::TryReceive(ReplyPtr *out) {
  out->reset();
  if (broken_) return Error(kConnError, address_ + ": connection is broken");
  // A deadline already passed: frame what is there, wait for nothing.
  return ReadReply(/*deadline_ns=*/0, out, /*idle_ok=*/true);
}

Status Connection::Send(const std::vector<const Args *> &cmds, int64_t deadline_ns) {
  std::string bytes;
  for (const Args *a : cmds) AppendCommand(*a, &bytes);
  return SendBytes(bytes, deadline_ns);
}

Status Connection::SendBytes(const std::string &wire, int64_t deadline_ns) {
  if (broken_) return Error(kConnError, address_ + ": connection is broken");
  return SendAll(wire, deadline_ns);
}

Status Connection::Receive(size_t n, int64_t deadline_ns, std::vector<ReplyPtr> *replies) {
  if (broken_) return Error(kConnError, address_ + ": connection is broken");
  replies->clear();
  replies->reserve(n);
  for (size_t i = 0; i < n; ++i) {
    ReplyPtr r;
    Status s = ReadReply(deadline_ns, &r);
    if (!s.ok()) return s;
    replies->push_back(std::move(r));
  }
  Status s = EndOfReplies(n);
  if (!s.ok()) replies->clear();  // any of them may be another request's
  return s;
}

Status Connection::EndOfReplies(size_t n_read) {
  // Every reply asked for is read: anything more means the stream no longer
  // matches the requests.
  bool closed = false;
  const size_t extra = Unexpected(&closed);
  if (extra > 0) {
    return Poison(std::to_string(extra) + " bytes arrived after the last of " +
                  std::to_string(n_read) + " replies (more replies than commands)");
  }
  if (closed) broken_ = true;  // the replies stand; the connection is not pooled
  return Status::Ok();
}

size_t Connection::Unexpected(bool *closed) {
  *closed = false;
  const redisReader *r = ctx_->reader;
  size_t extra = r->len > r->pos ? r->len - r->pos : 0;
  if (r->ridx >= 0 && extra == 0) extra = 1;  // a reply half framed
  char buf[4096];
  short want = POLLIN;
  const ssize_t n = RawRecv(buf, sizeof buf, &want);
  if (n > 0) {
    extra += static_cast<size_t>(n);
    if (redisReaderFeed(ctx_->reader, buf, static_cast<size_t>(n)) != REDIS_OK) *closed = true;
  } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
    *closed = true;  // closed by the server, or failed: not usable either way
  }
  return extra;
}

Status Connection::Poison(const std::string &why) {
  poisoned_ = true;
  poison_status_ = Fail(Code::kParse, "replies no longer match requests: " + why +
                                          "; the connection is closed and nothing read on it is "
                                          "trusted");
  return poison_status_;
}

Status Connection::CheckIdle() {
  if (broken_) return Error(kConnError, address_ + ": connection is broken");
  bool closed = false;
  const size_t extra = Unexpected(&closed);
  if (extra > 0) {
    return Poison(std::to_string(extra) + " bytes arrived on an idle connection (a reply nobody " +
                  "asked for)");
  }
  if (closed) return Fail(kConnError, "closed while idle");
  return Status::Ok();
}

Status Connection::WaitPush(int64_t deadline_ns, ReplyPtr *out) {
  out->reset();
  if (broken_) return Error(kConnError, address_ + ": connection is broken");
  return ReadReply(deadline_ns, out, /*idle_ok=*/true);
}

Status Connection::Pipeline(const std::vector<const Args *> &cmds, uint32_t timeout_ms,
                            std::vector<ReplyPtr> *replies) {
  const int64_t deadline = DeadlineAfter(timeout_ms);
  replies->clear();
  Status s = Send(cmds, deadline);
  if (!s.ok()) return s;
  return Receive(cmds.size(), deadline, replies);
}

Result<ReplyPtr> Connection::Command(const Args &args, uint32_t timeout_ms) {
  std::vector<ReplyPtr> replies;
  Status s = Pipeline({&args}, timeout_ms, &replies);
  if (!s.ok()) return s;
  return std::move(replies[0]);
}

}  // namespace net
}  // namespace cloudroute
