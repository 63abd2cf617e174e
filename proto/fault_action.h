// The fault actions a plan may name and an agent may carry out: the one
// list the plan loader checks against and the agent's fault actions
// implement (the proto's Fault.action and FaultCommand.action carry one).
#ifndef STAMPEDE_PROTO_FAULT_ACTION_H_
#define STAMPEDE_PROTO_FAULT_ACTION_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

namespace stampede {

// Process faults: kill (SIGKILL), stop (graceful), pause / resume (SIGSTOP /
// SIGCONT), start, restart (stop, then start). Network faults
// (agent/network_faults.h): partition (cut off from the other cluster
// nodes), blackhole (cut off from everyone), delay, loss, bandwidth, and
// heal (undo every network fault on the node); through the agent's fault
// proxy (agent/fault_proxy.h) also reset, timeout and slow-close. Disk: fill (allocate a file on the
// node's data directory's filesystem until only `free` bytes are left;
// heal releases it, agent/disk_faults.h) and slow-disk (throttle the
// node's I/O on its data directory's device, agent/slow_disk.h). Topology changes: join (bring a
// new node into the cluster) and leave (take one out gracefully, its data
// moved away), each the agent's own command for that node.
inline constexpr std::array<std::string_view, 19> kFaultActions = {
    "kill",      "stop",  "pause",   "resume",     "start", "restart", "partition", "blackhole", "delay",    "loss",
    "bandwidth", "reset", "timeout", "slow-close", "heal",  "join",    "leave",     "fill",      "slow-disk"};

inline constexpr std::array<std::string_view, 9> kNetworkFaultActions = {
    "partition", "blackhole", "delay", "loss", "bandwidth", "reset", "timeout", "slow-close", "heal"};

inline bool IsFaultAction(std::string_view action) {
  return std::find(kFaultActions.begin(), kFaultActions.end(), action) != kFaultActions.end();
}

inline bool IsNetworkFaultAction(std::string_view action) {
  return std::find(kNetworkFaultActions.begin(), kNetworkFaultActions.end(), action) != kNetworkFaultActions.end();
}

// A network fault that may apply one way only (direction: in | out | both).
inline bool IsDirectedAction(std::string_view action) {
  return action == "partition" || action == "blackhole" || action == "loss" || action == "delay" ||
         action == "bandwidth";
}

// A fault either the proxy or the kernel can apply (method: proxy | kernel).
inline bool HasMethod(std::string_view action) { return action == "delay" || action == "bandwidth"; }

// An action that changes which nodes make up the cluster. It is not undone
// when a run ends early, and its numbers count from when it was asked for:
// the action is the data moving, so the time it took is part of them.
inline bool IsTopologyAction(std::string_view action) { return action == "join" || action == "leave"; }

// An action that puts a node back rather than taking it away: its recovery
// numbers have the outage as their baseline.
inline bool IsRestoringAction(std::string_view action) {
  return action == "start" || action == "resume" || action == "heal";
}

// Bounds of a network fault's numbers, checked by the plan loader and again
// by the agent.
inline constexpr uint32_t kMaxNetDelayMs = 60000;
inline constexpr uint64_t kMinBandwidth = 1024, kMaxBandwidth = uint64_t{1} << 40;
// A fill's `free`: at most 1 PiB.
inline constexpr uint64_t kMaxFillFreeBytes = uint64_t{1} << 50;

// An impairment that heal undoes: a network fault, a fill, a slow disk.
inline bool IsDiskFaultAction(std::string_view action) { return action == "fill" || action == "slow-disk"; }
inline bool IsHealedAction(std::string_view action) {
  return IsNetworkFaultAction(action) || IsDiskFaultAction(action);
}
inline constexpr uint32_t kMaxSlowDiskIops = 1000000;

}  // namespace stampede

#endif  // STAMPEDE_PROTO_FAULT_ACTION_H_
