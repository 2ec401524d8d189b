// Connection: one TCP connection to one Redis node, with deadlines.
//
// hiredis resolves and connects (with a connect timeout) and frames replies
// through the capped reader (reader.hpp); the connection owns the socket I/O
// itself: the socket is non-blocking and every send/recv waits in poll() for
// at most the time left before the command's deadline, writes use
// MSG_NOSIGNAL (a peer that went away never raises SIGPIPE in the host
// process), and TCP keepalive plus TCP_USER_TIMEOUT find dead peers whose
// packets vanish. After any I/O, protocol or limit error the connection is
// broken for good; the pool discards it.
//
// With ConnectOptions::tls set, the bytes go through a TLS session
// (tls.hpp) opened right after the TCP connect, its handshake bounded by
// connect_timeout_ms; a refused certificate is a kConnError naming the
// verification failure. hiredis still only frames replies.
//
// Credentials are sent in AUTH and never appear in a message or log.
//
// Thread-safety: one thread at a time (the pool hands a connection to one
// caller).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cloudroute/core/resp.hpp"
#include "cloudroute/core/status.hpp"
#include "cloudroute/net/reader.hpp"
#include "cloudroute/net/reply.hpp"

struct redisContext;

namespace cloudroute {
namespace net {

class TlsContext;
class TlsSession;

struct ConnectOptions {
  uint32_t connect_timeout_ms = 1000;
  uint32_t keepalive_idle_s = 15;         // TCP keepalive idle time; 0 = keepalive off
  uint32_t user_timeout_ms = 10000;       // TCP_USER_TIMEOUT; 0 = the kernel's default
  std::string username;                   // AUTH username ("" = the default user)
  std::string password;                   // "" = no AUTH
  std::string client_name;                // CLIENT SETNAME ("" = none)
  uint32_t db = 0;                        // SELECT db after AUTH (0 = none sent)
  bool readonly = false;                  // send READONLY (cluster replica reads)
  std::shared_ptr<const TlsContext> tls;  // nullptr = plaintext
  RespLimits limits = DefaultReplyLimits();
  // Shared by every connection of one client (reader.hpp); null = none. The
  // clients make one (ClientBudgetFor(limits)) when it is left null.
  std::shared_ptr<ReplyBudget> reply_budget;
};

// One command: its arguments, binary-safe.
using Args = std::vector<std::string>;

// "*N\r\n$len\r\narg\r\n…" appended to out: args is any sequence of
// std::string or std::string_view (Args, or views of a caller's arguments).
template <typename Seq>
void AppendCommand(const Seq &args, std::string *out) {
  out->append("*").append(std::to_string(args.size())).append("\r\n");
  for (const auto &a : args) {
    out->append("$").append(std::to_string(a.size())).append("\r\n");
    out->append(a.data(), a.size()).append("\r\n");
  }
}

class Connection {
 public:
  // Connects and runs the handshake (AUTH, SELECT, CLIENT SETNAME, READONLY)
  // in one round trip, each bounded by timeout_ms. Errors: kConnError (also
  // a failed TLS handshake or a refused certificate), kTimeout, kServerError
  // (AUTH or SELECT refused: the server's reply in the message), kLimit.
  static Result<std::unique_ptr<Connection>> Open(const std::string &host, uint16_t port,
                                                  const ConnectOptions &opts, uint32_t timeout_ms);
  ~Connection();
  Connection(const Connection &) = delete;
  Connection &operator=(const Connection &) = delete;

  // Sends all commands in one write, then reads one reply per command, all
  // before now + timeout_ms. A server error is a reply (type kError), not a
  // failed Status. A failed Status (kConnError, kTimeout, kLimit, kParse)
  // breaks the connection; replies received before the failure are kept in
  // *replies — except when more bytes than the replies asked for are found
  // right after the last one: then the connection is poisoned and *replies
  // is emptied (any of them may belong to another request).
  Status Pipeline(const std::vector<const Args *> &cmds, uint32_t timeout_ms,
                  std::vector<ReplyPtr> *replies);
  Result<ReplyPtr> Command(const Args &args, uint32_t timeout_ms);

