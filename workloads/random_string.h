// Random printable strings for row values, written into caller buffers.
#ifndef STAMPEDE_WORKLOADS_RANDOM_STRING_H_
#define STAMPEDE_WORKLOADS_RANDOM_STRING_H_

#include <cstddef>

#include "common/rng.h"

namespace stampede::workloads {

inline void FillRandomString(Rng& rng, char* out, size_t n) {
  static constexpr char kAlphabet[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  size_t i = 0;
  while (i < n) {
    uint64_t r = rng.Next();
    for (int k = 0; k < 10 && i < n; ++k, r >>= 6) out[i++] = kAlphabet[(r & 63) % 62];
  }
}

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_RANDOM_STRING_H_
