// Change points in a series of runs' numbers: E-divisive means (Matteson
// and James, "A Nonparametric Approach for Multiple Change Point Analysis
// of Multivariate Data", 2014), with a permutation test for significance,
// as Apache Otava (Hunter) applies it to performance history. Each split
// maximizes the energy distance between the two sides; it is kept when
// fewer than max_p of random orders of the same values split as well; the
// sides are searched again (binary segmentation).
#ifndef STAMPEDE_RUNS_CHANGE_POINTS_H_
#define STAMPEDE_RUNS_CHANGE_POINTS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stampede::runs {

struct ChangePointOptions {
  double max_p = 0.01;
  int permutations = 999;
  size_t min_size = 3;  // values on each side of a split, at least
  uint64_t seed = 1;    // the permutations' (the result is the same each time)
};

struct ChangePoint {
  size_t index = 0;                        // the first value of the new level
  double mean_before = 0, mean_after = 0;  // of the segments it separates
  double p = 1;                            // the permutation test's
};

// In index order.
std::vector<ChangePoint> FindChangePoints(const std::vector<double>& series, const ChangePointOptions& options = {});

}  // namespace stampede::runs

#endif  // STAMPEDE_RUNS_CHANGE_POINTS_H_
