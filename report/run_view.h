// The JSON a dashboard draws from a run's records: its header, one time
// series per chart (ops/s by op, p50/p99, errors by outcome, active
// workers), phase spans, fault markers with their recovery numbers, health
// polls and the summary tables. The live dashboard (/api/runs/...) and
// report.html use the same view, so they show the same picture.
//
// RunViewBuilder takes the records as they are written and keeps a few
// numbers per second for the charts, not the records: a live run's view is
// updated record by record, and building it costs what the charts hold.
#ifndef STAMPEDE_REPORT_RUN_VIEW_H_
#define STAMPEDE_REPORT_RUN_VIEW_H_

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "record/records.h"
#include "report/journal.h"
#include "report/move_progress.h"
#include "report/run_summary.h"

namespace stampede::report {

// Not thread-safe.
class RunViewBuilder {
 public:
  void Add(const record::Record& r);
  void Add(const Json& line);  // decoded; a line of a kind not known is skipped

  // status: "running" until the journal's end line, then "ok", "degraded"
  // or "failed".
  Json View() const { return View(Summary()); }
  Json View(const RunSummary& summary) const;  // with Summary() computed once
  RunSummary Summary() const { return summary_.Result(); }
  size_t records() const { return records_; }

 private:
  struct Poll {
    double t = 0;
    bool healthy = false;
    std::string detail;
  };
  void AddSecond(const record::Second& second);
  void AddMove(const record::Record& r);
  void AddPoint(const record::Second& second);
  void AddPoll(const record::HealthPoll& poll);
  void AddShares(const record::HealthPoll& poll);

  SummaryBuilder summary_;
  size_t records_ = 0;
  Json header_ = Json::object();
  Json phases_ = Json::array();
  // Health polls: the first and the latest of each stretch of the same
  // state (what the charts shade and the header shows), not every poll.
  std::vector<Poll> health_;
  std::vector<std::string> logs_;
  std::string status_ = "running", error_, phase_;
  Json progress_;  // the phase in progress: how far it is (null: not known)
  // A join's or leave's data move under way (null: none).
  MoveProgress move_;
  Json move_view_;
  // The charts: one point per second (a phase's last sliver excepted).
  std::vector<double> t_, p50_, p99_, active_;
  std::vector<double> saturated_;      // per point: the agents saturated in it (0: none)
  std::vector<double> anomalies_;      // per point: consistency anomalies found in it
  std::vector<uint32_t> point_phase_;  // each point's phase index
  // Which ops each phase runs: in a second without any of them (an outage)
  // they are 0; ops of other phases are null there (NaN here: a gap, not a dip).
  std::map<uint32_t, std::set<std::string>> phase_ops_;
  std::map<std::string, std::vector<double>> ops_;     // op -> ops/s
  std::map<std::string, std::vector<double>> errors_;  // outcome -> errors/s
  // Where the data is, per health poll that said (the share chart): each
  // node's share (null before it appeared or after it left).
  std::string share_unit_;
  std::vector<double> share_t_;
  std::map<std::string, std::vector<double>> shares_;
  static constexpr size_t kMaxShareSeries = 64;
  static constexpr size_t kMaxSharePolls = 86400;
};

Json BuildRunView(const std::vector<Json>& journal);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_RUN_VIEW_H_
