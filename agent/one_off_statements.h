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
// Runs statements on the first endpoint that answers; `what` prefixes
// errors.
Status RunOnce(const PhaseRunnerOptions& o, const std::vector<std::string>& statements, const std::string& what);
// After the last phase (the lead): its cleanup, then the plan's.
Status RunFinalCleanup(const PhaseRunnerOptions& o);

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_ONE_OFF_STATEMENTS_H_
