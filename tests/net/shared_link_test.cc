// Shared connections (net/shared_link): many threads' requests on one or
// two connections per node, every reply to the request it answers — and
// what a late node, an unsolicited reply, a refused reply, a failed dial
// and an abandoned request do to the others in flight. The server is a
// small pipelining fake (real Redis cannot misbehave on cue).
#include "cloudroute/net/shared_link.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute/core/health.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"
#include "common/wait_until.hpp"
#include "fake_server.hpp"  // fake::ListenLoopback, fake::Commands, fake::Bulk

namespace cloudroute {
namespace net {
namespace shared_link_test {

// A pipelining server: commands are answered in order as they arrive —
// `GET k` with the bulk string k, `PING` as Redis does — except that `GET
// hold:*` holds its reply and every later one on its connection until a
// `RELEASE` arrives there, and `GET twice:*` is answered twice (one reply
// nobody asked for).
class PipeServer {
 public:
  PipeServer() {
    fd_ = fake::ListenLoopback(&port_, 64);
    thread_ = std::thread([this] { Run(); });
  }
  ~PipeServer() {
    stop_ = true;
    thread_.join();
    for (Conn &c : conns_) {
      if (c.fd >= 0) close(c.fd);
    }
    close(fd_);
  }
  uint16_t port() const { return port_; }
  int accepted() const { return accepted_.load(); }
  // The keys of every GET, in the order they reached the server.
  std::vector<std::string> gets() {
    std::lock_guard<std::mutex> lock(gets_mu_);
    return gets_;
  }
  // Sends bytes nobody asked for on every open connection (from the
  // server's thread, within its next poll round).
  void Push(const std::string &bytes) {
    std::lock_guard<std::mutex> lock(push_mu_);
    push_ += bytes;
  }

 private:
  struct Conn {
    int fd;
    std::string in;
    std::deque<std::vector<std::string>> held;  // waiting for RELEASE
  };
  static std::string Answer(const std::vector<std::string> &argv) {
    std::string one = "+OK\r\n";
    if (argv.size() == 2 && argv[0] == "GET") one = fake::Bulk(argv[1]);
    if (!argv.empty() && argv[0] == "PING") {
      one = argv.size() == 2 ? fake::Bulk(argv[1]) : std::string("+PONG\r\n");
    }
    const bool twice = argv.size() == 2 && argv[1].rfind("twice:", 0) == 0;
    return twice ? one + one : one;
  }
  void Serve(Conn *c) {
    size_t used = 0;
    auto cmds = fake::Commands(c->in, &used);
    c->in.erase(0, used);
    std::string out;
    for (auto &argv : cmds) {
      if (argv.size() == 2 && argv[0] == "GET") {
        std::lock_guard<std::mutex> lock(gets_mu_);
        gets_.push_back(argv[1]);
      }
      const bool release = !argv.empty() && argv[0] == "RELEASE";
      if (!c->held.empty() && !release) {
        c->held.push_back(std::move(argv));
        continue;
      }
      if (release) {
        for (auto &h : c->held) out += Answer(h);
        c->held.clear();
        out += "+OK\r\n";
        continue;
      }
      if (argv.size() == 2 && argv[0] == "GET" && argv[1].rfind("hold:", 0) == 0) {
        c->held.push_back(std::move(argv));
        continue;
      }
      out += Answer(argv);
    }
    size_t off = 0;
    while (off < out.size()) {
      const ssize_t n = send(c->fd, out.data() + off, out.size() - off, MSG_NOSIGNAL);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
  }
  void Run() {
    while (!stop_) {
      {
        std::lock_guard<std::mutex> lock(push_mu_);
        for (Conn &c : conns_) {
          if (!push_.empty()) (void)!send(c.fd, push_.data(), push_.size(), MSG_NOSIGNAL);
        }
        push_.clear();
      }
      std::vector<pollfd> fds{{fd_, POLLIN, 0}};
      for (Conn &c : conns_) fds.push_back({c.fd, POLLIN, 0});
      if (poll(fds.data(), fds.size(), 20) <= 0) continue;
      if (fds[0].revents & POLLIN) {
        const int c = accept(fd_, nullptr, nullptr);
        if (c >= 0) {
          int one = 1;
          setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          conns_.push_back({c, "", {}});
          ++accepted_;
        }
      }
      for (size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        Conn &c = conns_[i - 1];
        char buf[65536];
        const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
        if (n <= 0) {
          close(c.fd);
          c.fd = -1;
          continue;
        }
        c.in.append(buf, static_cast<size_t>(n));
        Serve(&c);
      }
      conns_.erase(
          std::remove_if(conns_.begin(), conns_.end(), [](const Conn &c) { return c.fd < 0; }),
          conns_.end());
    }
  }

  int fd_ = -1;
  uint16_t port_ = 0;
  std::vector<Conn> conns_;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::mutex push_mu_;
  std::string push_;
  std::mutex gets_mu_;
  std::vector<std::string> gets_;
  std::thread thread_;
};

class SharedLinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loop = EventLoop::Start();
    ASSERT_TRUE(loop.ok()) << loop.status().message();
    loop_ = std::move(*loop);
  }
  void TearDown() override {
    for (auto &l : links_) {
      NodeLink *link = l.get();
      std::promise<void> closed;
      loop_->Post([link, &closed] {
        link->Close(Error(kConnError, "the test is over"));
        closed.set_value();
      });
      closed.get_future().wait();
    }
    dials_.JoinAll();
    loop_->Stop();
    links_.clear();
  }
  std::shared_ptr<NodeLink> Link(uint16_t port, uint32_t max_connections = 2) {
    ConnectOptions opts;
    auto link = std::make_shared<NodeLink>(
        loop_.get(), &dials_,
        [port, opts](uint32_t timeout_ms) {
          return Connection::Open("127.0.0.1", port, opts, timeout_ms);
        },
        max_connections, 1000);
    links_.push_back(link);
    return link;
  }
  static LinkRequestPtr Request(const std::vector<Args> &cmds, uint32_t timeout_ms = 2000) {
    auto r = std::make_shared<LinkRequest>();
    for (const Args &a : cmds) AppendCommand(a, &r->wire);
    r->expected = cmds.size();
    r->deadline_ns = DeadlineAfter(timeout_ms);
    return r;
  }
  static std::shared_ptr<LinkWaiter> Waiter(const LinkRequestPtr &r) {
    auto w = std::make_shared<LinkWaiter>();
    LinkWaiter::Attach(w, r.get());
    return w;
  }
  // Submits and waits.
  static void Run(NodeLink *link, const LinkRequestPtr &r) {
    auto waiter = Waiter(r);
    link->Submit(r);
    waiter->Wait({{link, r}});
  }

