// stampede compare: runs side by side in the origin's recap style, one
// column per run, one row per measure (a step's time, an op's ops/s and
// p99, a fault's recovery numbers), the best and worst of each row marked.
// Built from each run's summary.json.
#ifndef STAMPEDE_REPORT_COMPARE_H_
#define STAMPEDE_REPORT_COMPARE_H_

#include <optional>
#include <string>
#include <vector>

#include "report/journal.h"

namespace stampede::report {

struct CompareRow {
  std::string label;  // "insert InsertOne s", "mixed read ops/s", ...
  bool higher_is_better = false;
  std::vector<std::optional<double>> values;  // one per run; empty: the run has none
  int best = -1, worst = -1;                  // run indexes (-1: not marked)
};

struct Comparison {
  std::vector<std::string> runs;   // column headers: each run's directory, as given
  std::vector<std::string> about;  // per run: run id, plan, start (two runs may share an id)
  std::vector<CompareRow> rows;
};

// summaries: each run's summary.json; dirs: where each was read from.
Comparison Compare(const std::vector<Json>& summaries, const std::vector<std::string>& dirs);
std::string RenderCompareMarkdown(const Comparison& c);
std::string RenderCompareHtml(const Comparison& c);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_COMPARE_H_
