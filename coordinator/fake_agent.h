// A scripted agent for unit tests of the run controller: no gRPC, no runner,
// no database. It is served by the coordinator's own ServeAgent through an
// in-memory link (coordinator/agent_link.h), so the welcome, heartbeats,
// snapshot checks and the loss path are the daemon's. It answers what a
// real agent answers (PHASE_READY, a snapshot a second, PHASE_DONE, fault
// results, CLEANUP_DONE), as its script says, on the same clock as the
// coordinator (one process).
//
//   AgentRegistry registry;
//   FakeAgentScript slow;
//   slow.ready_delay_ns = 2 * kNsPerSec;
//   FakeAgent a(&registry, "a1", slow);   // connects at once
//   RunController run(options, &registry); registry.SetListener(...);
//
// Thread-safety: the script is fixed at construction. What it received
// may be read from any thread; Reconnect() from one test thread at a time.
#ifndef STAMPEDE_COORDINATOR_FAKE_AGENT_H_
#define STAMPEDE_COORDINATOR_FAKE_AGENT_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "coordinator/agent_link.h"
#include "coordinator/agent_registry.h"

namespace stampede::coordinator {

struct FakeAgentScript {
  std::vector<std::string> nodes;  // the nodes it may act on (faults)
  int64_t ready_delay_ns = 0;      // from PreparePhase to PHASE_READY
  uint64_t ok_per_second = 1000;   // ok operations in each second of a phase
  bool fail_faults = false;        // every fault action: FAULT_FAILED
  // The link drops this long after phase `drop_phase` starts (-1: never).
  int drop_phase = -1;
  int64_t drop_after_ns = 0;
  // It sends nothing more (the link stays open) from phase `silent_phase`'s
  // start: a hung agent.
  int silent_phase = -1;
};

class FakeAgent {
 public:
  // Connects at once with a hello (no run position).
  FakeAgent(AgentRegistry* registry, std::string name, FakeAgentScript script = {});
  ~FakeAgent();
  FakeAgent(const FakeAgent&) = delete;
  FakeAgent& operator=(const FakeAgent&) = delete;

  // A new session of the same agent after a drop: `running` says whether
  // its runner went on (the same process) or it is a new process.
  void Reconnect(bool running);

  // What the coordinator sent, in order (a copy).
  std::vector<v1::CoordinatorMessage> Received() const;
  // The number of messages of this kind received.
  int CountReceived(v1::CoordinatorMessage::MsgCase kind) const;
  // The first message of this kind, and when it came (monotonic ns); an
  // empty message and 0 if none did.
  v1::CoordinatorMessage Received(v1::CoordinatorMessage::MsgCase kind) const;
  int64_t ReceivedAt(v1::CoordinatorMessage::MsgCase kind) const;

 private:
  class QueueLink;
  struct Phase {
    uint32_t index = 0;
    int64_t start_ns = 0;  // 0: not started
    int64_t end_ns = 0;
    uint32_t next_seq = 0;
    bool done = false;
  };

  void Connect(const v1::RunPosition& position);
  void Close();
  void AgentLoop(std::shared_ptr<QueueLink> link);
  void Handle(const v1::CoordinatorMessage& m, QueueLink* link);
  void OnPrepare(const v1::PreparePhase& p);
  void OnStart(const v1::StartPhase& s);
  // Sends what is due at now_ns; returns when it next has something to do.
  int64_t Tick(int64_t now_ns, QueueLink* link);
  void SendSeconds(int64_t now_ns, QueueLink* link);
  void SendEvent(QueueLink* link, v1::Event::Kind kind, uint32_t phase, int64_t owed = -1, uint32_t fault = 0,
                 const std::string& message = "");

  AgentRegistry* const registry_;
  const std::string name_;
  mutable Mutex mu_;
  FakeAgentScript script_;
  std::vector<v1::CoordinatorMessage> received_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> received_ns_ ABSL_GUARDED_BY(mu_);
  // Agent-thread state.
  std::string run_id_;
  v1::Plan plan_;
  Phase phase_;
  int64_t ready_at_ns_ = 0;  // a PHASE_READY is due then (0: none)
  int64_t drop_at_ns_ = 0;
  bool silent_ = false;
  int64_t next_beat_ns_ = 0;

  std::shared_ptr<QueueLink> link_;
  std::thread serve_;  // the coordinator's side: ServeAgent
  std::thread agent_;  // the agent's side
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_FAKE_AGENT_H_
