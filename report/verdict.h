// The run's verdict: each condition of the plan's expect: block checked
// against the summary, one check per phase (or op) and per fault it
// applies to, with the measured value. `stampede run` exits 4 when a check
// fails (docs/plan.md, "Expectations").
#ifndef STAMPEDE_REPORT_VERDICT_H_
#define STAMPEDE_REPORT_VERDICT_H_

#include <optional>
#include <string>
#include <vector>

#include "report/journal.h"
#include "report/run_summary.h"

namespace stampede::report {

struct Check {
  std::string text;      // the condition as written: "p99 < 20ms"
  std::string where;     // "phase insert", "phase mixed, op read", "fault 2: kill node3 at 18.6 s"
  std::string measured;  // "12.40 ms", "not recovered within the run", "no phase named insert ran"
  bool pass = false;
  // The same check in every run of the plan ("phase insert: p99",
  // "fault 0: kill node3: unavailability"), and its number in the metric's
  // unit, when measured: the run history keeps them, and an expectation
  // relative to history compares with their median.
  std::string key;
  std::optional<double> value;
};

struct Verdict {
  std::vector<Check> checks;  // in the plan's order, then by phase or fault
  size_t failed() const;
  bool passed() const { return failed() == 0; }
};

Verdict Evaluate(const RunSummary& s);
Json VerdictToJson(const Verdict& v);
// "## Verdict": passed or not, and a row per check.
std::string RenderVerdictMarkdown(const Verdict& v);
// One line naming the failed checks, for the CLI's stderr.
std::string FailedChecksLine(const Verdict& v);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_VERDICT_H_
