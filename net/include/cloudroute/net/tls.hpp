// TLS (OpenSSL) under Connection: hiredis still formats commands and frames
// replies; the bytes between them and the socket go through a TlsSession.
//
// Cross-cloud traffic crosses networks nobody here owns, so verification is
// on by default and complete:
//  - the certificate chain is checked against a CA file and/or directory
//    (the system store when neither is given);
//  - the peer must match the name we dialed — an IP literal against the
//    certificate's IP SANs (X509_VERIFY_PARAM_set1_ip_asc), a host name
//    against its DNS SANs (X509_VERIFY_PARAM_set1_host, no partial
//    wildcards). OpenSSL checks the chain but not the name unless told to;
//    clients that only set SSL_VERIFY_PEER accept any CA-signed certificate
//    for any host. server_name overrides the name (e.g. connecting by IP to
//    a node whose certificate carries its DNS name);
//  - TLS 1.2 at least; SNI carries the name when it is not an IP literal.
// An optional client certificate and key answer servers that demand one
// (tls-auth-clients yes). verify = false disables peer checks entirely (for
// tests with self-made certificates only; never across networks).
//
// The socket I/O goes through a small BIO of our own that writes with
// MSG_NOSIGNAL — OpenSSL's socket BIO uses write(), which raises SIGPIPE in
// the host process when the peer has gone.
//
// Thread-safety: a TlsContext is immutable after Create() and safe to share
// between threads (each connection makes its own session from it); a
// TlsSession belongs to its Connection (one thread at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cloudroute/core/status.hpp"
#include "cloudroute/core/topology.hpp"

struct ssl_ctx_st;
struct ssl_st;

namespace cloudroute {
namespace net {

struct TlsOptions {
  std::string ca_file;      // PEM bundle of trusted CAs ("" = none)
  std::string ca_dir;       // OpenSSL hashed CA directory ("" = none)
  std::string cert_file;    // client certificate chain (PEM), with key_file
  std::string key_file;     // its private key (PEM, unencrypted)
  std::string server_name;  // "" = the host dialed; verified and sent as SNI
  bool verify = true;
};

class TlsContext {
 public:
  // Errors: kInvalid naming the file that could not be loaded and why
  // (OpenSSL's reason), kNoMemory.
  static Result<std::shared_ptr<const TlsContext>> Create(const TlsOptions &opts);
  ~TlsContext();
  TlsContext(const TlsContext &) = delete;
  TlsContext &operator=(const TlsContext &) = delete;

  const TlsOptions &options() const { return opts_; }
  ssl_ctx_st *native() const { return ctx_; }

 private:
  TlsContext() = default;
  ssl_ctx_st *ctx_ = nullptr;
  TlsOptions opts_;
};

class TlsSession {
 public:
  enum class Io { kOk, kWantRead, kWantWrite, kClosed, kError };

  // A client session on the connected socket fd (non-blocking), set up to
  // verify the peer as host (or the context's server_name). The handshake is
  // driven by Handshake(). REQUIRES: fd outlives the session.
  static Result<std::unique_ptr<TlsSession>> New(std::shared_ptr<const TlsContext> ctx, int fd,
                                                 const std::string &host);
  ~TlsSession();
  TlsSession(const TlsSession &) = delete;
  TlsSession &operator=(const TlsSession &) = delete;

  // One step of the handshake: kOk when done, kWantRead / kWantWrite to
  // wait on the socket, kClosed / kError with *why (for a refused
  // certificate: "certificate verification failed: <reason> (expected
  // <name>)").
  Io Handshake(std::string *why);
  // Like send()/recv() on a non-blocking socket. *n gets the bytes moved.
  Io Write(const void *buf, size_t len, size_t *n, std::string *why);
  Io Read(void *buf, size_t len, size_t *n, std::string *why);

  // The name the peer was verified against.
  const std::string &expected_name() const { return name_; }
  // "TLSv1.3", after the handshake.
  std::string protocol() const;

 private:
  TlsSession() = default;
  Io Classify(int rc, const char *op, std::string *why);
  Io ClassifyError(int rc, const char *op, std::string *why);

  std::shared_ptr<const TlsContext> ctx_;
  ssl_st *ssl_ = nullptr;
  std::string name_;
  bool handshake_done_ = false;
  bool read_any_ = false;  // application data received at least once
};

// A copy of topo whose nodes are dialed on their TLS ports: a node that
// reports a tls-port (CLUSTER SHARDS) gets it as its port. CLUSTER SLOTS
// asked over TLS of a tls-cluster already reports TLS ports (and no
// tls-port), so those nodes are left as they are. The copy keeps every
// node's identity consistent with the MOVED/ASK replies a TLS connection
// receives, which name TLS ports too.
std::shared_ptr<const Topology> WithTlsPorts(std::shared_ptr<const Topology> topo);

// True when text is an IPv4 or IPv6 literal.
bool IsIpLiteral(const std::string &text);

}  // namespace net
}  // namespace cloudroute
