// Zipfian integers in [0, n): P(rank r) proportional to (r+1)^-theta, with
// the YCSB constant theta = 0.99 by default, optionally scrambled (FNV hash)
// so the hot keys are spread over the key space as in YCSB.
//
// Sampling is exact, by rejection-inversion (Hörmann & Derflinger 1996): O(1)
// per draw with no per-n table. YCSB's own method (Gray et al.) is an
// approximation that over-weights ranks 3..6 by up to 19%; see
// docs/workloads.md. The generator is immutable and shared by workers; each
// worker draws with its own Rng.
#ifndef STAMPEDE_WORKLOADS_ZIPFIAN_GENERATOR_H_
#define STAMPEDE_WORKLOADS_ZIPFIAN_GENERATOR_H_

#include <cstdint>

#include "common/rng.h"

namespace stampede::workloads {

// FNV-1a over the 8 bytes of v (YCSB's key hash and scrambler).
uint64_t Fnv1a64(uint64_t v);

class ZipfianGenerator {
 public:
  static constexpr double kYcsbTheta = 0.99;

  explicit ZipfianGenerator(uint64_t n, double theta = kYcsbTheta, bool scrambled = false);

  // Rank-ordered draw: 0 is the most popular item.
  uint64_t NextRank(Rng& rng) const;
  // Item for a draw: the rank itself, or its scrambled position.
  uint64_t Next(Rng& rng) const;

  uint64_t n() const { return n_; }

  // sum_{i=1..n} i^-theta (exact to 10^6 terms, integral beyond): the
  // normalising constant, for tests and reports.
  static double Zeta(uint64_t n, double theta);

 private:
  double H(double x) const;
  double HIntegral(double x) const;
  double HIntegralInverse(double x) const;

  uint64_t n_;
  double theta_;
  bool scrambled_;
  double h_integral_x1_;
  double h_integral_n_;
  double s_;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_ZIPFIAN_GENERATOR_H_
