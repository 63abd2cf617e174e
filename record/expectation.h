// What a plan expects of a run (its `expect:` block), one condition each:
// "p99 < 20ms" on a phase, "unavailability < 10s" on a kind of fault. The
// one list of the metrics a condition may name, and the one parser of
// "[OP.]METRIC CMP VALUE", used by the plan loader and by the verdict
// (report/verdict) alike. docs/plan.md documents the grammar.
#ifndef STAMPEDE_RECORD_EXPECTATION_H_
#define STAMPEDE_RECORD_EXPECTATION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace stampede::record {

enum class MetricUnit {
  kSeconds,   // a duration: 20ms, 1.5s
  kFraction,  // a percentage: 50% (0.5)
  kCount,     // a whole number
  kRate,      // a number per second
};

struct MetricInfo {
  std::string_view name;
  MetricUnit unit;
};

struct Expectation {
  std::string scope;    // "phase" or "fault"
  std::string subject;  // a phase (or a stepped phase's name), or a fault action; "*": every one
  std::string op;       // phases: this op's numbers; empty: the phase's (worst op's latency, ops summed)
  std::string metric;   // "p99", "errors.fatal", "unavailability"...
  std::string cmp;      // <, <=, >, >=, ==, !=
  double value = 0;     // in the metric's unit: seconds, a fraction, a count, ops/s; relative: the factor
  // "p99 < 1.2x history": value is a factor of the median of the plan's
  // earlier runs (RunStart::baseline), not a number in the metric's unit.
  bool relative = false;
  std::string text;  // as written, trimmed: "p99 < 20ms"
};

inline constexpr size_t kMaxExpectations = 256;
// A relative expectation is judged once the plan has this many earlier
// runs with the number; before, it passes, saying "not enough history".
inline constexpr uint32_t kMinHistoryRuns = 3;
// The plan's last runs a relative expectation's median is taken over
// (its history: {window: N}), by default.
inline constexpr uint32_t kDefaultHistoryWindow = 10;

// The metrics of a scope, or null if `name` is not one of them.
const MetricInfo* FindMetric(std::string_view scope, std::string_view name);
std::vector<std::string> MetricNames(std::string_view scope);

// "METRIC CMP VALUE" (phases: "[OP.]METRIC CMP VALUE"); VALUE may be
// "FACTORx history" (relative). The error says what was expected.
StatusOr<Expectation> ParseExpectation(std::string_view scope, std::string_view subject, std::string_view text);

bool Holds(double measured, std::string_view cmp, double value);
// A value in its unit, as a user writes it: "20ms", "50%", "3", "1200/s".
std::string FormatMetricValue(MetricUnit unit, double value);

}  // namespace stampede::record

#endif  // STAMPEDE_RECORD_EXPECTATION_H_
