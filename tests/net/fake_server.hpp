// A tiny scripted TCP server on 127.0.0.1 for net-layer tests: for each
// accepted connection it reads a request, then writes the script's bytes
// (optionally followed by `filler` repeated `repeat` times, to stream a large
// body), then keeps the connection open until the peer closes it or the
// server stops. Push() sends bytes nobody asked for to every open
// connection, or to those a test picks (an unsolicited reply while the
// client's connection is idle; a message to the connections that
// subscribed). A server made with fake::ByConnection hands its respond
// function the connection's number (0, 1, … in accept order), so a script
// can keep state per connection.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fake {

// A listening socket on 127.0.0.1, on a port the kernel picks (*port).
inline int ListenLoopback(uint16_t *port, int backlog = 16) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa);
  listen(fd, backlog);
  socklen_t len = sizeof sa;
  getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &len);
  *port = ntohs(sa.sin_port);
  return fd;
}

// The tag of FakeServer's constructor whose respond function is told the
// connection.
struct ByConnection {};

}  // namespace fake

class FakeServer {
 public:
  // respond(request bytes so far) -> bytes to send (may be empty: wait for more).
  explicit FakeServer(std::function<std::string(const std::string &)> respond,
                      std::string filler = "", size_t repeat = 0)
      : FakeServer(
            fake::ByConnection{},
            [respond = std::move(respond)](size_t, const std::string &req) { return respond(req); },
            std::move(filler), repeat) {}
  // respond(connection number, request bytes so far); it runs on the
  // server's thread, as Push's `to` does.
  FakeServer(fake::ByConnection, std::function<std::string(size_t, const std::string &)> respond,
             std::string filler = "", size_t repeat = 0)
      : respond_(std::move(respond)), filler_(std::move(filler)), repeat_(repeat) {
    fd_ = fake::ListenLoopback(&port_);
    thread_ = std::thread([this] { Run(); });
  }
  ~FakeServer() {
    stop_ = true;
    thread_.join();
    for (int c : clients_) {
      if (c >= 0) close(c);
    }
    close(fd_);
  }
  uint16_t port() const { return port_; }
  int accepted() const { return accepted_.load(); }
  // Sends bytes to every open connection (or those whose number `to`
  // accepts) from the server's thread; returns how many connections got
  // them, once sent (within 5 s; -1 if not).
  int Push(const std::string &bytes, std::function<bool(size_t)> to = nullptr) {
    {
      std::lock_guard<std::mutex> lock(push_mu_);
      push_ = bytes;
      push_to_ = std::move(to);
      push_done_ = -1;
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < until) {
      {
        std::lock_guard<std::mutex> lock(push_mu_);
        if (push_done_ >= 0) return push_done_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return -1;
  }
  // Connections the peer has closed.
  int closed() const { return closed_.load(); }
  // Closes every open connection from the server's thread (a node that drops
  // its clients); returns how many, once done (within 5 s; -1 if not).
  int Drop() {
    drop_done_ = -1;
    drop_ = true;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < until) {
      if (drop_done_.load() >= 0) return drop_done_.load();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return -1;
  }

 private:
  void Run() {
    // Bounded: the loop polls every 20 ms and ends when the test ends.
    std::vector<std::string> requests;
    while (!stop_) {
      {
        std::lock_guard<std::mutex> lock(push_mu_);
        if (push_done_ < 0) {
          int n = 0;
          for (size_t i = 0; i < clients_.size(); ++i) {
            const int c = clients_[i];
            if (c < 0 || (push_to_ && !push_to_(i))) continue;
            n += SendAll(c, push_) ? 1 : 0;
          }
          push_done_ = n;
        }
      }
      if (drop_.exchange(false)) {
        int n = 0;
        for (int &c : clients_) {
          if (c < 0) continue;
          close(c);
          c = -1;
          ++n;
        }
        drop_done_ = n;
      }
      std::vector<pollfd> fds{{fd_, POLLIN, 0}};
      for (int c : clients_) fds.push_back({c, POLLIN, 0});
      if (poll(fds.data(), fds.size(), 20) <= 0) continue;
      if (fds[0].revents & POLLIN) {
        const int c = accept(fd_, nullptr, nullptr);
        if (c >= 0) {
          // As Redis does: small replies go out at once (Nagle would hold a
          // pushed reply until the client's delayed ACK of the last one).
          int one = 1;
          setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          clients_.push_back(c);
          requests.emplace_back();
          ++accepted_;
        }
      }
      for (size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & POLLIN)) continue;
        char buf[4096];
        const ssize_t n = recv(fds[i].fd, buf, sizeof buf, 0);
        if (n == 0) {  // the peer closed: poll skips a negative fd from now on
          close(fds[i].fd);
          clients_[i - 1] = -1;
          ++closed_;
        }
        if (n <= 0) continue;
        requests[i - 1].append(buf, static_cast<size_t>(n));
        const std::string out = respond_(i - 1, requests[i - 1]);
        if (out.empty()) continue;
        requests[i - 1].clear();
        SendAll(fds[i].fd, out);
        for (size_t k = 0; k < repeat_ && !stop_; ++k) {
          if (!SendAll(fds[i].fd, filler_)) break;
        }
      }
    }
  }
  static bool SendAll(int fd, const std::string &s) {
    size_t off = 0;
    while (off < s.size()) {
      const ssize_t n = send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }

  std::function<std::string(size_t, const std::string &)> respond_;
  std::string filler_;
  size_t repeat_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::vector<int> clients_;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::mutex push_mu_;
  std::string push_;
  std::function<bool(size_t)> push_to_;
  int push_done_ = 0;  // -1: push_ waits to be sent
  std::atomic<int> closed_{0};
  std::atomic<bool> drop_{false};
  std::atomic<int> drop_done_{0};
  std::thread thread_;
};

// Answers every complete request with `reply` (requests are one RESP array
// each; a request is "complete" when it ends in CRLF — enough for tests).
inline std::function<std::string(const std::string &)> Always(std::string reply) {
  return [reply](const std::string &req) {
    return req.size() >= 2 && req.compare(req.size() - 2, 2, "\r\n") == 0 ? reply : std::string();
  };
}

namespace fake {

// The commands of a pipelined RESP request buffer, as argv lists; *used gets
// the bytes they took (a partial command at the end stays).
inline std::vector<std::vector<std::string>> Commands(const std::string &buf, size_t *used) {
  std::vector<std::vector<std::string>> out;
  size_t pos = 0;
  *used = 0;
  while (pos < buf.size() && buf[pos] == '*') {
    size_t eol = buf.find("\r\n", pos);
    if (eol == std::string::npos) break;
    const long n = std::stol(buf.substr(pos + 1, eol - pos - 1));
    size_t p = eol + 2;
    std::vector<std::string> argv;
    for (long i = 0; i < n; ++i) {
      eol = buf.find("\r\n", p);
      if (eol == std::string::npos || buf[p] != '$') return out;
      const size_t len = std::stoul(buf.substr(p + 1, eol - p - 1));
      if (eol + 2 + len + 2 > buf.size()) return out;
      argv.push_back(buf.substr(eol + 2, len));
      p = eol + 2 + len + 2;
    }
    out.push_back(argv);
    pos = p;
    *used = pos;
  }
  return out;
}

inline std::string Bulk(const std::string &s) {
  return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
}

// CLUSTER SLOTS of a one-node cluster: the master at host:port owns every
// slot.
inline std::string OneNodeSlots(uint16_t port, const std::string &host = "127.0.0.1") {
  return "*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n" + Bulk(host) + ":" + std::to_string(port) + "\r\n" +
         Bulk(std::string(40, 'a'));
}

// argv as a RESP command (what a client sends).
inline std::string Command(const std::vector<std::string> &argv) {
  std::string s = "*" + std::to_string(argv.size()) + "\r\n";
  for (const std::string &a : argv) s += Bulk(a);
  return s;
}

// A cluster node as far as the live client asks: CLUSTER SHARDS is an
// error (as on Redis 6: the client falls back to CLUSTER SLOTS), CLUSTER
// SLOTS (any other CLUSTER subcommand too) answers slots(), INFO an empty
// section, PING as Redis does (+PONG, or its argument echoed), GET "v",
// MGET "v" for each key, anything else +OK.
inline std::function<std::string(const std::string &)> ClusterNode(
    std::function<std::string()> slots) {
  return [slots](const std::string &req) {
    size_t used = 0;
    std::string out;
    for (const auto &argv : Commands(req, &used)) {
      const std::string cmd = argv.empty() ? "" : argv[0];
      const std::string sub = argv.size() > 1 ? argv[1] : "";
      if ((cmd == "CLUSTER" || cmd == "cluster") && (sub == "SHARDS" || sub == "shards")) {
        out += "-ERR unknown subcommand 'SHARDS'\r\n";
      } else if (cmd == "CLUSTER" || cmd == "cluster") {
        out += slots();
      } else if (cmd == "INFO" || cmd == "info") {
        out += Bulk("# Server\r\n");
      } else if (cmd == "PING" || cmd == "ping") {
        out += argv.size() == 2 ? Bulk(argv[1]) : std::string("+PONG\r\n");
      } else if (cmd == "GET" || cmd == "get") {
        out += Bulk("v");
      } else if (cmd == "MGET" || cmd == "mget") {
        out += "*" + std::to_string(argv.size() - 1) + "\r\n";
        for (size_t i = 1; i < argv.size(); ++i) out += Bulk("v");
      } else {
        out += "+OK\r\n";
      }
    }
    return out;
  };
}

// A one-node cluster (ClusterNode, its master at port()) whose answers to
// some commands a test decides: answer(argv, &out) appends the answer and
// returns true, or returns false to leave the command to ClusterNode. A
// request in which answer set *hold gets no answer at all (it stays
// pending: a server that never replies).
inline std::function<std::string(const std::string &)> ScriptedClusterNode(
    std::function<uint16_t()> port,
    std::function<bool(const std::vector<std::string> &, std::string *, bool *hold)> answer) {
  return [port, answer](const std::string &req) {
    size_t used = 0;
    std::string out;
    bool hold = false;
    for (const auto &argv : Commands(req, &used)) {
      if (answer(argv, &out, &hold)) continue;
      out += ClusterNode([port] { return OneNodeSlots(port()); })(Command(argv));
    }
    return hold ? std::string() : out;
  };
}

}  // namespace fake
