// Runs one plan across the connected agents: waits for them, hands out
// assignments, prepares and aligns the start of each phase, merges and
// journals their snapshots, and writes the results directory.
//
// It holds up when its own parts fail: an agent silent for 3 s is lost
// (agents.on_loss: abort ends the run; continue goes on without its share;
// redistribute hands its share of a timed open-loop phase to another agent
// at once), and one that comes back under the same name rejoins (its runner
// still going, or from the next second of a timed open-loop phase, or from
// the next phase). Whatever the run's faults stopped, paused or killed is
// undone when the run ends before its plan did (plan/fault_ledger.h).
//
// Run() blocks the calling thread. Session callbacks arrive on gRPC threads;
// all shared state is under mu_.
#ifndef STAMPEDE_COORDINATOR_RUN_CONTROLLER_H_
#define STAMPEDE_COORDINATOR_RUN_CONTROLLER_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "coordinator/agent_registry.h"
#include "coordinator/fault_schedule.h"
#include "coordinator/health_poller.h"
#include "coordinator/history_file.h"
#include "coordinator/phase_barrier.h"
#include "coordinator/phase_merger.h"
#include "plan/fault_ledger.h"
#include "proto/stampede.pb.h"
#include "record/records.h"
#include "report/journal.h"
#include "report/move_progress.h"

namespace stampede::coordinator {

// How a run talks back to whoever started it (the CLI, or a SubmitRun call).
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // The run has its id and results directory (its run line is journalled).
  virtual void OnStarted(const std::string& run_id, const std::string& results_dir) {
    (void)run_id;
    (void)results_dir;
  }
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
  // Every record of the run, as it is journalled (any thread): the
  // dashboard and /metrics. Must be thread-safe.
  std::function<void(const record::Record&)> on_record;
  // A coordinator daemon (not `stampede run`'s embedded one): a restarted
  // coordinator may take the run back from its journal.
  bool resumable = false;
  // Take back the unfinished run in this results directory instead of
  // starting the plan (a restarted coordinator).
  std::string resume_dir;
  // The run history: the plan's earlier runs, for expectations relative to
  // history (read at the start into the journal's run line); empty: none.
  std::string history;
};

class RunController : public AgentListener {
 public:
  RunController(RunOptions options, AgentRegistry* registry);
  ~RunController() override;

  v1::RunResult Run();
  // A restarted coordinator, before it serves: reads the run's journal
  // (options.resume_dir) so that the run's agents are welcomed back in it.
  Status LoadForResume();
  const std::string& run_id() const { return run_id_; }

  void OnSnapshot(const std::string& agent, const v1::Snapshot& snapshot) override;
  void OnEvent(const std::string& agent, const v1::Event& event) override;
  void OnNodeStats(const std::string& agent, const v1::NodeStats& stats) override;
  void OnAgentLost(const std::string& agent, const std::string& reason) override;
  void OnAgentJoined(const std::shared_ptr<RemoteAgent>& session, v1::Welcome* welcome) override;

 private:
  // One agent of the run, by name.
  struct Agent {
    uint32_t index = 0;                    // in the assignment
    std::shared_ptr<RemoteAgent> session;  // null while lost
    bool active = false;                   // its results are awaited in the current phase
    bool lost = false;                     // lost and not back (yet)
    bool join_pending = false;             // back, waiting for the run thread to take it in
    bool joining = false;                  // preparing to join the phase in progress
  };
  using Mark = PhaseBarrier::Mark;
  // How long a second waits for a late agent's snapshot before its line is
  // journalled without it (PhaseMerger), in a phase begun or taken back.
  static constexpr int64_t kMergeGraceNs = 2'000'000'000;
  enum class Wait { kDone, kError, kCancelled, kTimedOut };

