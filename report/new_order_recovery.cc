#include "report/new_order_recovery.h"

#include <algorithm>
#include <sstream>

#include "report/text_format.h"

namespace stampede::report {

bool HasTpcc(const RunSummary& s) {
  return std::any_of(s.phases.begin(), s.phases.end(), [](const PhaseSummary& p) { return p.workload == "tpcc"; });
}

std::string RenderNewOrderRecoveryMarkdown(const std::vector<FaultRecovery>& faults) {
  if (faults.empty()) return "";
  std::ostringstream md;
  md << "\n## Faults and recovery, New-Order alone\n\n"
     << "The numbers above, for New-Order's throughput (tpmC's) alone, at whole-second resolution.\n\n"
     << "| fault | baseline (New-Orders/s) | unavailability | lowest throughput, % of baseline | time to "
        "recovered throughput | p99 during |\n|---|---:|---:|---:|---:|---:|\n";
  for (const FaultRecovery& f : faults) {
    md << "| " << f.action << " " << f.node << " " << f.When() << " | " << Fixed(f.baseline_ops_per_s, 1) << " | "
       << Secs(f.unavailable_s) << " | " << (f.dip >= 0 ? Fixed(f.dip * 100, 0) + "%" : "n/a") << " | "
       << (f.recovered_s >= 0 ? Secs(f.recovered_s)
           : f.observed       ? NotRecovered(f.next_fault)
                              : "n/a")
       << " | " << (f.during.count ? HumanUs(f.during.p99_us) : "n/a") << " |\n";
  }
  return md.str();
}

Json NewOrderRecoveryToJson(const std::vector<FaultRecovery>& faults) {
  Json out = Json::array();
  for (const FaultRecovery& f : faults) out.push_back(RecoveryToJson(f));
  return out;
}

}  // namespace stampede::report
