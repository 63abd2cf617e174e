// Sizes as people write them in configs: "256MB", "64KiB", "1G", "4096".
#ifndef STAMPEDE_COMMON_BYTE_SIZE_H_
#define STAMPEDE_COMMON_BYTE_SIZE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace stampede {

// An integer with an optional unit: B, K/KB/KiB, M/MB/MiB, G/GB/GiB (all
// powers of 1024). Errors say what was expected.
StatusOr<uint64_t> ParseByteSize(std::string_view text);
// The other way: the largest unit that divides it ("100KB", "3MB", "1500").
std::string FormatByteSize(uint64_t bytes);

}  // namespace stampede

#endif  // STAMPEDE_COMMON_BYTE_SIZE_H_