  Status Begin();
  Status Resume(int* first_phase, bool* in_progress);
  // Resume's steps (run_controller_resume.cc).
  struct Replay;
  void ReplayLocked(const std::vector<record::Record>& journal, Replay* r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReplayFaultLocked(const record::FaultSent& fault, Replay* r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReplayResultLocked(const record::FaultDone& done, Replay* r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<std::string> AwaitAgentsBack();  // those that did not come back
  void RestorePhaseLocked(int last, Replay* r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Status WaitForAgents();
  Status CheckFaultOwners();
  void SendAssignment(const std::string& name);
  Status RunPhase(int p);
  Status PreparePhase(int p);
  void StartPhase(int p);
  Status EndPhase(int p, Wait w);
  // check_writes: waits for every agent's read-back and emits their sum.
  Status CheckWrites(int p);
  Status RunFinalCleanup();
  // Waits until every agent in `names` that is still active has the mark
  // for phase p (all active agents if names is empty). Runs the run's
  // housekeeping in between: due faults, journal flushes, rejoining agents,
  // the run's timeout.
  // until_ns (monotonic, 0: none): kTimedOut once it has passed.
  Wait WaitFor(Mark mark, uint32_t p, const std::vector<std::string>& names, int64_t until_ns = 0);
  // The agents of `names` (all if empty) that the barrier waits for: those
  // active in the phase.
  std::vector<std::string> AwaitedLocked(const std::vector<std::string>& names) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Tick(bool phase_running);
  void SendDueFaults();
  void TakeInJoins();
  void TakeIn(const std::string& name);
  void StartJoiners();
  void Redistribute(const std::string& lost);
  void Send(const std::string& name, const v1::CoordinatorMessage& m);
  void SendToActive(const v1::CoordinatorMessage& m);
  void FlushSeconds(bool all);
  // The append phases' history (run_controller_history.cc): the merged
  // seconds' events to history.jsonl; after phase p, its check; at the
  // end, history.json.
  struct HistoryBatch {
    uint32_t phase = 0;
    std::vector<v1::HistoryEvent> events;
    uint64_t dropped = 0;
  };
  std::vector<HistoryBatch> TakeHistoryLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void WriteHistory(std::vector<HistoryBatch> batches, bool all = false);
  void CheckHistory(int p);
  void WriteCycles(const std::string& phase, const std::vector<std::pair<std::string, std::string>>& dots);
  void FinishHistory();
  void Emit(const record::Record& r);
  void JournalWritten(const Status& s);
  // What FlushSeconds reads of the phase in progress under mu_.
  struct PhaseEnd {
    int64_t owed = -1;      // operations its schedule owes (-1: not counted)
    double duration_s = 0;  // 0: no time limit
    uint64_t rows = 0;      // a load counted in rows: the rows it will put in (0: not)
  };
  void CountSecond(record::Second* second, const std::string& phase, const PhaseEnd& end);
  // The phase's seconds (elapsed, done) over the last kPaceWindowS, for its
  // time left. Touched by FlushSeconds' caller only.
  static constexpr double kPaceWindowS = 60;
  std::string pace_phase_;
  std::deque<std::pair<double, double>> pace_;
  void ReportSecond(const record::Second& second);
  void Log(const std::string& line);
  void UndoFaults();
  std::vector<uint32_t> InFlightFaultsLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The agent has a session now (not lost, not yet rejoined).
  bool ConnectedLocked(const std::string& agent) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  v1::RunResult Finish(bool ok, const std::string& error);
  bool Cancelled();
  double Since(int64_t mono_ns) const { return double(mono_ns - run_start_ns_) / 1e9; }
  std::vector<std::string> ActiveNamesLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The active agents that generate load (agents.load); all active ones if
  // none of them does.
  std::vector<std::string> LoadNamesLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // slots_ and slot_count_ for the agents in `by_slot`, and with
  // agents.split: capacity their weights.
  void AssignSlotsLocked(const std::vector<std::string>& by_slot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Each agent's role for the journal's run line; an error if agents.load
  // chooses no agent.
  StatusOr<std::map<std::string, std::string>> AgentRoles();

  RunOptions options_;
  AgentRegistry* registry_;
  std::string run_id_;
  // Node samples are journalled between the run line and the end line.
  Mutex node_mu_;
  bool recording_ ABSL_GUARDED_BY(node_mu_) = false;
  void SetRecording(bool on) {
    MutexLock lock(node_mu_);
    recording_ = on;
  }
  std::string dir_;
  Mutex history_mu_;
  HistoryWriter history_ ABSL_GUARDED_BY(history_mu_);
  std::map<uint32_t, uint64_t> history_events_ ABSL_GUARDED_BY(history_mu_);   // by phase index
  std::map<uint32_t, uint64_t> history_dropped_ ABSL_GUARDED_BY(history_mu_);  // by phase index
  // A join's or leave's data movement, for the progress line.
  Mutex move_mu_;
  report::MoveProgress move_ ABSL_GUARDED_BY(move_mu_);
  // By phase index: who lost events it held that no one can count (an
  // agent lost mid-phase that did not come back with its runner going on;
  // a restarted coordinator), and how.
  std::map<uint32_t, std::map<std::string, std::string>> history_gaps_ ABSL_GUARDED_BY(history_mu_);
  void HistoryGap(uint32_t phase, const std::string& who, const std::string& how);
  report::JournalWriter journal_;
  bool journal_open_ = false;
  std::atomic<bool> journal_failed_{false};
  int64_t run_start_ns_ = 0;
  int64_t run_deadline_ns_ = 0;                    // 0: none
  std::vector<std::string> names_;                 // assignment order
  std::map<std::string, std::string> node_owner_;  // node -> agent name
  FaultSchedule faults_{options_.plan};
  HealthPoller health_;
  std::atomic<uint64_t> group_ops_{0};                     // operations of the plan phase in progress (PHASE@PERCENT)
  std::atomic<uint64_t> phase_done_{0};                    // the phase's flushed operations: done
  std::atomic<uint64_t> phase_missed_{0};                  // and missed
  std::atomic<uint64_t> phase_rows_{0};                    // rows a load put in (WorkloadInfo::progress_rows)
  uint64_t phase_progress_rows_ ABSL_GUARDED_BY(mu_) = 0;  // the rows it will put in (0: counted in ops)
  static uint64_t ProgressRowsOf(const v1::Phase& phase);

  Mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Agent> agents_ ABSL_GUARDED_BY(mu_);
  PhaseBarrier barrier_ ABSL_GUARDED_BY(mu_);
  std::optional<std::string> error_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<PhaseMerger>> mergers_ ABSL_GUARDED_BY(mu_);  // by phase
  int phase_ ABSL_GUARDED_BY(mu_) = -1;                                     // in progress
  bool phase_running_ ABSL_GUARDED_BY(mu_) = false;                         // started
  int64_t phase_start_ns_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t phase_owed_ ABSL_GUARDED_BY(mu_) = -1;
  std::map<std::string, v1::WritesCheck> writes_ ABSL_GUARDED_BY(mu_);  // this phase's, by agent
  std::set<std::string> phase_agents_ ABSL_GUARDED_BY(mu_);             // active when this phase started
  std::map<std::string, std::string> adopted_ ABSL_GUARDED_BY(mu_);     // lost -> adopter
  std::vector<std::string> redistribute_ ABSL_GUARDED_BY(mu_);          // lost, to hand over
  std::map<std::string, uint32_t> slots_ ABSL_GUARDED_BY(mu_);          // this phase's
  uint32_t slot_count_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<uint32_t> slot_weights_ ABSL_GUARDED_BY(mu_);  // by slot (agents.split: capacity); empty: even
  std::vector<record::Second> lines_ ABSL_GUARDED_BY(mu_);   // late seconds, to journal
  plan::FaultLedger ledger_ ABSL_GUARDED_BY(mu_){options_.plan};
  std::map<uint32_t, std::optional<bool>> undo_results_ ABSL_GUARDED_BY(mu_);
  std::map<uint32_t, plan::FaultLedger::Undo> undo_actions_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> losses_ ABSL_GUARDED_BY(mu_);  // for the result
  // What is journalled already, so an agent's spool handed in again is not
  // counted twice.
  std::set<uint32_t> fault_results_ ABSL_GUARDED_BY(mu_);
  // What a rolling restart's next step waits for: when each planned fault
  // took effect, and the latest health polls (start, healthy).
  std::map<int, int64_t> fault_done_ns_ ABSL_GUARDED_BY(mu_);
  std::deque<std::pair<int64_t, bool>> recent_polls_ ABSL_GUARDED_BY(mu_);
  static constexpr size_t kRecentPolls = 128;
  void OnHealthPoll(const record::HealthPoll& poll);
  FaultSchedule::Progress RollProgress();
  std::set<uint32_t> faults_sent_ ABSL_GUARDED_BY(mu_);  // planned faults sent
  std::set<std::pair<std::string, std::string>> logged_ ABSL_GUARDED_BY(mu_);
  std::vector<record::Record> resume_journal_;  // LoadForResume -> Resume
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_RUN_CONTROLLER_H_
