// Numbers for report.md: fixed decimals, latencies in a fitting unit.
#ifndef STAMPEDE_REPORT_TEXT_FORMAT_H_
#define STAMPEDE_REPORT_TEXT_FORMAT_H_

#include <cstdint>
#include <cstdio>
#include <string>

namespace stampede::report {

inline double Us(uint64_t ns) { return double(ns) / 1000.0; }

inline std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

// Latencies for people: 3 significant digits in a fitting unit.
inline std::string HumanUs(double us) {
  if (us < 1000) return Fixed(us, us < 10 ? 1 : 0) + " µs";
  if (us < 1e6) return Fixed(us / 1000, us < 1e4 ? 2 : 1) + " ms";
  return Fixed(us / 1e6, 2) + " s";
}

// Durations for people: seconds to a tenth ("2.5 s").
inline std::string Secs(double s) { return Fixed(s, 1) + " s"; }

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_TEXT_FORMAT_H_
