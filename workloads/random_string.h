// Random printable strings for row values, written into caller buffers.
#ifndef STAMPEDE_WORKLOADS_RANDOM_STRING_H_
#define STAMPEDE_WORKLOADS_RANDOM_STRING_H_

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include "common/rng.h"

namespace stampede::workloads {

inline void FillRandomString(Rng& rng, char* out, size_t n) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  size_t i = 0;
  while (i < n) {
    uint64_t r = rng.Next();
    for (int k = 0; k < 10 && i < n; ++k, r >>= 6) out[i++] = kAlphabet[(r & 63) % 62];
  }
}

// Random values without generating each one: a block of random text,
// filled once per workload and shared (read-only) by all its workers, from
// which each value is a view at a random offset drawn from the worker's
// own generator. Values of the same length rarely repeat (one per offset)
// and cost a few ns instead of ~2.5 ns per character; ten thousand workers
// do not each carry their own block.
class RandomText {
 public:
  static constexpr size_t kMinBlock = 256 * 1024;

  RandomText(uint64_t seed, size_t max_length) : block_(std::max(kMinBlock, 4 * max_length), 'x') {
    Rng rng(seed);
    FillRandomString(rng, block_.data(), block_.size());
  }
  // A view of n <= max_length characters, valid as long as this object.
  std::string_view Take(Rng& rng, size_t n) const {
    return std::string_view(block_.data() + rng.Uniform(block_.size() - n + 1), n);
  }

 private:
  std::string block_;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_RANDOM_STRING_H_
