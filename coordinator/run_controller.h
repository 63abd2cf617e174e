// Runs one plan across the connected agents: waits for them, hands out
// assignments, prepares and aligns the start of each phase, merges and
// journals their snapshots, and writes the results directory.
//
// Run() blocks the calling thread. Session callbacks arrive on gRPC threads;
// all shared state is under mu_.
#ifndef STAMPEDE_COORDINATOR_RUN_CONTROLLER_H_
#define STAMPEDE_COORDINATOR_RUN_CONTROLLER_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <thread>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/agent_registry.h"
#include "coordinator/phase_merger.h"
#include "proto/stampede.pb.h"
#include "report/journal.h"

namespace stampede::coordinator {

// How a run talks back to whoever started it (the CLI, or a SubmitRun call).
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void OnProgress(const v1::Progress& progress) { (void)progress; }
  virtual void OnLog(const std::string& line) { (void)line; }
  // Polled; true aborts the run (results are still written).
  virtual bool Cancelled() { return false; }
};

struct RunOptions {
  v1::Plan plan;
  std::string plan_yaml;     // as run, no secrets
  std::string results_root;  // results/<run-id>/ goes here
  std::string results_dir;   // exact directory instead (--results)
  RunObserver* observer = nullptr;
  // Every journal line, as it is written (any thread): the dashboard and
  // /metrics. Must be thread-safe.
  std::function<void(const report::Json&)> on_line;
};

class RunController : public SessionListener {
 public:
  RunController(RunOptions options, AgentRegistry* registry);

  v1::RunResult Run();

  void OnSnapshot(const std::string& agent, const v1::Snapshot& snapshot) override;
  void OnEvent(const std::string& agent, const v1::Event& event) override;
  void OnAgentLost(const std::string& agent) override;

 private:
  enum class Wait { kDone, kError, kCancelled };
  // Waits until every agent in `waiting` has sent event kind for phase, or
  // an error/loss/cancel happens.
  Wait WaitForEvents(v1::Event::Kind kind, uint32_t phase, const std::set<std::string>& agents,
                     bool flush_seconds);
  void Broadcast(const v1::CoordinatorMessage& m, const std::set<std::string>& to);
  // Sends the current phase's faults whose time has come.
  void SendDueFaults();
  void StartHealthPoller();
  void StopHealthPoller();
  void FlushSeconds(bool all);
  void Emit(const report::Json& line);
  void Log(const std::string& line);
  v1::RunResult Finish(bool ok, const std::string& error);
  bool Cancelled();

  RunOptions options_;
  AgentRegistry* registry_;
  std::string run_id_;
  std::string dir_;
  report::JournalWriter journal_;
  std::atomic<bool> journal_failed_{false};
  int64_t run_start_ns_ = 0;
  int64_t run_deadline_ns_ = 0;  // 0: none
  std::vector<std::shared_ptr<AgentSession>> agents_;
  std::map<std::string, std::shared_ptr<AgentSession>> node_owner_;
  struct DueFault {
    int index;
    int64_t at_ns;         // coordinator clock (PHASE+DURATION)
    uint64_t at_ops = 0;   // operations done in the phase (PHASE@PERCENT)
  };
  std::atomic<uint64_t> phase_ops_{0};  // operations in the current phase's flushed lines
  // The current (expanded) phase's flushed operations: done and missed.
  std::atomic<uint64_t> phase_done_{0};
  std::atomic<uint64_t> phase_missed_{0};
  std::vector<DueFault> due_faults_;  // run thread only; current phase
  std::thread health_thread_;
  std::atomic<bool> health_stop_{false};

  std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> active_;                                // guarded by mu_
  std::set<std::string> lost_;                                  // guarded by mu_
  std::map<std::string, int64_t> events_;                       // guarded by mu_ (agent -> time)
  uint32_t events_phase_ = 0;                                   // guarded by mu_
  v1::Event::Kind events_kind_ = v1::Event::UNKNOWN;            // guarded by mu_
  std::optional<std::string> error_;                            // guarded by mu_
  std::map<std::string, int64_t> owed_;                         // guarded by mu_ (PHASE_READY)
  bool phase_timed_out_ = false;                                // guarded by mu_
  std::unique_ptr<PhaseMerger> merger_;                         // guarded by mu_
  uint32_t phase_index_ = 0;                                    // guarded by mu_
  std::string phase_name_;                                      // guarded by mu_
  std::vector<report::Json> lines_;                             // guarded by mu_ (to journal)
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_RUN_CONTROLLER_H_
