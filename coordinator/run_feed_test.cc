#include "coordinator/run_feed.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace stampede::coordinator {
namespace {

TEST(RunFeedTest, AFollowerGetsTheUpdatesAndTheResult) {
  RunFeed feed(nullptr);
  feed.OnStarted("run-1", "/tmp/r");
  feed.OnLog("before");
  std::vector<v1::RunUpdate> got;
  std::thread follower([&] {
    EXPECT_TRUE(feed.Follow(
        [&](const v1::RunUpdate& u) {
          got.push_back(u);
          return true;
        },
        [] { return false; }, true));
  });
  v1::Progress p;
  p.set_ops_per_s(42);
  feed.OnProgress(p);
  v1::RunResult r;
  r.set_ok(true);
  feed.End(r);
  follower.join();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].log(), "before");
  EXPECT_EQ(got[1].progress().ops_per_s(), 42);
  EXPECT_TRUE(got[2].result().ok());
  EXPECT_EQ(got[2].run_id(), "run-1");
}

TEST(RunFeedTest, ALateFollowerStartsFromNowAndMayAbort) {
  RunFeed feed(nullptr);
  feed.OnStarted("run-2", "/tmp/r");
  feed.OnLog("old news");
  std::vector<v1::RunUpdate> got;
  std::atomic<bool> stop{false};
  std::thread follower([&] {
    EXPECT_FALSE(feed.Follow(
        [&](const v1::RunUpdate& u) {
          got.push_back(u);
          return true;
        },
        [&] { return stop.load(); }, false));
  });
  EXPECT_FALSE(feed.Cancelled());
  feed.Abort();
  EXPECT_TRUE(feed.Cancelled());
  stop = true;
  follower.join();
  EXPECT_TRUE(got.empty());
}

}  // namespace
}  // namespace stampede::coordinator
