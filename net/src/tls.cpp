// TLS over OpenSSL (see tls.hpp).
#include "cloudroute/net/tls.hpp"

#include <arpa/inet.h>
#include <errno.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include <cstdint>
#include <cstring>
#include <mutex>

#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

namespace {

// OpenSSL's reasons for the errors queued on this thread, oldest first,
// "; "-joined; clears the queue.
std::string DrainErrors() {
  std::string out;
  unsigned long e;
  while ((e = ERR_get_error()) != 0) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? std::string("no OpenSSL error queued") : out;
}

// ---- the socket BIO: send(MSG_NOSIGNAL) / recv on a non-blocking fd.

int FdOf(BIO *b) { return static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(b))); }

int BioWrite(BIO *b, const char *buf, int len) {
  BIO_clear_retry_flags(b);
  for (;;) {
    const ssize_t n = send(FdOf(b), buf, static_cast<size_t>(len), MSG_NOSIGNAL);
    if (n >= 0) return static_cast<int>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_write(b);
    return -1;
  }
}

int BioRead(BIO *b, char *buf, int len) {
  BIO_clear_retry_flags(b);
  for (;;) {
    const ssize_t n = recv(FdOf(b), buf, static_cast<size_t>(len), 0);
    if (n >= 0) return static_cast<int>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_read(b);
    return -1;
  }
}

int BioPuts(BIO *b, const char *s) { return BioWrite(b, s, static_cast<int>(std::strlen(s))); }

long BioCtrl(BIO *, int cmd, long, void *) {
  // Only FLUSH matters (writes are unbuffered); everything else is unsupported.
  return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

int BioCreate(BIO *b) {
  BIO_set_init(b, 1);
  return 1;
}

int BioDestroy(BIO *) { return 1; }  // the fd belongs to the connection

// One method table for the process; OpenSSL keeps a pointer to it in every
// BIO, so it is never freed.
BIO_METHOD *SocketMethod() {
  static BIO_METHOD *method = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "cloudroute socket");
    if (m == nullptr) return;
    BIO_meth_set_write(m, BioWrite);
    BIO_meth_set_read(m, BioRead);
    BIO_meth_set_puts(m, BioPuts);
    BIO_meth_set_ctrl(m, BioCtrl);
    BIO_meth_set_create(m, BioCreate);
    BIO_meth_set_destroy(m, BioDestroy);
    method = m;
  });
  return method;
}

}  // namespace

bool IsIpLiteral(const std::string &text) {
  unsigned char buf[16];
  return inet_pton(AF_INET, text.c_str(), buf) == 1 || inet_pton(AF_INET6, text.c_str(), buf) == 1;
}

// ------------------------------------------------------------------ TlsContext

Result<std::shared_ptr<const TlsContext>> TlsContext::Create(const TlsOptions &opts) {
  if (opts.cert_file.empty() != opts.key_file.empty()) {
    return Error(Code::kInvalid, "TLS: a client certificate needs both cert_file and key_file");
  }
  ERR_clear_error();
  std::shared_ptr<TlsContext> c(new TlsContext());
  c->opts_ = opts;
  c->ctx_ = SSL_CTX_new(TLS_client_method());
  if (c->ctx_ == nullptr)
    return Error(Code::kNoMemory, "TLS: SSL_CTX_new failed: " + DrainErrors());
  SSL_CTX *ctx = c->ctx_;
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) {
    return Error(Code::kInternal, "TLS: cannot require TLS 1.2: " + DrainErrors());
  }
  // Partial writes and a moving buffer: SendAll retries with what is left.
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);

  if (!opts.ca_file.empty() || !opts.ca_dir.empty()) {
    const char *file = opts.ca_file.empty() ? nullptr : opts.ca_file.c_str();
    const char *dir = opts.ca_dir.empty() ? nullptr : opts.ca_dir.c_str();
    if (SSL_CTX_load_verify_locations(ctx, file, dir) != 1) {
      return Error(Code::kInvalid,
                   "TLS: cannot load the CA " +
                       (file ? "file '" + opts.ca_file + "'" : "directory '" + opts.ca_dir + "'") +
                       ": " + DrainErrors());
    }
  } else if (opts.verify && SSL_CTX_set_default_verify_paths(ctx) != 1) {
    return Error(Code::kInvalid, "TLS: cannot load the system CA store: " + DrainErrors());
  }
  if (!opts.cert_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(ctx, opts.cert_file.c_str()) != 1) {
      return Error(Code::kInvalid, "TLS: cannot load the client certificate '" + opts.cert_file +
                                       "': " + DrainErrors());
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, opts.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
      return Error(Code::kInvalid,
                   "TLS: cannot load the client key '" + opts.key_file + "': " + DrainErrors());
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
      return Error(Code::kInvalid, "TLS: the key '" + opts.key_file +
                                       "' does not match the certificate '" + opts.cert_file + "'");
    }
  }
  SSL_CTX_set_verify(ctx, opts.verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);
  return std::shared_ptr<const TlsContext>(std::move(c));
}

TlsContext::~TlsContext() {
  if (ctx_ != nullptr) SSL_CTX_free(ctx_);
}

// ------------------------------------------------------------------ TlsSession

