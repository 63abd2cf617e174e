// A phase's section of report.md: its table of ops, then what it owed, its
// endpoints, what the client cost, its writes check and anomalies.
#ifndef STAMPEDE_REPORT_PHASE_MARKDOWN_H_
#define STAMPEDE_REPORT_PHASE_MARKDOWN_H_

#include <sstream>
#include <string>

#include "report/run_summary.h"

namespace stampede::report {

void PhaseTableMarkdown(const RunSummary& s, const PhaseSummary& p, std::ostringstream& md);
void PhaseNotesMarkdown(const PhaseSummary& p, std::ostringstream& md);
// "Client CPU (...): AGENT 0.98 s (49 µs per operation), ...": each agent's
// own threads, then all of them over the phase's operations, then what
// their processes spent besides.
std::string ClientCpuLine(const PhaseSummary& p);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_PHASE_MARKDOWN_H_
