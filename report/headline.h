// A run's result in a few lines, for the top of report.md and report.html
// and the end of `stampede run`: the verdict, one line per fault (how long
// nothing succeeded, the errors, whether and when the throughput came
// back, or why not) and one per acknowledged-writes check.
#ifndef STAMPEDE_REPORT_HEADLINE_H_
#define STAMPEDE_REPORT_HEADLINE_H_

#include <string>
#include <vector>

#include "report/run_summary.h"

namespace stampede::report {

struct Headline {
  std::string result;              // "Result: ok. 24002 operations in 25.9 s ..."
  std::vector<std::string> lines;  // a fault's or a writes check's, each one line
};

Headline MakeHeadline(const RunSummary& s);

// "**RESULT**\n\n- line\n..." for report.md.
std::string RenderHeadlineMarkdown(const Headline& h);
// The same as plain lines, for a terminal.
std::string RenderHeadlineText(const Headline& h);

// A fault's recovery in words: "recovered after 8.4 s", "held", or why not
// ("the next fault came 7.0 s later, before throughput recovered"); next:
// the fault after it, if any.
std::string RecoveryInWords(const FaultRecovery& f, const FaultRecovery* next);

// The Count note of a stepped workload ("Count = 7996 (expected 8000, 4
// short)") with the shortfall explained by the acknowledged-writes check
// of its group, when that accounts for it exactly; else unchanged.
std::string ExplainCountNote(const std::string& note, const RunSummary& s);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_HEADLINE_H_
