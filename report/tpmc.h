// TPC-C's headline number from a tpcc phase: New-Orders completed a minute
// (tpmC). Unwaited (no keying or think times, issue 32's `wait` is not
// built yet), so not a conforming tpmC: a throughput, said so wherever it
// is shown.
#pragma once

#include <optional>
#include <string>

#include "report/run_summary.h"

namespace stampede::report {

// The phase's tpmC: its New-Orders that ended ok (rolled back ones
// included, as the specification counts them) per minute of the phase; none
// for a phase that is not tpcc's run step.
std::optional<double> Tpmc(const PhaseSummary& p);

// report.md's line for it ("" when there is none).
std::string TpmcLine(const PhaseSummary& p);

}  // namespace stampede::report