Result<std::unique_ptr<TlsSession>> TlsSession::New(std::shared_ptr<const TlsContext> ctx, int fd,
                                                    const std::string &host) {
  ERR_clear_error();
  BIO_METHOD *method = SocketMethod();
  if (method == nullptr) return Error(Code::kNoMemory, "TLS: cannot create the socket BIO method");
  std::unique_ptr<TlsSession> s(new TlsSession());
  s->ctx_ = std::move(ctx);
  const TlsOptions &o = s->ctx_->options();
  s->name_ = o.server_name.empty() ? host : o.server_name;
  s->ssl_ = SSL_new(s->ctx_->native());
  if (s->ssl_ == nullptr) return Error(Code::kNoMemory, "TLS: SSL_new failed: " + DrainErrors());
  BIO *bio = BIO_new(method);
  if (bio == nullptr) return Error(Code::kNoMemory, "TLS: BIO_new failed: " + DrainErrors());
  BIO_set_data(bio, reinterpret_cast<void *>(static_cast<intptr_t>(fd)));
  SSL_set_bio(s->ssl_, bio, bio);  // the SSL owns the BIO from here
  SSL_set_connect_state(s->ssl_);

  const bool ip = IsIpLiteral(s->name_);
  if (!ip && !s->name_.empty() && SSL_set_tlsext_host_name(s->ssl_, s->name_.c_str()) != 1) {
    return Error(Code::kInvalid, "TLS: bad server name '" + s->name_ + "': " + DrainErrors());
  }
  if (o.verify) {
    X509_VERIFY_PARAM *param = SSL_get0_param(s->ssl_);
    int ok;
    if (ip) {
      ok = X509_VERIFY_PARAM_set1_ip_asc(param, s->name_.c_str());
    } else {
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      ok = X509_VERIFY_PARAM_set1_host(param, s->name_.c_str(), s->name_.size());
    }
    if (ok != 1) {
      return Error(Code::kInvalid,
                   "TLS: cannot verify against the name '" + s->name_ + "': " + DrainErrors());
    }
  }
  return s;
}

TlsSession::~TlsSession() {
  if (ssl_ == nullptr) return;
  // Best effort close_notify; the socket is non-blocking, so this never waits.
  if (handshake_done_) {
    ERR_clear_error();
    (void)SSL_shutdown(ssl_);
  }
  SSL_free(ssl_);
  ERR_clear_error();
}

std::string TlsSession::protocol() const { return SSL_get_version(ssl_); }

TlsSession::Io TlsSession::Classify(int rc, const char *op, std::string *why) {
  const Io io = ClassifyError(rc, op, why);
  // A server with tls-auth-clients yes completes the handshake (TLS 1.3) and
  // then drops a client without a certificate: say so.
  if ((io == Io::kClosed || io == Io::kError) && handshake_done_ && !read_any_ &&
      ctx_->options().cert_file.empty()) {
    *why += " (does the server require a client certificate? set the TLS cert and key files)";
  }
  return io;
}

TlsSession::Io TlsSession::ClassifyError(int rc, const char *op, std::string *why) {
  const int err = SSL_get_error(ssl_, rc);
  switch (err) {
    case SSL_ERROR_WANT_READ:
      return Io::kWantRead;
    case SSL_ERROR_WANT_WRITE:
      return Io::kWantWrite;
    case SSL_ERROR_ZERO_RETURN:
      *why = "connection closed by the server (TLS close_notify)";
      return Io::kClosed;
    case SSL_ERROR_SYSCALL: {
      const int e = errno;
      const unsigned long q = ERR_peek_error();
      if (q == 0 && (rc == 0 || e == 0)) {
        *why = std::string("connection closed by the server during TLS ") + op;
        return Io::kClosed;
      }
      *why = std::string("TLS ") + op + ": " + (q != 0 ? DrainErrors() : std::strerror(e));
      return Io::kError;
    }
    default:
      break;
  }
  if (!handshake_done_) {
    const long v = SSL_get_verify_result(ssl_);
    if (v != X509_V_OK) {
      ERR_clear_error();
      *why = std::string("TLS certificate verification failed: ") +
             X509_verify_cert_error_string(v) + " (expected " + name_ + ")";
      return Io::kError;
    }
  }
  if (ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
    ERR_clear_error();
    *why = std::string("connection closed by the server during TLS ") + op + " (no close_notify)";
    return Io::kClosed;
  }
  *why = std::string("TLS ") + op + " failed: " + DrainErrors();
  return Io::kError;
}

TlsSession::Io TlsSession::Handshake(std::string *why) {
  ERR_clear_error();
  const int rc = SSL_do_handshake(ssl_);
  if (rc == 1) {
    handshake_done_ = true;
    return Io::kOk;
  }
  return Classify(rc, "handshake", why);
}

TlsSession::Io TlsSession::Write(const void *buf, size_t len, size_t *n, std::string *why) {
  *n = 0;
  ERR_clear_error();
  const int rc = SSL_write_ex(ssl_, buf, len, n);
  if (rc == 1) return Io::kOk;
  return Classify(rc, "write", why);
}

TlsSession::Io TlsSession::Read(void *buf, size_t len, size_t *n, std::string *why) {
  *n = 0;
  ERR_clear_error();
  const int rc = SSL_read_ex(ssl_, buf, len, n);
  if (rc == 1) {
    read_any_ = true;
    return Io::kOk;
  }
  return Classify(rc, "read", why);
}

// ------------------------------------------------------------------ topology

std::shared_ptr<const Topology> WithTlsPorts(std::shared_ptr<const Topology> topo) {
  if (topo == nullptr) return topo;
  bool any = false;
  for (const TopoNode &n : topo->nodes) any = any || (n.tls_port != 0 && n.tls_port != n.port);
  if (!any) return topo;
  auto copy = std::make_shared<Topology>(*topo);
  for (TopoNode &n : copy->nodes) {
    if (n.tls_port != 0) n.port = n.tls_port;
  }
  return copy;
}

}  // namespace net
}  // namespace cloudroute
