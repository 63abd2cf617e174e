#include "workloads/zipfian_generator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace stampede::workloads {
namespace {

// Chi-square goodness of fit of the top ranks (plus a tail bucket) at a
// fixed seed.
TEST(ZipfianGeneratorTest, MatchesTheoreticalDistribution) {
  constexpr uint64_t kN = 10000;
  constexpr int kDraws = 400000;
  constexpr int kTop = 50;
  ZipfianGenerator zipf(kN);
  Rng rng(12345);
  std::vector<double> observed(kTop + 1, 0);
  for (int i = 0; i < kDraws; ++i) {
    uint64_t r = zipf.NextRank(rng);
    ASSERT_LT(r, kN);
    observed[r < kTop ? r : kTop] += 1;
  }
  const double zeta = ZipfianGenerator::Zeta(kN, ZipfianGenerator::kYcsbTheta);
  double tail_p = 1.0;
  double chi2 = 0;
  for (int r = 0; r < kTop; ++r) {
    double p = std::pow(double(r + 1), -ZipfianGenerator::kYcsbTheta) / zeta;
    tail_p -= p;
    double e = p * kDraws;
    chi2 += (observed[r] - e) * (observed[r] - e) / e;
  }
  double e_tail = tail_p * kDraws;
  chi2 += (observed[kTop] - e_tail) * (observed[kTop] - e_tail) / e_tail;
  // 50 degrees of freedom: the 99.9th percentile of chi-square is ~86.7.
  EXPECT_LT(chi2, 86.7);
}

TEST(ZipfianGeneratorTest, ZetaApproximationIsClose) {
  double exact = 0;
  for (uint64_t i = 1; i <= 3000000; ++i) exact += std::pow(double(i), -0.99);
  EXPECT_NEAR(ZipfianGenerator::Zeta(3000000, 0.99) / exact, 1.0, 1e-6);
}

TEST(ZipfianGeneratorTest, ScrambledStaysInRange) {
  ZipfianGenerator zipf(1000, ZipfianGenerator::kYcsbTheta, true);
  Rng rng(1);
  for (int i = 0; i < 10000; ++i) EXPECT_LT(zipf.Next(rng), 1000u);
}

}  // namespace
}  // namespace stampede::workloads
