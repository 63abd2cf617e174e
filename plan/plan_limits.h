// Limits on a plan's text, checked before the plan is loaded, so that no
// input (a huge file, a billion laughs of YAML aliases, deep nesting, a long
// string fed to a pattern) can exhaust memory, stack or time. See
// docs/plan.md, "Limits".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stampede::plan {

inline constexpr size_t kMaxPlanBytes = size_t(1) << 20;  // 1 MiB
inline constexpr uint64_t kMaxYamlNodes = 100000;         // after alias expansion
inline constexpr int kMaxYamlDepth = 64;                  // nested lists and mappings
inline constexpr size_t kMaxNameLength = 128;             // names and identifiers

// Limits on a plan's values, kept by the YAML reader and the validator alike.
inline constexpr uint32_t kMaxWorkers = 100000;  // a phase's, a stage's
inline constexpr double kMaxRate = 1e9;          // ops/s
inline constexpr uint32_t kMaxPipeline = 1000;   // operations in flight per connection
inline constexpr uint32_t kMaxBatch = 1000;      // rows per insert statement
inline constexpr uint32_t kMaxRetryAttempts = 100;
inline constexpr uint32_t kMaxAgentsMin = 10000;
inline constexpr uint32_t kMaxRedisDatabase = 65535;  // SELECT n (Redis's `databases`, 16 by default)
inline constexpr uint32_t kMaxHealthNodes = 1000;
inline constexpr uint32_t kMaxHealthConsecutive = 100;
inline constexpr uint32_t kMaxFaultRepeat = 1000;
inline constexpr uint32_t kMaxRollNodes = 100;          // a rolling restart's nodes
inline constexpr uint64_t kDefaultRollWaitMs = 120000;  // a roll step's wait for healthy, by default
inline constexpr uint32_t kMaxOpWeight = 1000000000;
inline constexpr uint32_t kMaxOpStatements = 16;       // statements of one custom op
inline constexpr int64_t kMaxGeneratedString = 65535;  // {string: LENGTH}
inline constexpr int64_t kMaxZipfianItems = 1000000000000000;
// What a submitted protobuf plan may hold (a YAML plan stays far below
// these: its text is at most kMaxPlanBytes).
inline constexpr size_t kMaxPhases = 1000;
inline constexpr size_t kMaxFaults = 10000;  // repeat: copies included
inline constexpr size_t kMaxEndpoints = 1000;
inline constexpr size_t kMaxEncodedPlanBytes = size_t(4) << 20;

struct LimitError {
  int line = 0;  // 1-based
  int column = 0;
  std::string message;
};

// The plan text's size, nesting depth and node count (every alias counted as
// the nodes it stands for). nullopt when all are within the limits or when
// the text is not valid YAML (the loader then reports the syntax error).
std::optional<LimitError> CheckPlanTextLimits(std::string_view text);

// [A-Za-z_][A-Za-z0-9_]*, at most kMaxNameLength characters.
bool IsIdentifier(std::string_view s);
// Letters, digits and the characters in `extra`; 1..kMaxNameLength long.
bool IsNameOf(std::string_view s, std::string_view extra);
// `s` quoted for an error message, cut to about `max` characters.
std::string Quoted(std::string_view s, size_t max = 60);

// "expected a positive integer up to 100000, found " (the value follows):
// how the reader and the validator word a number out of its range.
std::string ExpectedInteger(double min, double max);
std::string ExpectedNumber(double min, double max, bool exclusive_min);

}  // namespace stampede::plan
