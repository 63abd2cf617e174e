#include "common/duration.h"

#include <cctype>
#include <charconv>
#include <cmath>

namespace stampede {
namespace {

struct Unit {
  std::string_view name;
  double ns;
};
constexpr Unit kUnits[] = {{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};

}  // namespace

StatusOr<int64_t> ParseDurationNs(std::string_view text) {
  const std::string expected = "expected a duration like 10s, 1m30s, 250ms or 2h, found '" +
                               std::string(text.substr(0, 60)) + (text.size() > 60 ? "...'" : "'");
  if (text.empty()) return Status::Invalid(expected);
  double total = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
      ++i;
    }
    if (i == start) return Status::Invalid(expected);
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data() + start, text.data() + i, value);
    if (ec != std::errc() || ptr != text.data() + i) return Status::Invalid(expected);
    size_t unit_start = i;
    while (i < text.size() && !std::isdigit(static_cast<unsigned char>(text[i])) && text[i] != '.') {
      ++i;
    }
    std::string_view unit = text.substr(unit_start, i - unit_start);
    const Unit* found = nullptr;
    for (const Unit& u : kUnits) {
      if (u.name == unit) found = &u;
    }
    if (!found) return Status::Invalid(expected);
    total += value * found->ns;
  }
  if (total > 9e18) return Status::Invalid(expected + " (too long)");
  return static_cast<int64_t>(std::llround(total));
}

std::string FormatDurationNs(int64_t ns) {
  if (ns % 1000000000 == 0) {
    int64_t s = ns / 1000000000;
    if (s != 0 && s % 3600 == 0) return std::to_string(s / 3600) + "h";
    if (s != 0 && s % 60 == 0) return std::to_string(s / 60) + "m";
    return std::to_string(s) + "s";
  }
  if (ns % 1000000 == 0) return std::to_string(ns / 1000000) + "ms";
  if (ns % 1000 == 0) return std::to_string(ns / 1000) + "us";
  return std::to_string(ns) + "ns";
}

std::string FormatDurationMs(uint64_t ms) {
  constexpr uint64_t kMaxMs = uint64_t(INT64_MAX) / 1000000;
  if (ms <= kMaxMs) return FormatDurationNs(int64_t(ms) * 1000000);
  return std::to_string(ms) + "ms";
}

}  // namespace stampede
