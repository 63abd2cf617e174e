// The coordinator: the gRPC server agents dial, and the runner of plans.
//
// Start() binds and serves; runs go one at a time (RunPlan from the
// embedded CLI, SubmitRun over gRPC; a second concurrent one is refused).
// A daemon (options.resume) takes back the unfinished run it finds in its
// results root, from the run's journal, when it starts: the run's agents
// dial in again and hand in what they spooled meanwhile. Followers (the
// submitter, or a Follow call) see every run through its RunFeed.
// Thread-safe.
#ifndef STAMPEDE_COORDINATOR_COORDINATOR_H_
#define STAMPEDE_COORDINATOR_COORDINATOR_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/mutex.h"
#include "common/status.h"
#include "coordinator/access.h"
#include "coordinator/agent_registry.h"
#include "coordinator/run_controller.h"
#include "coordinator/run_feed.h"
#include "proto/stampede.pb.h"

namespace stampede::coordinator {

struct CoordinatorOptions {
  std::string listen = "127.0.0.1:7878";  // port 0 picks a free port
  std::string results_root = "results";
  std::shared_ptr<grpc::ServerCredentials> credentials;  // default: insecure
  // Dashboard, JSON API and /metrics (HOST:PORT; port 0 picks one); empty: off.
  std::string http;
  // Push the metrics to this Pushgateway (http://HOST:PORT) during runs.
  std::string pushgateway;
  // A daemon: its runs can be taken back by a restarted coordinator, and it
  // takes back an unfinished one when it starts.
  bool resume = false;
  // Who may submit and abort runs; agents' names against their certificates.
  AccessPolicy access;
  // The run history (an SQLite file or a PostgreSQL URL) that expectations
  // relative to history read their medians from, and the Runs page shows;
  // empty: none.
  std::string history;
  // A daemon records each run it finishes there (`stampede run` records
  // its own embedded coordinator's runs itself); with the version it runs.
  bool record_runs = false;
  std::string version;
};

class Coordinator {
 public:
  explicit Coordinator(CoordinatorOptions options);
  ~Coordinator();

  // Binds the listen address. "cannot listen on ADDR: <reason>" on failure.
  // With options.resume, also takes back an unfinished run (in the
  // background).
  Status Start();
  int port() const { return port_; }
  int http_port() const;
  std::string address() const;

  // Runs a validated plan to completion (or abort) and writes its results,
  // on the calling thread. results_dir overrides results_root/<run-id> when
  // not empty.
  v1::RunResult RunPlan(const v1::Plan& plan, const std::string& plan_yaml, const std::string& results_dir,
                        RunObserver* observer);
  // Starts a run on a thread of the coordinator's and returns its feed;
  // null if a run is in progress.
  std::shared_ptr<RunFeed> SubmitPlan(const v1::Plan& plan, const std::string& plan_yaml);
  // The feed of run_id ("": the latest run); null if not here.
  std::shared_ptr<RunFeed> Feed(const std::string& run_id);

  // Aborts a run in progress (its results are still written, its faults
  // undone) and stops serving.
  void Shutdown();
  bool shutting_down() const { return shutting_down_.load(); }

  AgentRegistry& registry() { return registry_; }

 private:
  class Service;
  class ShutdownObserver : public RunObserver {
   public:
    explicit ShutdownObserver(const Coordinator* owner) : owner_(owner) {}
    bool Cancelled() override { return owner_->shutting_down(); }

   private:
    const Coordinator* owner_;
  };
  struct Live;  // the dashboard's and /metrics' view of the runs
  bool TryBegin(const std::shared_ptr<RunFeed>& feed);
  void RecordInHistory(const std::string& dir);
  void EndRun();
  v1::RunResult RunWithFeed(RunOptions options, const std::shared_ptr<RunFeed>& feed);
  // An unfinished resumable run in the results root: its directory.
  std::string FindUnfinishedRun(std::string* run_id) const;

  CoordinatorOptions options_;
  AgentRegistry registry_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::atomic<bool> shutting_down_{false};
  ShutdownObserver shutdown_observer_{this};
  std::unique_ptr<Live> live_;  // after registry_: its server reads the registry
  std::thread monitor_;         // cancels the sessions of silent agents

  Mutex run_mu_;
  std::condition_variable run_cv_;
  bool busy_ ABSL_GUARDED_BY(run_mu_) = false;              // a run is in progress
  std::shared_ptr<RunFeed> feed_ ABSL_GUARDED_BY(run_mu_);  // the latest run's
  std::thread run_thread_ ABSL_GUARDED_BY(run_mu_);         // submitted or resumed runs
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_COORDINATOR_H_
