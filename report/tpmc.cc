#include "report/tpmc.h"

#include <cmath>

namespace stampede::report {

std::optional<double> Tpmc(const PhaseSummary& p) {
  if (p.workload != "tpcc" || p.duration_s <= 0) return std::nullopt;
  for (const OpSummary& o : p.ops) {
    if (o.name == "new_order") return double(o.outcomes[0]) * 60.0 / p.duration_s;
  }
  return std::nullopt;
}

std::string TpmcLine(const PhaseSummary& p) {
  const std::optional<double> t = Tpmc(p);
  if (!t) return "";
  return "tpmC " + std::to_string(std::llround(*t)) +
         " (New-Orders a minute, without keying or think times: a throughput, not a conforming tpmC)\n\n";
}

}  // namespace stampede::report