  std::unique_ptr<EventLoop> loop_;
  DialThreads dials_;
  std::vector<std::shared_ptr<NodeLink>> links_;
};

TEST_F(SharedLinkTest, ManyThreadsShareTwoConnectionsAndEachGetsItsOwnReplies) {
  PipeServer server;
  auto link = Link(server.port(), 2);
  constexpr int kThreads = 8, kEach = 1500;
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const std::string a = "k" + std::to_string(t) + ":" + std::to_string(i);
        // Some requests carry several commands: their replies stay together.
        auto r = i % 3 == 0 ? Request({{"GET", a}, {"GET", a + "b"}}) : Request({{"GET", a}});
        Run(link.get(), r);
        if (!r->status.ok()) {
          ++failed;
          continue;
        }
        if (r->replies.size() != r->expected || r->replies[0]->str != a ||
            (r->expected == 2 && r->replies[1]->str != a + "b")) {
          ++wrong;
        }
      }
    });
  }
  for (auto &t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(failed.load(), 0);
  EXPECT_LE(server.accepted(), 2);  // never more than max_connections
  EXPECT_GE(server.accepted(), 1);
}

TEST_F(SharedLinkTest,
       AReplyNobodyAskedForFailsEveryRequestOnTheConnectionAndNoneGetsItsNeighbours) {
  PipeServer server;
  auto link = Link(server.port(), 1);
  // A held request keeps later ones queued behind it on the one connection.
  auto held = Request({{"GET", "hold:1"}});
  auto w1 = Waiter(held);
  link->Submit(held);
  std::vector<LinkRequestPtr> queued;
  std::vector<std::shared_ptr<LinkWaiter>> waiters;
  for (int i = 0; i < 5; ++i) {
    queued.push_back(Request({{"GET", i == 2 ? "twice:x" : "q" + std::to_string(i)}}));
    waiters.push_back(Waiter(queued.back()));
    link->Submit(queued.back());
  }
  auto release = Request({{"RELEASE"}});
  Run(link.get(), release);
  w1->Wait();
  for (size_t i = 0; i < queued.size(); ++i) waiters[i]->Wait();
  // Everything before the extra reply got its own. The request it came
  // with and every later one fail (the marker after twice:x's reply was
  // another twice:x): none gets a neighbour's value.
  ASSERT_TRUE(held->status.ok());
  EXPECT_EQ(held->replies[0]->str, "hold:1");
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(queued[static_cast<size_t>(i)]->status.ok());
    EXPECT_EQ(queued[static_cast<size_t>(i)]->replies[0]->str, "q" + std::to_string(i));
  }
  for (size_t i = 2; i < queued.size(); ++i) {
    EXPECT_EQ(queued[i]->status.code(), Code::kParse) << queued[i]->status.message();
    EXPECT_NE(queued[i]->status.message().find("replies no longer match requests"),
              std::string::npos);
    EXPECT_TRUE(queued[i]->replies.empty());
  }
  EXPECT_EQ(release->status.code(), Code::kParse);
  // The next request gets a new connection, and its own reply.
  auto after = Request({{"GET", "after"}});
  Run(link.get(), after);
  ASSERT_TRUE(after->status.ok()) << after->status.message();
  EXPECT_EQ(after->replies[0]->str, "after");
  EXPECT_EQ(server.accepted(), 2);
}

