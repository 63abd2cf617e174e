#include "workloads/zipfian_generator.h"

#include <cmath>

namespace stampede::workloads {
namespace {

constexpr uint64_t kExactTerms = 1000000;

}  // namespace

uint64_t Fnv1a64(uint64_t v) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int i = 0; i < 8; ++i) {
    h ^= v & 0xff;
    h *= 0x100000001b3ULL;
    v >>= 8;
  }
  return h;
}

namespace {

// log1p(x)/x and expm1(x)/x, with their series near 0.
double Helper1(double x) { return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x)); }
double Helper2(double x) {
  return std::abs(x) > 1e-8 ? std::expm1(x) / x : 1 + x * 0.5 * (1 + x * (1.0 / 3) * (1 + 0.25 * x));
}

}  // namespace

double ZipfianGenerator::Zeta(uint64_t n, double theta) {
  double sum = 0;
  uint64_t exact = n < kExactTerms ? n : kExactTerms;
  for (uint64_t i = 1; i <= exact; ++i) sum += std::pow(double(i), -theta);
  if (n > exact) {
    double a = double(exact) + 0.5, b = double(n) + 0.5;
    sum += (std::pow(b, 1 - theta) - std::pow(a, 1 - theta)) / (1 - theta);
  }
  return sum;
}

ZipfianGenerator::ZipfianGenerator(uint64_t n, double theta, bool scrambled)
    : n_(n < 1 ? 1 : n), theta_(theta), scrambled_(scrambled) {
  h_integral_x1_ = HIntegral(1.5) - 1.0;
  h_integral_n_ = HIntegral(double(n_) + 0.5);
  s_ = 2.0 - HIntegralInverse(HIntegral(2.5) - H(2.0));
}

double ZipfianGenerator::H(double x) const { return std::exp(-theta_ * std::log(x)); }

double ZipfianGenerator::HIntegral(double x) const {
  double log_x = std::log(x);
  return Helper2((1.0 - theta_) * log_x) * log_x;
}

double ZipfianGenerator::HIntegralInverse(double x) const {
  double t = x * (1.0 - theta_);
  if (t < -1.0) t = -1.0;
  return std::exp(Helper1(t) * x);
}

uint64_t ZipfianGenerator::NextRank(Rng& rng) const {
  while (true) {
    double u = h_integral_n_ + rng.NextDouble() * (h_integral_x1_ - h_integral_n_);
    double x = HIntegralInverse(u);
    double kd = std::floor(x + 0.5);
    if (kd < 1) kd = 1;
    if (kd > double(n_)) kd = double(n_);
    if (kd - x <= s_ || u >= HIntegral(kd + 0.5) - H(kd)) {
      return static_cast<uint64_t>(kd) - 1;
    }
  }
}

uint64_t ZipfianGenerator::Next(Rng& rng) const {
  uint64_t r = NextRank(rng);
  return scrambled_ ? Fnv1a64(r) % n_ : r;
}

}  // namespace stampede::workloads
