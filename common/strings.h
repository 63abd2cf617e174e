// Small string helpers shared by the plan loader and reports.
#ifndef STAMPEDE_COMMON_STRINGS_H_
#define STAMPEDE_COMMON_STRINGS_H_

#include <string>
#include <string_view>
#include <vector>

namespace stampede {

// Levenshtein distance, for "did you mean" suggestions.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate closest to word, or "" if none is reasonably close.
std::string NearestWord(std::string_view word, const std::vector<std::string>& candidates);

// "2,595,055".
std::string Thousands(uint64_t n);

std::string Join(const std::vector<std::string>& parts, std::string_view sep);

// Splits "host:port" ("[v6]:port" too). Returns false if malformed.
bool SplitHostPort(std::string_view endpoint, std::string* host, int* port);

// A message that spans lines (libpq's "could not connect...\n\tIs the
// server...") as one line: each run of line breaks and tabs becomes one
// space, and trailing ones go.
std::string OneLine(std::string_view text);

// Whitespace-separated words; double-quoted words may contain spaces.
std::vector<std::string> SplitWords(std::string_view text);

}  // namespace stampede

#endif  // STAMPEDE_COMMON_STRINGS_H_