// A thread's requests to one node go out in the order it submitted them,
// also while the connection is being opened: the first ones wait on the
// engine thread for the dial, and a later one must not overtake them by
// going straight onto the connection the dial has just opened.
TEST_F(SharedLinkTest, OneThreadsRequestsReachTheNodeInTheOrderItSubmittedThem) {
  PipeServer server;
  constexpr int kRounds = 300, kEach = 12;
  std::vector<std::string> submitted;
  for (int round = 0; round < kRounds; ++round) {
    auto link = Link(server.port(), 1);
    std::vector<LinkRequestPtr> requests;
    std::vector<std::shared_ptr<LinkWaiter>> waiters;
    for (int i = 0; i < kEach; ++i) {
      submitted.push_back("o:" + std::to_string(round) + ":" + std::to_string(i));
      requests.push_back(Request({{"GET", submitted.back()}}));
      waiters.push_back(Waiter(requests.back()));
      link->Submit(requests.back());
    }
    for (size_t i = 0; i < requests.size(); ++i) {
      waiters[i]->Wait();
      ASSERT_TRUE(requests[i]->status.ok()) << requests[i]->status.message();
      EXPECT_EQ(requests[i]->replies[0]->str, submitted[submitted.size() - kEach + i]);
    }
  }
  const std::vector<std::string> arrived = server.gets();
  ASSERT_EQ(arrived.size(), submitted.size());
  int overtaken = 0;
  for (size_t i = 0; i < arrived.size(); ++i) overtaken += arrived[i] != submitted[i];
  EXPECT_EQ(overtaken, 0) << "requests that reached the node out of submission order";
}

TEST_F(SharedLinkTest, ARefusedReplyPoisonsTheConnection) {
  PipeServer server;
  auto link = Link(server.port(), 1);
  auto r = Request({{"GET", "k"}});
  r->check = [](const std::vector<ReplyPtr> &replies) {
    return replies[0]->str == "k" ? std::string("a bulk string where this test wants none")
                                  : std::string();
  };
  Run(link.get(), r);
  EXPECT_EQ(r->status.code(), Code::kParse);
  EXPECT_NE(r->status.message().find("where this test wants none"), std::string::npos);
  auto next = Request({{"GET", "next"}});
  Run(link.get(), next);
  ASSERT_TRUE(next->status.ok());
  EXPECT_EQ(next->replies[0]->str, "next");
  EXPECT_EQ(server.accepted(), 2);  // the refused one was not reused
}

TEST_F(SharedLinkTest, ALateNodeFailsEveryRequestOnItsConnectionSentOrNot) {
  PipeServer server;
  auto link = Link(server.port(), 1);
  auto late = Request({{"GET", "hold:late"}}, 100);
  auto w = Waiter(late);
  link->Submit(late);
  auto other = Request({{"GET", "other"}}, 5000);
  auto wo = Waiter(other);
  link->Submit(other);
  const int64_t t0 = SteadyNowNs();
  w->Wait();
  wo->Wait();
  EXPECT_EQ(late->status.code(), kTimeout) << late->status.message();
  EXPECT_TRUE(late->sent);
  // The other request was on the same connection: it fails at once, named
  // as a consequence, and says it was sent (a write may have run).
  EXPECT_EQ(other->status.code(), kConnError) << other->status.message();
  EXPECT_NE(other->status.message().find("another request on this shared connection timed out"),
            std::string::npos);
  EXPECT_TRUE(other->sent);
  EXPECT_LT(SteadyNowNs() - t0, MsToNs(2000));
  // A new connection serves the next one.
  auto next = Request({{"GET", "next"}});
  Run(link.get(), next);
  ASSERT_TRUE(next->status.ok());
  EXPECT_EQ(next->replies[0]->str, "next");
}

