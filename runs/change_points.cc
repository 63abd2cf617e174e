#include "runs/change_points.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace stampede::runs {
namespace {

struct Split {
  size_t at = 0;  // offset in the segment: [0, at) and [at, n)
  double q = -1;
};

// The split of x (n values) with the largest scaled energy statistic
//   Q(t) = t(n-t)/n * (2/(t(n-t)) sum|x_i - x_j| - within(left)/C(t,2) - within(right)/C(n-t,2)),
// in O(n^2) by moving one value at a time from the right side to the left.
Split BestSplit(const std::vector<double>& x, size_t min_size) {
  const size_t n = x.size();
  Split best;
  if (n < 2 * min_size) return best;
  double between = 0, left = 0, right = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) right += std::fabs(x[i] - x[j]);
  }
  for (size_t t = 1; t + min_size <= n; ++t) {
    // x[t - 1] moves from the right side to the left.
    const size_t m = t - 1;
    double to_left = 0, to_right = 0;
    for (size_t i = 0; i < m; ++i) to_left += std::fabs(x[i] - x[m]);
    for (size_t j = t; j < n; ++j) to_right += std::fabs(x[m] - x[j]);
    left += to_left;
    right -= to_right;
    between += to_right - to_left;
    if (t < min_size) continue;
    const double a = double(t), b = double(n - t);
    const double within_left = a > 1 ? left / (a * (a - 1) / 2) : 0;
    const double within_right = b > 1 ? right / (b * (b - 1) / 2) : 0;
    const double q = a * b / double(n) * (2 * between / (a * b) - within_left - within_right);
    if (q > best.q) best = {t, q};
  }
  return best;
}

double Mean(const std::vector<double>& x, size_t from, size_t to) {
  return to > from ? std::accumulate(x.begin() + long(from), x.begin() + long(to), 0.0) / double(to - from) : 0;
}

void Search(const std::vector<double>& series, size_t from, size_t to, const ChangePointOptions& o,
            std::mt19937_64* rng, std::vector<ChangePoint>* out) {
  std::vector<double> x(series.begin() + long(from), series.begin() + long(to));
  const Split s = BestSplit(x, o.min_size);
  if (s.q <= 0) return;
  int as_large = 0;
  std::vector<double> shuffled = x;
  // Stops once p can only end above max_p: the same decision, and noise
  // (where about half the orders split as well) costs a few dozen orders
  // instead of all of them.
  const double enough = o.max_p * double(o.permutations + 1) - 1;
  for (int i = 0; i < o.permutations && double(as_large) <= enough; ++i) {
    std::shuffle(shuffled.begin(), shuffled.end(), *rng);
    if (BestSplit(shuffled, o.min_size).q >= s.q) ++as_large;
  }
  const double p = double(as_large + 1) / double(o.permutations + 1);
  if (p > o.max_p) return;
  out->push_back({from + s.at, 0, 0, p});
  Search(series, from, from + s.at, o, rng, out);
  Search(series, from + s.at, to, o, rng, out);
}

}  // namespace

std::vector<ChangePoint> FindChangePoints(const std::vector<double>& series, const ChangePointOptions& options) {
  std::vector<ChangePoint> found;
  std::mt19937_64 rng(options.seed);
  Search(series, 0, series.size(), options, &rng, &found);
  std::sort(found.begin(), found.end(), [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  // Each side's mean, between its neighbours.
  for (size_t i = 0; i < found.size(); ++i) {
    const size_t before = i ? found[i - 1].index : 0;
    const size_t after = i + 1 < found.size() ? found[i + 1].index : series.size();
    found[i].mean_before = Mean(series, before, found[i].index);
    found[i].mean_after = Mean(series, found[i].index, after);
  }
  return found;
}

}  // namespace stampede::runs
