// Statements run once, outside any phase's measurement: setup before a
// phase, cleanup after it, on the first endpoint that answers.
#ifndef STAMPEDE_AGENT_ONE_OFF_STATEMENTS_H_
#define STAMPEDE_AGENT_ONE_OFF_STATEMENTS_H_

#include <string>
#include <vector>

#include "agent/phase_runner.h"
#include "common/status.h"
#include "drivers/driver.h"

namespace stampede::agent {

// How a worker (or a one-off) connects to target.endpoints[endpoint].
drivers::ConnectOptions ConnectOptionsFor(const PhaseRunnerOptions& o, int endpoint);
// What a list of one-off statements adds up to (a preload's rows), for the
// lines that say how far it is.
struct SetupProgress {
  std::vector<uint64_t> units;  // each statement's (0: not counted)
  std::string unit;             // "keys"
  std::string label;            // "phase kv: preload"
};

// Runs statements on the first endpoint that answers; `what` prefixes
// errors. With progress, a line to o.on_log at most once a second and at
// the end: "phase kv: preload 30% (300,000 of 1,000,000 keys, 2.3 s left)".
Status RunOnce(const PhaseRunnerOptions& o, const std::vector<std::string>& statements, const std::string& what,
               const SetupProgress* progress = nullptr);
// After the last phase (the lead): its cleanup, then the plan's.
Status RunFinalCleanup(const PhaseRunnerOptions& o);

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_ONE_OFF_STATEMENTS_H_
