#include "report/move_progress.h"

#include <gtest/gtest.h>

namespace stampede::report {
namespace {

record::HealthPoll Poll(double t, std::vector<double> slots) {
  record::HealthPoll p;
  p.t = t;
  p.answered = p.healthy = true;
  p.share_unit = "slots";
  for (size_t i = 0; i < slots.size(); ++i) {
    record::NodeShare s;
    s.node = "127.0.0.1:700" + std::to_string(i);
    s.share = slots[i];
    s.state = "master";
    p.shares.push_back(s);
  }
  return p;
}

record::FaultSent Fault(const std::string& action) {
  record::FaultSent f;
  f.action = action;
  f.node = "redis-new";
  return f;
}

TEST(MoveProgress, AJoinMovesAFourthOfTheSlotsToTheNewMaster) {
  MoveProgress m;
  m.Add(Poll(1, {5461, 5462, 5461}));
  EXPECT_FALSE(m.Current());
  m.Add(Fault("join"));
  m.Add(Poll(2, {5461, 5462, 5461, 0}));  // joined, nothing moved yet
  auto s = m.Current();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->what, "join redis-new");
  EXPECT_EQ(s->unit, "slots");
  EXPECT_NEAR(s->total, 4096, 1);
  EXPECT_NEAR(s->done, 0, 1);
  m.Add(Poll(3, {4096, 5462, 5461, 1365}));
  m.Add(Poll(4, {4096, 4096, 5461, 2731}));
  s = m.Current();
  EXPECT_NEAR(s->ratio, 2731.0 / 4096, 0.01);
  EXPECT_NEAR(s->left_s, 1, 0.05);  // 1,365 slots a second, 1,365 left
  m.Add(Poll(5, {4096, 4096, 4096, 4096}));
  s = m.Current();
  EXPECT_EQ(s->ratio, 1);
  EXPECT_EQ(s->left_s, 0);
  EXPECT_FALSE(m.Current()) << "100% said once";
}

TEST(MoveProgress, ALeaveEmptiesTheNodeWhoseShareFalls) {
  MoveProgress m;
  m.Add(Poll(1, {4096, 4096, 4096, 4096}));
  m.Add(Fault("leave"));
  m.Add(Poll(2, {4096, 4096, 4096, 4096}));
  EXPECT_EQ(m.Current()->total, 0) << "not known until a share falls";
  m.Add(Poll(3, {5461, 4096, 4096, 2731}));
  auto s = m.Current();
  EXPECT_EQ(s->total, 4096);
  EXPECT_EQ(s->done, 1365);
  m.Add(Poll(4, {5461, 5462, 5461}));  // the node gone from the cluster
  s = m.Current();
  EXPECT_EQ(s->ratio, 1);
  EXPECT_EQ(s->done, 4096);
}

TEST(MoveProgress, OtherFaultsAndNoSharesShowNothing) {
  MoveProgress m;
  m.Add(Fault("join"));  // no poll before it: nothing to measure from
  EXPECT_FALSE(m.Current());
  m.Add(Poll(1, {5461, 5462, 5461}));
  m.Add(Fault("kill"));
  EXPECT_FALSE(m.Current());
}

}  // namespace
}  // namespace stampede::report
