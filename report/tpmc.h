// TPC-C's headline numbers from a tpcc phase: New-Orders completed a
// minute (tpmC), and with keying and think times (the workload's `wait`)
// its efficiency, the share of the most that W warehouses' 10 terminals
// each can do. Without wait, tpmC is a throughput, not a conforming tpmC,
// and every place that shows it says so.
#pragma once

#include <optional>
#include <string>

#include "report/run_summary.h"

namespace stampede::report {

// The phase's tpmC: its New-Orders that ended ok (rolled back ones
// included, as the specification counts them) per minute of the phase; none
// for a phase that is not tpcc's run step.
std::optional<double> Tpmc(const PhaseSummary& p);

// With wait > 0: tpmC / (12.86 x W / wait), as a fraction (12.86 New-Orders
// a minute per warehouse is the most its 10 terminals can do at the
// specification's times, clause 5.2.5.7); none without wait.
std::optional<double> TpmcEfficiency(const PhaseSummary& p);

// What the number is: "(New-Orders a minute, ...)", said the same way in
// report.md, summary.json (tpmc_note) and the dashboard.
std::string TpmcNote(const PhaseSummary& p);

// report.md's line for it ("" when there is none).
std::string TpmcLine(const PhaseSummary& p);

// summary.json's tpmc, tpmc_efficiency and tpmc_note, where there are.
void AddTpmcJson(const PhaseSummary& p, Json* phase);

}  // namespace stampede::report
