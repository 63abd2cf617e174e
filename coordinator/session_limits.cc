#include "coordinator/session_limits.h"

#include "common/anomaly.h"
#include "common/histogram.h"
#include "common/history_log.h"
#include "common/outcome.h"

namespace stampede::coordinator {
namespace {

std::string Cut(std::string_view s) { return s.size() <= 40 ? std::string(s) : std::string(s.substr(0, 40)) + "..."; }

std::string OpProblem(const v1::OpStats& op) {
  if (op.op().empty() || op.op().size() > kMaxAgentNameLength)
    return "an op name of " + std::to_string(op.op().size()) + " characters";
  if (op.outcomes_size() > kNumOutcomes) {
    return "op " + Cut(op.op()) + " has " + std::to_string(op.outcomes_size()) + " outcome counts (at most " +
           std::to_string(kNumOutcomes) + ")";
  }
  uint64_t done = 0;
  for (uint64_t n : op.outcomes()) {
    if (n > kMaxOpsPerAgentSecond || done + n > kMaxOpsPerAgentSecond) {
      return "op " + Cut(op.op()) + " reports more than " + std::to_string(kMaxOpsPerAgentSecond) + " operations";
    }
    done += n;
  }
  const v1::HistogramData& h = op.latency();
  if (h.index_size() != h.count_size()) return "op " + Cut(op.op()) + " has a histogram with unpaired buckets";
  uint64_t recorded = 0;
  for (int i = 0; i < h.index_size(); ++i) {
    if (h.index(i) >= uint32_t(HistogramLayout::kNumBuckets)) {
      return "op " + Cut(op.op()) + " has a histogram bucket " + std::to_string(h.index(i)) + " out of range";
    }
    if (h.count(i) > kMaxOpsPerAgentSecond || recorded + h.count(i) > kMaxOpsPerAgentSecond) {
      return "op " + Cut(op.op()) + " has a histogram of more than " + std::to_string(kMaxOpsPerAgentSecond) +
             " values";
    }
    recorded += h.count(i);
  }
  return "";
}

std::string AnomalyProblem(const v1::Snapshot& s) {
  if (s.anomalies_size() > kNumAnomalies || s.anomaly_examples_size() > kMaxAnomalyExamplesPerSnapshot) {
    return "a snapshot with " + std::to_string(s.anomalies_size()) + " anomaly kinds and " +
           std::to_string(s.anomaly_examples_size()) + " examples (at most " + std::to_string(kNumAnomalies) + " and " +
           std::to_string(kMaxAnomalyExamplesPerSnapshot) + ")";
  }
  for (const v1::AnomalyCount& c : s.anomalies()) {
    if (!AnomalyNamed(c.kind())) return "a snapshot with an anomaly of unknown kind '" + Cut(c.kind()) + "'";
    if (c.count() > kMaxOpsPerAgentSecond) return "a snapshot with more anomalies than operations";
  }
  for (const v1::AnomalyExample& e : s.anomaly_examples()) {
    if (!AnomalyNamed(e.kind())) return "a snapshot with an anomaly of unknown kind '" + Cut(e.kind()) + "'";
    if (e.endpoint().size() > kMaxAgentNameLength * 4 || e.op().size() > kMaxAgentNameLength) {
      return "a snapshot with an anomaly example's endpoint or op too long";
    }
  }
  return "";
}

std::string HistoryProblem(const v1::Snapshot& s) {
  if (s.history_dropped() > kMaxOpsPerAgentSecond) return "a snapshot with more history dropped than operations";
  if (s.part() > kMaxHistoryParts) {
    return "a snapshot's history part " + std::to_string(s.part()) + " (at most " + std::to_string(kMaxHistoryParts) +
           " an interval)";
  }
  for (const v1::HistoryEvent& e : s.history()) {
    if (!v1::HistoryEvent::Type_IsValid(e.type())) return "a snapshot with a history event of unknown type";
    if (e.mops_size() > kMaxHistoryMops) {
      return "a snapshot with a transaction of " + std::to_string(e.mops_size()) + " micro-operations (at most " +
             std::to_string(kMaxHistoryMops) + ")";
    }
  }
  return "";
}

}  // namespace

std::string AgentNameProblem(std::string_view name) {
  if (name.empty()) return "an empty agent name";
  if (name.size() > kMaxAgentNameLength) {
    return "an agent name of " + std::to_string(name.size()) + " characters (at most " +
           std::to_string(kMaxAgentNameLength) + ")";
  }
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!ok) return "an agent name with a character other than letters, digits, '-', '_' or '.'";
  }
  return "";
}

std::string SnapshotProblem(const v1::Snapshot& s, std::string_view session_agent) {
  // Its own name, or ITS_NAME+LOST for a lost agent's share it took over
  // (agents.on_loss: redistribute).
  const std::string_view agent = s.agent();
  const bool own = agent == session_agent ||
                   (agent.size() > session_agent.size() + 1 && agent.substr(0, session_agent.size()) == session_agent &&
                    agent[session_agent.size()] == '+');
  if (!own) return "a snapshot in the name of agent '" + Cut(agent) + "'";
  if (s.end_ns() < s.start_ns()) return "a snapshot whose interval ends before it starts";
  if (s.ops_size() > kMaxOpsPerSnapshot) {
    return "a snapshot with " + std::to_string(s.ops_size()) + " ops (at most " + std::to_string(kMaxOpsPerSnapshot) +
           ")";
  }
  if (s.endpoints_size() > kMaxEndpointsPerSnapshot) {
    return "a snapshot with " + std::to_string(s.endpoints_size()) + " endpoints (at most " +
           std::to_string(kMaxEndpointsPerSnapshot) + ")";
  }
  for (const v1::OpStats& op : s.ops()) {
    if (std::string why = OpProblem(op); !why.empty()) return "a snapshot in which " + why;
  }
  if (std::string why = HistoryProblem(s); !why.empty()) return why;
  return AnomalyProblem(s);
}

bool NodeStatsSane(const v1::Hello& hello, const v1::NodeStats& s) {
  constexpr int64_t kMaxBytes = int64_t{1} << 50;
  const auto bytes_ok = [&](int64_t b) { return b == -1 || (b >= 0 && b <= kMaxBytes); };
  const bool cpu_ok = s.cpu_s() == -1 || (s.cpu_s() >= 0 && s.cpu_s() <= 100.0 * 365 * 86400);
  if (!bytes_ok(s.disk_bytes()) || !bytes_ok(s.rss_bytes()) || !cpu_ok) return false;
  for (const std::string& n : hello.nodes()) {
    if (n == s.node()) return true;
  }
  return false;
}

}  // namespace stampede::coordinator