  // The two halves of Pipeline, for callers that keep requests in flight on
  // several connections at once (multi-key fan-out): Send() writes every
  // command, Receive() reads n replies, both before the deadline
  // (SteadyNowNs() clock). Failures break the connection as above.
  Status Send(const std::vector<const Args *> &cmds, int64_t deadline_ns);
  Status Receive(size_t n, int64_t deadline_ns, std::vector<ReplyPtr> *replies);
  // Send() of commands the caller already encoded (AppendCommand).
  Status SendBytes(const std::string &wire, int64_t deadline_ns);

  // The non-blocking halves, for a connection an engine thread multiplexes
  // (shared_link.hpp): TrySend() writes what the socket takes now (*written
  // bytes of n); TryReceive() frames one reply from what is buffered or
  // readable now, leaving *out null when no whole reply is there yet. A
  // failure (kConnError, kLimit, kParse) breaks the connection as the
  // blocking calls do.
  Status TrySend(const char *p, size_t n, size_t *written);
  Status TryReceive(ReplyPtr *out);

  // For a subscribed connection (pub/sub pushes arrive unasked): waits for
  // one push until the deadline. *out stays null when none completed in
  // time — unlike a command, that is not an error and the connection stays
  // usable (a partly received push is completed by the next call).
  Status WaitPush(int64_t deadline_ns, ReplyPtr *out);

  // Replies and requests stopped matching on this connection (an
  // unsolicited reply, a reply of a shape its command cannot produce): it is
  // broken for good, and counted apart from other failures. Returns the
  // failure to hand every request that was in flight on it (kParse, naming
  // the node and why).
  Status Poison(const std::string &why);
  // After the last reply a request asked for (Receive does it itself):
  // anything more already buffered or on the socket poisons the connection
  // (more replies than commands) and the status says so.
  Status EndOfReplies(size_t n_read);
  // Whether the connection may be handed to its next user: nothing is
  // buffered or waiting on the socket (checked with one non-blocking read).
  // An idle connection that received bytes nobody asked for, or that the
  // server closed, is broken here (poisoned for bytes) and the status says
  // why.
  Status CheckIdle();

  bool broken() const { return broken_; }
  bool poisoned() const { return poisoned_; }
  // What Poison() returned (OK when not poisoned).
  const Status &poison_status() const { return poison_status_; }
  const std::string &address() const { return address_; }
  int fd() const;
  int64_t last_used_ns = 0;  // maintained by the pool

 private:
  Connection() = default;
  Status Fail(Code code, const std::string &what);
  Status SendAll(const std::string &bytes, int64_t deadline_ns);
  // idle_ok: the deadline passing leaves *out null and the connection usable.
  Status ReadReply(int64_t deadline_ns, ReplyPtr *out, bool idle_ok = false);
  // Bytes the reader holds but has not framed, plus what one non-blocking
  // read finds on the socket (fed to the reader). *closed: the server
  // closed the connection (or it failed).
  size_t Unexpected(bool *closed);
  Status StartTls(const std::shared_ptr<const TlsContext> &tls, const std::string &host,
                  int64_t deadline_ns);
  // send()/recv() through TLS when it is on: >= 0 bytes, -1 with errno set
  // (EAGAIN: wait for *want; EPROTO: TLS error in tls_error_).
  ssize_t RawSend(const char *p, size_t n, short *want);
  ssize_t RawRecv(char *p, size_t n, short *want);

  redisContext *ctx_ = nullptr;
  std::unique_ptr<TlsSession> tls_;  // freed before ctx_ (the socket): see ~Connection
  std::string tls_error_;
  ReaderState state_;
  std::string address_;
  bool broken_ = false;
  bool poisoned_ = false;
  Status poison_status_;
};

}  // namespace net
}  // namespace cloudroute