TEST_F(SharedLinkTest, AnAbandonedRequestLeavesTheConnectionServingTheOthers) {
  PipeServer server;
  auto link = Link(server.port(), 1);
  auto mine = Request({{"GET", "hold:mine"}}, 100);
  mine->abandon_on_deadline = true;  // a caller's own deadline: the node is not late
  Run(link.get(), mine);
  EXPECT_EQ(mine->status.code(), kTimeout);
  EXPECT_TRUE(mine->replies.empty());
  // The held reply comes with RELEASE's: dropped, and RELEASE gets its own.
  auto release = Request({{"RELEASE"}});
  Run(link.get(), release);
  ASSERT_TRUE(release->status.ok()) << release->status.message();
  EXPECT_EQ(release->replies[0]->str, "OK");
  auto next = Request({{"GET", "next"}});
  Run(link.get(), next);
  ASSERT_TRUE(next->status.ok());
  EXPECT_EQ(next->replies[0]->str, "next");
  EXPECT_EQ(server.accepted(), 1);  // the same connection all along
}

TEST_F(SharedLinkTest, ARequestWhoseDeadlinePassesDuringASlowDialFailsThenUnsent) {
  PipeServer server;
  const uint16_t port = server.port();
  // A handshake that takes 600 ms (a stalled node accepts TCP at once).
  auto link = std::make_shared<NodeLink>(
      loop_.get(), &dials_,
      [port](uint32_t timeout_ms) {
        std::this_thread::sleep_for(std::chrono::milliseconds(600));
        return Connection::Open("127.0.0.1", port, ConnectOptions(), timeout_ms);
      },
      1, 1000);
  links_.push_back(link);
  auto r = Request({{"GET", "k"}}, 100);
  const int64_t t0 = SteadyNowNs();
  Run(link.get(), r);
  EXPECT_EQ(r->status.code(), kTimeout) << r->status.message();
  EXPECT_FALSE(r->sent);
  EXPECT_LT(SteadyNowNs() - t0, MsToNs(500));  // its deadline, not the dial's
  // The dial went on: the next request is served on its connection.
  ASSERT_TRUE(crtest::WaitUntil([&] { return link->open() == 1; }, std::chrono::seconds(5)));
  auto next = Request({{"GET", "next"}});
  Run(link.get(), next);
  ASSERT_TRUE(next->status.ok()) << next->status.message();
  EXPECT_EQ(next->replies[0]->str, "next");
}

TEST_F(SharedLinkTest, AFailedDialFailsTheWaitingRequestsUnsent) {
  // A port nothing listens on: the dial is refused.
  uint16_t port = 0;
  {
    PipeServer gone;
    port = gone.port();
  }
  auto link = Link(port, 2);
  auto r = Request({{"SET", "k", "v"}});
  Run(link.get(), r);
  EXPECT_EQ(r->status.code(), kConnError) << r->status.message();
  EXPECT_FALSE(r->sent);  // a write that failed here can be sent again
}

TEST_F(SharedLinkTest, AReplyToAnIdleConnectionClosesItAndTheNextRequestDialsAgain) {
  PipeServer server;
  auto link = Link(server.port(), 1);
  auto r = Request({{"PING"}});
  Run(link.get(), r);
  ASSERT_TRUE(r->status.ok());
  // A reply while nothing is asked: the connection is poisoned and closed.
  server.Push("+OK\r\n");
  ASSERT_TRUE(crtest::WaitUntil([&] { return link->open() == 0; }, std::chrono::seconds(5)));
  auto next = Request({{"PING"}});
  Run(link.get(), next);
  ASSERT_TRUE(next->status.ok()) << next->status.message();
  EXPECT_EQ(server.accepted(), 2);
}

}  // namespace shared_link_test
}  // namespace net
}  // namespace cloudroute
