// What a plan's recorded runs say over time (docs/history.md): where each
// tracked number changed level (runs/change_points.h), and whether the
// latest run sits past the noise of the runs before it.
#ifndef STAMPEDE_RUNS_TRENDS_H_
#define STAMPEDE_RUNS_TRENDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runs/run_record.h"

namespace stampede::runs {

// A tracked number's change of level.
struct LevelChange {
  std::string metric;
  size_t run = 0;  // index in the runs: the first of the new level
  double before = 0, after = 0;
  double change = 0;  // (after - before) / |before|, 0 when before is 0
  bool worse = false;
  double p = 1;
};

// The search for change points costs the square of the runs it looks at:
// it looks at a plan's last runs, this many for `stampede history
// --regressions` and --html, and fewer for the line a run ends with.
inline constexpr size_t kChangeRuns = 200;
inline constexpr size_t kLevelWindow = 30;

// Every metric's change points over the last kChangeRuns of runs (oldest
// first), by metric name, each metric's in run order; run indexes are
// into runs.
std::vector<LevelChange> FindLevelChanges(const std::vector<RunRecord>& runs);

// How the last of runs compares with the runs before it: each tracked
// number against the level since its last change point among the
// kLevelWindow runs before (at least 3 runs),
// past the noise when off by more than 3 standard deviations and 5%.
// "the first run of plan P", "every tracked number within the noise of the
// runs before", or the numbers past it, the worst first.
// earlier: how many runs the plan had before the last (when runs holds
// only the last few of them), else runs.size() - 1.
std::string LatestInWords(const std::vector<RunRecord>& runs, uint64_t earlier = UINT64_MAX);

// A series: the metric's value in each run that has it, and those runs'
// indexes.
std::vector<double> Series(const std::vector<RunRecord>& runs, const std::string& metric, std::vector<size_t>* at);

}  // namespace stampede::runs

#endif  // STAMPEDE_RUNS_TRENDS_H_
