#include "runs/change_points.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

namespace stampede::runs {
namespace {

// n values around level, noise of +-spread (uniform, fixed seed).
std::vector<double> Level(size_t n, double level, double spread, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> noise(-spread, spread);
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(level + noise(rng));
  return v;
}

std::vector<double> Concat(std::initializer_list<std::vector<double>> parts) {
  std::vector<double> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

TEST(ChangePoints, NoiseAloneHasNone) {
  EXPECT_TRUE(FindChangePoints(Level(30, 100, 5, 1)).empty());
  EXPECT_TRUE(FindChangePoints(Level(12, 4.2, 0.4, 2)).empty());
  EXPECT_TRUE(FindChangePoints({}).empty());
  EXPECT_TRUE(FindChangePoints({1, 2}).empty());
}

// How often noise alone is split: 500 series of 30 runs (uniform noise)
// and 200 of 30 runs of normal noise, each its own seed. A test at p <= 0.01
// with binary segmentation should split about 1 in 100 (docs/history.md
// gives the measured rates).
TEST(ChangePoints, FalsePositivesOnNoiseAreRare) {
  int uniform = 0, normal = 0;
  for (uint64_t seed = 1; seed <= 500; ++seed) uniform += !FindChangePoints(Level(30, 100, 5, seed)).empty();
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(100, 3);
    std::vector<double> v;
    for (int i = 0; i < 30; ++i) v.push_back(noise(rng));
    normal += !FindChangePoints(v).empty();
  }
  std::printf("false positives: %d of 500 uniform series, %d of 200 normal series\n", uniform, normal);
  EXPECT_LE(uniform, 15);  // 3%
  EXPECT_LE(normal, 6);
}

// One run far off (a noisy neighbour, a failed node) is not a new level:
// a level needs 3 runs on each side.
TEST(ChangePoints, ASingleOutlierIsNotAChange) {
  std::vector<double> v = Level(20, 100, 2, 11);
  v[10] = 300;
  EXPECT_TRUE(FindChangePoints(v).empty());
}

TEST(ChangePoints, OneStepUp) {
  const auto found = FindChangePoints(Concat({Level(10, 100, 3, 3), Level(10, 130, 3, 4)}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 10u);
  EXPECT_NEAR(found[0].mean_before, 100, 2);
  EXPECT_NEAR(found[0].mean_after, 130, 2);
  EXPECT_LE(found[0].p, 0.01);
}

TEST(ChangePoints, TwoStepsEachFound) {
  const auto found = FindChangePoints(Concat({Level(12, 4, 0.2, 5), Level(8, 6, 0.2, 6), Level(10, 5, 0.2, 7)}));
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].index, 12u);
  EXPECT_EQ(found[1].index, 20u);
  EXPECT_NEAR(found[1].mean_before, 6, 0.2);
  EXPECT_NEAR(found[1].mean_after, 5, 0.2);
}

// A late regression with a few runs after it.
TEST(ChangePoints, AStepNearTheEnd) {
  const auto found = FindChangePoints(Concat({Level(20, 1.0, 0.05, 8), Level(4, 1.6, 0.05, 9)}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 20u);
}

// The same series gives the same answer (the permutations' seed is fixed).
TEST(ChangePoints, Repeatable) {
  const auto s = Concat({Level(9, 10, 2, 10), Level(9, 13, 2, 11)});
  const auto a = FindChangePoints(s), b = FindChangePoints(s);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].index, b[i].index);
}

}  // namespace
}  // namespace stampede::runs
