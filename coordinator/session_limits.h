// What the coordinator accepts from an agent session. An agent that breaks
// these (another agent's name in its snapshots, corrupt histograms, absurd
// counts) is disconnected with the reason logged; the run treats it as a
// lost agent (its plan's agents.on_loss) and goes on with the others.
#ifndef STAMPEDE_COORDINATOR_SESSION_LIMITS_H_
#define STAMPEDE_COORDINATOR_SESSION_LIMITS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "proto/stampede.pb.h"

namespace stampede::coordinator {

inline constexpr size_t kMaxAgents = 10000;       // sessions per coordinator
inline constexpr int kMaxMessageBytes = 4 << 20;  // any gRPC message, either way
inline constexpr size_t kMaxAgentNameLength = 128;
inline constexpr int kMaxOpsPerSnapshot = 256;  // op names in one snapshot
inline constexpr int kMaxEndpointsPerSnapshot = 1024;
// An agent keeps 10 examples per event loop and phase (agent/worker_stats.h).
inline constexpr int kMaxAnomalyExamplesPerSnapshot = 1024;
inline constexpr uint64_t kMaxOpsPerAgentSecond = 1000000000;  // far beyond any one client host
// Parts of one interval's history (v1::Snapshot.part): 3 MB each, 3 GB a
// second.
inline constexpr uint32_t kMaxHistoryParts = 1024;

// Empty if the hello's name is acceptable, else why not.
std::string AgentNameProblem(std::string_view name);
// Empty if `s`, received on the session of agent `session_agent`, is
// well-formed, else a one-line reason.
std::string SnapshotProblem(const v1::Snapshot& s, std::string_view session_agent);
// Whether a node sample names a node the agent's hello declared and holds
// numbers a node can have (sizes up to 1 PB, CPU up to 100 years, -1: not
// known).
bool NodeStatsSane(const v1::Hello& hello, const v1::NodeStats& s);

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_SESSION_LIMITS_H_
