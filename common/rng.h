// Deterministic, cheap random numbers for workloads.
//
// Every worker's stream is derived from (seed, phase index, global worker
// index), so it does not depend on how workers are split across agents.
#ifndef STAMPEDE_COMMON_RNG_H_
#define STAMPEDE_COMMON_RNG_H_

#include <cstdint>

namespace stampede {

constexpr uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr uint64_t MixSeed(uint64_t a, uint64_t b) { return SplitMix64(a ^ SplitMix64(b)); }

// xoshiro256** (Blackman & Vigna). Not thread-safe: one per worker.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& s : s_) {
      seed = SplitMix64(seed);
      s = seed;
    }
  }
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n) (Lemire's multiply-shift; bias negligible for n << 2^64).
  uint64_t Uniform(uint64_t n) { return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64); }
  // Uniform in [0, 1).
  double NextDouble() { return (Next() >> 11) * 0x1.0p-53; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace stampede

#endif  // STAMPEDE_COMMON_RNG_H_
