#include "drivers/readiness_set.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <thread>
#include <vector>

#include "drivers/socket_waiter.h"

namespace stampede::drivers {
namespace {

using namespace std::chrono_literals;

// A connected pair of sockets: the waiter watches `mine`, the test writes
// to `theirs`.
struct Pair {
  int mine = -1, theirs = -1;
  Pair() {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
    mine = fds[0];
    theirs = fds[1];
  }
  ~Pair() {
    close(mine);
    close(theirs);
  }
  void Send() const { EXPECT_EQ(write(theirs, "x", 1), 1); }
  void Drain() const {
    char buf[16];
    while (read(mine, buf, sizeof buf) > 0) {
    }
  }
};

// Runs `body` later on the loop.
template <typename F>
void After(boost::asio::io_context& io, std::chrono::milliseconds delay, F body) {
  auto timer = std::make_shared<boost::asio::steady_timer>(io, delay);
  timer->async_wait([timer, body](const boost::system::error_code&) { body(); });
}

// Each test runs its loop both ways: by Asio (run) and by the set (Run).
class ReadinessSetTest : public testing::TestWithParam<bool> {};

void RunLoop(boost::asio::io_context& io, bool own) {
  if (own) {
    boost::asio::use_service<ReadinessSet>(io).Run(io);
  } else {
    io.run();
  }
}

INSTANTIATE_TEST_SUITE_P(Loops, ReadinessSetTest, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& info) { return info.param ? "OwnLoop" : "Asio"; });

TEST_P(ReadinessSetTest, AWaitEndsWhenItsSocketIsReadableAndHoldsNothingOpenAfterwards) {
  boost::asio::io_context io;
  Pair pair;
  SocketWaiter waiter(io.get_executor());
  waiter.Watch(pair.mine);
  int woken = 0;
  boost::asio::co_spawn(
      io,
      [&]() -> Task<void> {
        for (int i = 0; i < 3; ++i) {
          co_await waiter.ReadableNow();
          EXPECT_TRUE(waiter.ok());
          pair.Drain();
          ++woken;
          After(io, 5ms, [&] { pair.Send(); });
        }
      },
      boost::asio::detached);
  After(io, 5ms, [&] { pair.Send(); });
  RunLoop(io, GetParam());  // returns: the socket stays in the set, but nobody waits
  EXPECT_EQ(woken, 3);
}

TEST_P(ReadinessSetTest, ReadinessNobodyWaitsForLeavesTheSetAndIsSeenAtTheNextWait) {
  boost::asio::io_context io;
  Pair quiet, busy;
  SocketWaiter first(io.get_executor()), second(io.get_executor());
  first.Watch(quiet.mine);
  second.Watch(busy.mine);
  bool first_again = false;
  boost::asio::co_spawn(
      io,
      [&]() -> Task<void> {
        After(io, 1ms, [&] { quiet.Send(); });
        co_await first.ReadableNow();  // now in the set; read nothing, wait no more
        boost::asio::steady_timer pause(io, 50ms);
        co_await pause.async_wait(boost::asio::use_awaitable);
        co_await first.ReadableNow();  // the byte left unread wakes it at once
        first_again = first.ok();
      },
      boost::asio::detached);
  boost::asio::co_spawn(
      io,
      [&]() -> Task<void> {
        After(io, 40ms, [&] { busy.Send(); });
        co_await second.ReadableNow();  // keeps the set watched meanwhile
        EXPECT_TRUE(second.ok());
      },
      boost::asio::detached);
  RunLoop(io, GetParam());
  EXPECT_TRUE(first_again);
  // A spinning set would wake thousands of times in 50 ms.
  EXPECT_LT(boost::asio::use_service<ReadinessSet>(io).wakeups(), 10u);
}

TEST_P(ReadinessSetTest, AbortAndForgetEndAPendingWaitAsFailed) {
  boost::asio::io_context io;
  Pair a, b;
  SocketWaiter aborted(io.get_executor()), forgotten(io.get_executor());
  aborted.Watch(a.mine);
  forgotten.Watch(b.mine);
  int ended = 0;
  auto wait = [&](SocketWaiter& waiter) -> Task<void> {
    co_await waiter.ReadableNow();
    EXPECT_FALSE(waiter.ok());
    ++ended;
  };
  boost::asio::co_spawn(io, wait(aborted), boost::asio::detached);
  boost::asio::co_spawn(io, wait(forgotten), boost::asio::detached);
  After(io, 5ms, [&] { aborted.Abort(); });
  After(io, 5ms, [&] { forgotten.Watch(-1); });
  RunLoop(io, GetParam());
  EXPECT_EQ(ended, 2);
  EXPECT_TRUE(aborted.aborted());
}

// A waiter whose socket never turns readable; its frame (and the waiter
// in it) is destroyed when its wait is abandoned.
struct Destroyed {
  int* count;
  ~Destroyed() { ++*count; }
};

Task<void> WaitForever(boost::asio::any_io_executor executor, int fd, int* destroyed) {
  Destroyed counted{destroyed};
  SocketWaiter waiter(executor);
  waiter.Watch(fd);
  co_await waiter.ReadableNow();
  ADD_FAILURE() << "no socket turned readable, yet a wait ended";
}

// At shutdown the set destroys the pending waits' handlers; each destroyed
// waiter forgets its entry, which moves others in the set's list of
// entries while it is being walked (ASan: nothing is read after it is
// freed; every frame is destroyed).
TEST_P(ReadinessSetTest, PendingWaitsAreAbandonedAtShutdown) {
  constexpr int kWaiters = 9;
  std::vector<Pair> pairs(kWaiters);
  int destroyed = 0;
  {
    boost::asio::io_context io;
    for (const Pair& p : pairs)
      boost::asio::co_spawn(io, WaitForever(io.get_executor(), p.mine, &destroyed), boost::asio::detached);
    After(io, 5ms, [&] { io.stop(); });
    RunLoop(io, GetParam());
    EXPECT_EQ(destroyed, 0);
  }
  EXPECT_EQ(destroyed, kWaiters);
}

TEST_P(ReadinessSetTest, WritableAndConnectStyleWaits) {
  boost::asio::io_context io;
  Pair pair;
  SocketWaiter waiter(io.get_executor());
  waiter.Watch(pair.mine);
  bool writable = false, readable = false, unwatched = true;
  boost::asio::co_spawn(
      io,
      [&]() -> Task<void> {
        writable = co_await waiter.Writable();  // an empty send buffer
        co_await waiter.WritableNow();
        writable = writable && waiter.ok();
        After(io, 2ms, [&] { pair.Send(); });
        readable = co_await waiter.Readable();
        waiter.Watch(-1);
        unwatched = co_await waiter.Readable();
      },
      boost::asio::detached);
  RunLoop(io, GetParam());
  EXPECT_TRUE(writable);
  EXPECT_TRUE(readable);
  EXPECT_FALSE(unwatched);
}

// A loop the set runs itself, with one socket pair watched.
class ReadinessSetOwnLoopTest : public testing::Test {
 protected:
  ReadinessSetOwnLoopTest() { waiter.Watch(pair.mine); }
  boost::asio::io_context io{1};
  ReadinessSet& set = boost::asio::use_service<ReadinessSet>(io);
  Pair pair;
  SocketWaiter waiter{io.get_executor()};
};

// What only the set's own loop does: Asio's timers, a post made by a
// resumed waiter, and a post from another thread with Wake all run while
// the thread blocks in the set; the loop ends when the work runs out.
TEST_F(ReadinessSetOwnLoopTest, RunsAsiosWorkWhileBlockedInTheSet) {
  auto guard = boost::asio::make_work_guard(io);
  int woken = 0;
  bool posted_ran = false, from_thread = false;
  std::thread other;
  boost::asio::co_spawn(
      io,
      [&]() -> Task<void> {
        After(io, 2ms, [&] { pair.Send(); });  // a timer while the socket is in the set
        co_await waiter.ReadableNow();
        pair.Drain();
        ++woken;
        co_await boost::asio::post(io, boost::asio::use_awaitable);  // posted by a resumed waiter
        posted_ran = true;
        other = std::thread([&] {  // another thread's post ends the next wait
          std::this_thread::sleep_for(5ms);
          boost::asio::post(io, [&] {
            from_thread = true;
            pair.Send();
          });
          set.Wake();
        });
        co_await waiter.ReadableNow();
        pair.Drain();
        ++woken;
        guard.reset();
      },
      boost::asio::detached);
  set.Run(io);
  other.join();
  EXPECT_EQ(woken, 2);
  EXPECT_TRUE(posted_ran);
  EXPECT_TRUE(from_thread);
  EXPECT_TRUE(io.stopped());
}

// Work released from another thread (a work guard's reset) ends the loop
// once it is woken, even while a socket stays in the set.
TEST_F(ReadinessSetOwnLoopTest, ReleasingTheWorkElsewhereEndsTheLoopWhenWoken) {
  auto guard = boost::asio::make_work_guard(io);
  boost::asio::co_spawn(
      io,
      [&]() -> Task<void> {
        pair.Send();
        co_await waiter.ReadableNow();  // in the set; then nobody waits
      },
      boost::asio::detached);
  std::thread other([&] {
    std::this_thread::sleep_for(20ms);
    guard.reset();
    set.Wake();
  });
  set.Run(io);
  other.join();
  EXPECT_TRUE(io.stopped());
}

// A waiter forgotten by Asio's work (a timer) leaves the set empty: the
// unit of work held for it is given back before Asio blocks on its own,
// so the loop ends rather than waiting forever.
TEST_F(ReadinessSetOwnLoopTest, AWaiterForgottenInAsiosWorkLeavesNoWorkBehind) {
  bool ended = false;
  boost::asio::co_spawn(
      io,
      [&]() -> Task<void> {
        co_await waiter.ReadableNow();
        ended = !waiter.ok();
      },
      boost::asio::detached);
  After(io, 5ms, [&] { waiter.Watch(-1); });
  set.Run(io);
  EXPECT_TRUE(ended);
  EXPECT_TRUE(io.stopped());
}

}  // namespace
}  // namespace stampede::drivers
