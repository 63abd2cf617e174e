#include "report/phase_markdown.h"

#include <algorithm>

#include "report/anomalies.h"
#include "report/batch_rows.h"
#include "report/endpoint_summary.h"
#include "report/text_format.h"
#include "report/tpmc.h"
#include "report/writes_check.h"

namespace stampede::report {

// One phase's table of ops.
void PhaseTableMarkdown(const RunSummary& s, const PhaseSummary& p, std::ostringstream& md) {
  md << "\n## Phase " << p.name << " (" << Fixed(p.duration_s, 2) << " s, " << p.workers << " workers"
     << (p.pipeline > 1 ? ", pipeline " + std::to_string(p.pipeline) : "")
     << (p.batch > 1 ? ", batch " + std::to_string(p.batch) : "")
     << (p.timed_out   ? ", timed out"
         : p.completed ? ""
                       : ", incomplete")
     << ")\n\n";
  if (std::string note = p.SaturationNote(); !note.empty()) md << note << "\n\n";
  md << TpmcLine(p);
  // A rollbacks column (ops the workload rolled back) where there are any.
  const bool rollbacks = std::any_of(p.ops.begin(), p.ops.end(), [](const OpSummary& o) { return o.rollbacks > 0; });
  const bool p90 = p.workload == "tpcc";  // the percentile TPC-C reports
  md << "| op | count | total time | ops/s | mean | " << (s.ns_per_op ? "ns/op | " : "") << "p50 | "
     << (p90 ? "p90 | " : "") << "p99 | p99.9 | max | errors | retries | missed |" << (rollbacks ? " rollbacks |" : "")
     << "\n";
  md << "|---|---:|---:|---:|---:|" << (s.ns_per_op ? "---:|" : "") << (p90 ? "---:|" : "")
     << "---:|---:|---:|---:|---|---:|---:|" << (rollbacks ? "---:|" : "") << "\n";
  for (const OpSummary& o : p.ops) {
    const Histogram& h = o.latency;
    std::string errors;
    for (int i = 1; i < kNumOutcomes; ++i) {
      if (!o.outcomes[i]) continue;
      if (!errors.empty()) errors += ", ";
      errors += std::string(kOutcomeNames[i]) + " " + std::to_string(o.outcomes[i]);
    }
    if (o.disk_full) errors += " (disk full " + std::to_string(o.disk_full) + ")";
    md << "| " << o.name << " | " << o.count() << " | " << Fixed(p.duration_s, 2) << "s | "
       << Fixed(p.duration_s > 0 ? double(o.count()) / p.duration_s : 0, 1) << " | " << HumanUs(h.MeanNs() / 1000.0)
       << " | " << (s.ns_per_op ? Fixed(o.count() ? p.duration_s * 1e9 / double(o.count()) : 0, 0) + " | " : "")
       << HumanUs(Us(h.ValueAtQuantile(0.5))) << " | " << (p90 ? HumanUs(Us(h.ValueAtQuantile(0.9))) + " | " : "")
       << HumanUs(Us(h.ValueAtQuantile(0.99))) << " | " << HumanUs(Us(h.ValueAtQuantile(0.999))) << " | "
       << HumanUs(Us(h.max_ns())) << " | " << (errors.empty() ? "0" : errors) << " | " << o.retries << " | " << o.missed
       << " |" << (rollbacks ? " " + std::to_string(o.rollbacks) + " |" : "") << "\n";
  }
  if (p.ops.empty()) md << "| (no operations) | | | | | | | | | | | |\n";
  // The one column whose name does not say what it is.
  if (s.ns_per_op)
    md << "\nns/op: the phase's wall time over its operations, as Go benchmarks print it; not a latency.\n";
}

// What the client cost: each agent's own threads over its operations, then
// all of them over the phase's, then what their processes spent besides.
std::string ClientCpuLine(const PhaseSummary& p) {
  std::ostringstream md;
  md << "Client CPU (user + system of each agent's own threads): ";
  bool first = true;
  for (const auto& [agent, cpu] : p.agent_cpu_s) {
    auto it = p.agent_ops.find(agent);
    const uint64_t n = it == p.agent_ops.end() ? 0 : it->second;
    md << (first ? "" : ", ") << agent << " " << Fixed(cpu, 2) << " s";
    if (n > 0) md << " (" << HumanUs(cpu * 1e6 / double(n)) << " per operation)";
    first = false;
  }
  if (p.CpuUsPerOp() >= 0) md << "; " << HumanUs(p.CpuUsPerOp()) << " of CPU per operation in all";
  md << ".";
  if (p.other_cpu_s > 0.005) {
    md << " Their processes' other threads (an embedded coordinator, gRPC's) used " << Fixed(p.other_cpu_s, 2)
       << " s besides.";
  }
  return md.str();
}

// Under a phase's table: what it owed, its endpoints, what the client cost.
void PhaseNotesMarkdown(const PhaseSummary& p, std::ostringstream& md) {
  if (p.owed >= 0) {
    // Every operation the schedule owed is done, missed, or unaccounted for.
    md << "\nOwed " << p.owed << " operations: " << p.done() << " done, " << p.missed()
       << " missed (due but never started)";
    if (p.unaccounted) md << ", " << p.unaccounted << " unaccounted (shares of lost agents)";
    md << ".\n";
  }
  EndpointsMarkdown(p.endpoints, md);
  if (!p.agent_cpu_s.empty()) md << "\n" << ClientCpuLine(p) << "\n";
  if (const OpSummary* o = p.BatchedOp()) md << "\n" << BatchRowsMarkdown(p, *o) << "\n";
  if (p.writes) md << "\n" << WritesMarkdown(*p.writes) << "\n";
  if (std::string a = AnomaliesMarkdown(p.anomalies, p.workload); !a.empty()) md << "\n" << a << "\n";
  if (p.agent_ops.size() > 1) {
    md << "\nOperations by agent: ";
    bool first = true;
    for (const auto& [agent, n] : p.agent_ops) {
      md << (first ? "" : ", ") << agent << " " << n;
      first = false;
    }
    md << "\n";
  }
}

}  // namespace stampede::report
