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

}  // namespace stampede::plan
