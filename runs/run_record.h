// A finished run as the run history keeps it (runs/run_store.h): who and
// what it was, its verdict, and the numbers a user tracks from one run of
// a plan to the next, as `stampede compare` names them ("insert InsertOne
// p99 (ms)", "fault 0 kill node3 unavailability (s)").
#ifndef STAMPEDE_RUNS_RUN_RECORD_H_
#define STAMPEDE_RUNS_RUN_RECORD_H_

#include <string>
#include <vector>

#include "common/status.h"

namespace stampede::runs {

struct Metric {
  std::string name;
  double value = 0;
  bool higher_is_better = false;
};

struct RunRecord {
  std::string run_id, plan, plan_hash, version, started_at, target, verdict, dir;
  double duration_s = 0;
  std::vector<Metric> metrics;
  // The verdict's checks that measured a number, by key ("phase insert:
  // p99", report/verdict.h): what expectations relative to history compare.
  std::vector<Metric> checks;
  const Metric* Find(const std::string& name) const;
};

// From a results directory: summary.json (required) and plan.yaml (its
// hash). The version is left to the caller: the results do not say it.
StatusOr<RunRecord> ReadRunRecord(const std::string& dir);

}  // namespace stampede::runs

#endif  // STAMPEDE_RUNS_RUN_RECORD_H_
