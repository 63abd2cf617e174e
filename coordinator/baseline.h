// Expectations relative to history ("p99 < 1.2x history",
// docs/history.md): at a run's start, the medians of the plan's earlier
// runs from the run history go into the journal's run line, so that every
// report of the run (now, and `stampede report` later) judges the same.
#ifndef STAMPEDE_COORDINATOR_BASELINE_H_
#define STAMPEDE_COORDINATOR_BASELINE_H_

#include <string>

#include "proto/stampede.pb.h"
#include "record/records.h"

namespace stampede::coordinator {

// Fills run->history, history_window and baseline when the plan has a
// relative expectation and history names a run history. Returns a line for
// the run's log when the history cannot be read ("" otherwise): the
// expectations then pass, saying no history was read.
std::string ReadBaseline(const std::string& history, const v1::Plan& plan, record::RunStart* run);

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_BASELINE_H_
