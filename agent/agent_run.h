// The run an agent takes part in: its assignment, the phase runners, the
// fault actions it carries out, and its spool. It outlives the agent's
// sessions with the coordinator:
//
// - a phase goes on to its end when the coordinator is gone, its records
//   kept in the spool; when a coordinator that knows the run is back, the
//   agent hands in what it asks for again (Welcome.resend_from_phase);
// - with no coordinator for coordinator_lost.resume_paused_after, the nodes
//   this agent paused are resumed; after stop_run_after the run is stopped,
//   every fault it made that its plan meant to undo is undone, and the spool
//   is kept for `stampede report --spool`;
// - a coordinator that does not know the run (any more) gets the same.
//
// Thread-safety: the On*() calls come from the session's reader thread,
// Tick() from the agent's timer; everything shared is under mu_. Runners,
// phase setup and fault commands run on threads of their own, never on the
// reader's.
#ifndef STAMPEDE_AGENT_AGENT_RUN_H_
#define STAMPEDE_AGENT_AGENT_RUN_H_

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/agent_config.h"
#include "agent/clock_sync.h"
#include "agent/outbox.h"
#include "agent/phase_runner.h"
#include "agent/spool.h"
#include "agent/thread_cpu.h"
#include "common/mutex.h"
#include "metrics/metrics_exporter.h"
#include "plan/fault_ledger.h"
#include "proto/stampede.pb.h"

namespace stampede::agent {

// How the agent runs its workers: event loops (PhaseRunnerOptions::threads).
struct EngineOptions {
  int threads = 0;
};
inline Status CheckEngine(const EngineOptions& e) {
  if (e.threads < 0 || e.threads > 256) {
    return Status::Invalid("--threads: expected 0 (one per core) to 256, found " + std::to_string(e.threads));
  }
  return Status::Ok();
}

class AgentRun {
 public:
  // All pointers outlive this. metrics and cpu may be null; cpu counts the
  // CPU of every thread this starts as the agent's own (agent/thread_cpu.h).
  AgentRun(std::string name, EngineOptions engine, const AgentConfig* config, Spool* spool, ClockSync* clock,
           Outbox* outbox, metrics::MetricsExporter* metrics, ThreadCpu* cpu = nullptr);
  ~AgentRun();

  // At start-up: takes over a previous process's spool of an unfinished run.
  void LoadPrevious();
  // Where this agent is in a run, for its hello; false if in none.
  bool Position(v1::RunPosition* pos) const;

  // hello_run: the run the hello said this agent was in ("" if none).
  void OnWelcome(const v1::Welcome& welcome, const std::string& hello_run);
  void OnAssignment(const v1::Assignment& assignment);
  void OnPrepare(const v1::PreparePhase& prepare);
  void OnCleanup(const v1::RunCleanup& cleanup);
  void OnStart(const v1::StartPhase& start);
  void OnAdopt(const v1::AdoptShare& adopt);
  void OnFault(const v1::FaultCommand& fault);
  void OnStop(const v1::Stop& stop);
  // The session with the coordinator ended.
  void OnCoordinatorLost();
  // About four times a second: what to do while the coordinator is gone.
  void Tick();
  // The agent is going away: runners stop, faults are undone.
  void Shutdown();

 private:
  struct Phase {
    uint32_t index = 0;
    std::shared_ptr<PhaseRunner> runner;
    int64_t start_ns = 0, join_ns = 0;
    bool started = false, running = false, cancelled = false;
    int adopting = 0;                                   // adopted shares still running
    std::vector<std::shared_ptr<PhaseRunner>> adopted;  // shares taken over, for the writes check
  };
  void PhaseMain(v1::PreparePhase prepare);
  void CleanupMain();
  bool Admit(PhaseRunnerOptions* o);
  // Fills o's passwords from this agent's environment; names the first
  // variable that is not set ("" if none).
  std::string ReadPasswords(PhaseRunnerOptions* o);
  void AdoptMain(v1::AdoptShare adopt, std::shared_ptr<Phase> phase);
  void CheckWrites(uint32_t index, PhaseRunner* runner, const std::vector<std::shared_ptr<PhaseRunner>>& adopted);
  // weights: the share weights of a PreparePhase or AdoptShare (by slot).
  PhaseRunnerOptions RunnerOptions(uint32_t phase, uint32_t slot, uint32_t slots, bool lead, const std::string& source,
                                   const std::vector<uint32_t>& weights = {});
  void FaultMain();
  void Record(uint32_t phase, const v1::AgentMessage& m);
  void Event(v1::Event::Kind kind, uint32_t phase, const std::string& message, int64_t owed = -1,
             bool timed_out = false, const v1::WritesCheck* writes = nullptr, int64_t time_ns = 0);
  // Ends the run here: runners stop, faults this agent made are undone
  // (all of them, or only resumes), the spool is kept or dropped.
  void StopRun(const std::string& why, bool keep_spool);
  void UndoLocal(bool resumes_only, const std::string& why);
  void CancelRunnersLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string name_;
  const EngineOptions engine_;
  const AgentConfig* const config_;
  Spool* const spool_;
  ClockSync* const clock_;
  Outbox* const outbox_;
  metrics::MetricsExporter* const metrics_;
  ThreadCpu* const cpu_;

  mutable Mutex mu_;
  std::condition_variable cv_;
  std::string run_id_ ABSL_GUARDED_BY(mu_);      // "" when in no run
  bool restarted_ ABSL_GUARDED_BY(mu_) = false;  // from a previous process's spool
  bool assigned_ ABSL_GUARDED_BY(mu_) = false;
  v1::Assignment assignment_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<Phase> phase_ ABSL_GUARDED_BY(mu_);  // the latest prepared
  std::thread phase_thread_ ABSL_GUARDED_BY(mu_);      // each joins the one before
  std::vector<std::thread> adopt_threads_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<plan::FaultLedger> ledger_ ABSL_GUARDED_BY(mu_);
  std::deque<v1::FaultCommand> faults_ ABSL_GUARDED_BY(mu_);
  std::thread fault_thread_ ABSL_GUARDED_BY(mu_);
  bool fault_busy_ ABSL_GUARDED_BY(mu_) = false;    // an action is running
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;      // the agent is going away
  int64_t lost_since_ns_ ABSL_GUARDED_BY(mu_) = 0;  // coordinator gone since (0: here)
  bool paused_resumed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_AGENT_RUN_H_
