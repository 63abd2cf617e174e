#include "drivers/endpoint_names.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace stampede::drivers {
namespace {

TEST(EndpointNames, PlanEndpointsKeepTheirIndexes) {
  EndpointNames names({"a:1", "b:2"}, 2);
  EXPECT_EQ(names.IndexOf("b:2"), 1);
  EXPECT_EQ(names.IndexOf("a:1"), 0);
  EXPECT_EQ(names.capacity(), 4u);
}

TEST(EndpointNames, AFoundEndpointIsAddedOnceUntilTheTableIsFull) {
  EndpointNames names({"a:1"}, 1);
  EXPECT_EQ(names.IndexOf("c:3"), 1);
  EXPECT_EQ(names.IndexOf("c:3"), 1);
  EXPECT_EQ(names.IndexOf("d:4"), -1);  // full: counted nowhere
  EXPECT_EQ(names.Names(), (std::vector<std::string>{"a:1", "c:3"}));
}

TEST(EndpointNames, LoopsAddingAtOnceGetOneIndexEach) {
  EndpointNames names({}, 64);
  std::vector<std::thread> loops;
  std::vector<int> seen(4);
  for (int t = 0; t < 4; ++t) {
    loops.emplace_back([&, t] {
      for (int i = 0; i < 32; ++i) names.IndexOf("n:" + std::to_string(i));
      seen[t] = names.IndexOf("n:7");
    });
  }
  for (auto& l : loops) l.join();
  EXPECT_EQ(names.Names().size(), 32u);
  for (int s : seen) EXPECT_EQ(s, seen[0]);
}

}  // namespace
}  // namespace stampede::drivers
