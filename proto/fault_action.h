// The fault actions a plan may name and an agent may carry out: the one
// list the plan loader checks against and the agent's fault actions
// implement (the proto's Fault.action and FaultCommand.action carry one).
#ifndef STAMPEDE_PROTO_FAULT_ACTION_H_
#define STAMPEDE_PROTO_FAULT_ACTION_H_

#include <algorithm>
#include <array>
#include <string_view>

namespace stampede {

// kill (SIGKILL), stop (graceful), pause / resume (SIGSTOP / SIGCONT),
// start, restart (stop, then start).
inline constexpr std::array<std::string_view, 6> kFaultActions = {"kill",   "stop",  "pause",
                                                                  "resume", "start", "restart"};

inline bool IsFaultAction(std::string_view action) {
  return std::find(kFaultActions.begin(), kFaultActions.end(), action) != kFaultActions.end();
}

}  // namespace stampede

#endif  // STAMPEDE_PROTO_FAULT_ACTION_H_
