// A phase's consistency anomalies (docs/consistency.md): what the
// workload's checks found, summed from the journal's seconds, with examples
// and the seconds they were seen in; in summary.json and report.md.
#ifndef STAMPEDE_REPORT_ANOMALIES_H_
#define STAMPEDE_REPORT_ANOMALIES_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "record/records.h"
#include "record/second.h"

namespace stampede::report {

struct PhaseAnomalies {
  std::map<std::string, uint64_t> counts;        // by kind
  std::vector<record::AnomalyExample> examples;  // the first kExamplesPerKind of each kind, by time
  std::vector<double> seconds;                   // t of each second with any (s since the run started)
  uint64_t total() const;

  // The history check's (append): transactions checked, final keys, note.
  bool history_checked = false;
  uint64_t transactions = 0, final_keys = 0;
  std::string history_note;
  uint64_t history_missing = 0;             // events the agents could not send: the result is unknown
  std::string history_unknown;              // why events may be missing besides
  std::string isolation;                    // the level the history was judged against
  std::map<std::string, uint64_t> allowed;  // kinds found that it allows (not in counts)
  // Why what the history check found is not the whole answer, or "".
  std::string HistoryUnknown() const;

  static constexpr size_t kExamplesPerKind = 10;
  void Add(const record::Second& s);
  void Add(const record::HistoryChecked& h);

 private:
  void AddExamples(const std::vector<record::AnomalyExample>& list);
};

nlohmann::json AnomaliesToJson(const PhaseAnomalies& a);
// "Consistency: 0 anomalies." or a table of kinds with examples; "" for a
// phase whose workload checks nothing (and found nothing).
std::string AnomaliesMarkdown(const PhaseAnomalies& a, const std::string& workload);
// One example in words: "read total 987, expected 1000 (127.0.0.1:5432,
// agent a1, 3.2 s)".
std::string DescribeAnomaly(const record::AnomalyExample& e);
// Workloads that check consistency: their phases say "0 anomalies" too.
bool ChecksConsistency(const std::string& workload);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_ANOMALIES_H_
