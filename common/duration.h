// Parsing of human durations ("10s", "1m30s", "250ms", "2h") used in plans.
#ifndef STAMPEDE_COMMON_DURATION_H_
#define STAMPEDE_COMMON_DURATION_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace stampede {

// Parses a sequence of <number><unit> groups, unit one of ns, us, ms, s, m, h.
// Returns milliseconds-precision nanoseconds, or an error naming what was
// expected.
StatusOr<int64_t> ParseDurationNs(std::string_view text);

// "1m30s", "250ms", "2.5s": the inverse, for reports and plan.yaml.
std::string FormatDurationNs(int64_t ns);
// The same for milliseconds, any value (a protobuf plan's field may hold
// one too large for nanoseconds).
std::string FormatDurationMs(uint64_t ms);

}  // namespace stampede

#endif  // STAMPEDE_COMMON_DURATION_H_
