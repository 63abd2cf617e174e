// TPC-C runs: each fault's recovery numbers for New-Order alone, beside
// the run's (report/recovery.h). tpmC is New-Order's throughput, so how
// long New-Orders stopped and how far they fell is the number a TPC-C
// user compares engines by; the run's numbers mix in Payment and the rest.
#pragma once

#include <string>
#include <vector>

#include "report/recovery.h"
#include "report/run_summary.h"

namespace stampede::report {

// Whether a phase of the run is tpcc's.
bool HasTpcc(const RunSummary& s);

// report.md's section: one row per fault ("" without faults).
std::string RenderNewOrderRecoveryMarkdown(const std::vector<FaultRecovery>& faults);

// summary.json's new_order_faults: each fault's numbers (as in faults).
Json NewOrderRecoveryToJson(const std::vector<FaultRecovery>& faults);

}  // namespace stampede::report
