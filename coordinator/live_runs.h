// What the coordinator's HTTP endpoint shows: the runs it has run (the
// current one from its journal lines in memory, earlier ones from their
// results directories), /metrics, and the dashboard's files.
//
//   GET /                      the dashboard (web/dashboard)
//   GET /api/runs              [{run_id, plan_name, status, started_at, results_dir}]
//   GET /api/runs/current      the run view (report/run_view.h) of the latest run
//   GET /api/runs/RUN_ID       the same for one run
//   GET /metrics               Prometheus text format
//
// Thread-safe: journal lines arrive from the run's threads, requests from
// the HTTP server's.
#ifndef STAMPEDE_COORDINATOR_LIVE_RUNS_H_
#define STAMPEDE_COORDINATOR_LIVE_RUNS_H_

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "metrics/metrics_exporter.h"
#include "record/records.h"
#include "report/journal.h"
#include "report/run_view.h"
#include "web/http_server.h"

namespace stampede::coordinator {

// An agent connected now, as its hello declared it (GET /api/agents).
struct ConnectedAgent {
  std::string name;
  std::map<std::string, std::string> labels;
  std::vector<std::string> nodes;
  uint32_t capacity = 0;
  std::string version;
};

class LiveRuns {
 public:
  // connected(): the agents connected now.
  explicit LiveRuns(std::function<std::vector<ConnectedAgent>()> connected);

  // Where the run history and the results are, for the Runs page
  // (coordinator/history_pages.h); before the server starts.
  void SetHistory(std::string history, std::string results_root) {
    history_ = std::move(history);
    results_root_ = std::move(results_root);
  }
  void RunStarting(const std::string& plan_yaml);
  void OnRecord(const record::Record& r);
  web::HttpResponse Handle(const std::string& target);

  metrics::MetricsExporter& metrics() { return metrics_; }

 private:
  // The view as the API serves it: the connected and lost agents, the plan.
  report::Json Decorate(report::Json view, const std::string& plan_yaml, bool empty) const;
  web::HttpResponse CurrentView();

  std::vector<std::string> ConnectedNames() const;
  web::HttpResponse AgentsList() const;

  std::function<std::vector<ConnectedAgent>()> connected_;
  std::string history_, results_root_;
  metrics::MetricsExporter metrics_;
  mutable Mutex mu_;
  struct Run {
    std::string run_id, plan_name, started_at, status = "running", dir;
  };
  std::vector<Run> runs_ ABSL_GUARDED_BY(mu_);
  // The latest run's view, updated record by record: a few numbers a
  // second for the charts, running totals for the rest (bench/soak).
  report::RunViewBuilder current_ ABSL_GUARDED_BY(mu_);
  std::string current_plan_yaml_ ABSL_GUARDED_BY(mu_);
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;  // which run current_ holds
  // The current run's view as last built (from which run, how many records,
  // when): polls within the second are answered from it.
  std::string view_ ABSL_GUARDED_BY(mu_);
  uint64_t view_generation_ ABSL_GUARDED_BY(mu_) = 0;
  size_t view_records_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t view_built_ns_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_LIVE_RUNS_H_
