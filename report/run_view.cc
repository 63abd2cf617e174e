#include "report/run_view.h"

#include <limits>

#include "common/histogram.h"
#include "record/record_codec.h"
#include "report/fault_cycles.h"
#include "report/headline.h"
#include "report/recovery.h"

namespace stampede::report {
namespace {

constexpr double kGap = std::numeric_limits<double>::quiet_NaN();

Json Series(const std::vector<double>& v) {
  Json out = Json::array();
  for (double x : v) out.push_back(std::isnan(x) ? Json(nullptr) : Json(x));
  return out;
}

}  // namespace

void RunViewBuilder::Add(const Json& line) {
  if (auto r = record::Decode(line)) Add(*r);
}

void RunViewBuilder::Add(const record::Record& r) {
  ++records_;
  summary_.Add(r);
  AddMove(r);
  std::visit(
      record::Overloaded{
          [&](const record::RunStart& x) {
            header_["run_id"] = x.run_id;
            header_["plan_name"] = x.plan_name;
            header_["target"] = x.target;
            header_["started_at"] = x.started_at;
            header_["agents"] = x.agents;
            header_["roles"] = x.roles;
          },
          [&](const record::PhaseStart& x) {
            phase_ = x.phase;
            progress_ = nullptr;
            phases_.push_back({{"name", x.phase}, {"group", x.group}, {"start", x.t}, {"end", nullptr}});
          },
          [&](const record::PhaseEnd& x) {
            if (phases_.empty()) return;
            phases_.back()["end"] = phases_.back().value("start", 0.0) + x.duration_s;
          },
          [&](const record::Second& x) { AddSecond(x); },
          [&](const record::HistoryChecked& x) {
            // Found after the phase: marked on the points they fell in.
            for (const auto& [t, n] : x.seconds) {
              const auto at = std::lower_bound(t_.begin(), t_.end(), t - 1e-6);
              if (at != t_.end()) anomalies_[size_t(at - t_.begin())] += double(n);
            }
          },
          [&](const record::HealthPoll& x) { AddPoll(x); },
          [&](const record::LogLine& x) { logs_.push_back((x.agent.empty() ? "" : x.agent + ": ") + x.message); },
          [&](const record::RunEnd& x) {
            status_ = !x.ok ? "failed" : x.degraded ? "degraded" : "ok";
            error_ = x.error;
          },
          [](const auto&) {},
      },
      r);
}

// Kept: the first and the latest poll of each stretch of the same state.
void RunViewBuilder::AddShares(const record::HealthPoll& x) {
  if (x.shares.empty() || share_t_.size() >= kMaxSharePolls) return;
  share_unit_ = x.share_unit;
  const size_t points = share_t_.size();
  share_t_.push_back(x.t);
  for (const record::NodeShare& n : x.shares) {
    if (!shares_.count(n.node) && shares_.size() >= kMaxShareSeries) continue;
    std::vector<double>& series = shares_[n.node];
    series.resize(points, kGap);
    series.push_back(n.share);
  }
}

void RunViewBuilder::AddPoll(const record::HealthPoll& x) {
  AddShares(x);
  Poll p{x.t, x.healthy, x.answered ? x.detail : x.error};
  const size_t n = health_.size();
  if (n >= 2 && health_[n - 1].healthy == p.healthy && health_[n - 2].healthy == p.healthy) {
    health_.back() = std::move(p);  // the stretch's latest poll
  } else {
    health_.push_back(std::move(p));
  }
}

// A join's or leave's data move, as the progress line says it.
void RunViewBuilder::AddMove(const record::Record& r) {
  if (const auto* run = std::get_if<record::RunStart>(&r)) move_ = MoveProgress(run->recovery.balance_tolerance);
  if (!std::holds_alternative<record::FaultSent>(r) && !std::holds_alternative<record::HealthPoll>(r)) return;
  move_.Add(r);
  const std::optional<MoveStatus> m = move_.Current();
  move_view_ = m && m->total > 0 ? Json{{"what", m->what},   {"ratio", m->ratio}, {"done", m->done},
                                        {"total", m->total}, {"unit", m->unit},   {"left_s", m->left_s}}
                                 : Json(nullptr);
}

void RunViewBuilder::AddSecond(const record::Second& second) {
  if (!second.late && second.phase == phase_ && second.progress >= 0) {
    progress_ = {{"phase", second.phase},
                 {"ratio", second.progress},
                 {"done", second.progress_done},
                 {"total", second.progress_total},
                 {"unit", second.progress_unit},
                 {"left_s", second.left_s},
                 {"phase_t", second.phase_t + second.interval_s}};
  }
  std::set<std::string>& known = phase_ops_[second.index];
  for (const auto& [name, op] : second.ops) {
    if (!known.insert(name).second) continue;
    // An op first seen now: 0, not a gap, in this phase's earlier seconds.
    std::vector<double>& series = ops_[name];
    series.resize(t_.size(), kGap);
    for (size_t i = 0; i < t_.size(); ++i) {
      if (point_phase_[i] == second.index) series[i] = 0;
    }
  }
  // Late lines, and a phase's last sliver, say little per second.
  if (second.late || !second.HasRate()) return;
  AddPoint(second);
}

void RunViewBuilder::AddPoint(const record::Second& second) {
  const double interval = second.interval_s;
  const size_t points = t_.size();
  t_.push_back(second.t);
  point_phase_.push_back(second.index);
  for (const std::string& op : phase_ops_[second.index]) {
    std::vector<double>& series = ops_[op];
    series.resize(points, kGap);
    auto it = second.ops.find(op);
    series.push_back(it == second.ops.end() ? 0.0 : double(it->second.count()) / interval);
  }
  Histogram merged;
  std::map<std::string, double> errs;
  for (const auto& [name, op] : second.ops) {
    for (int i = 1; i < kNumOutcomes; ++i) {
      if (op.outcomes[size_t(i)]) errs[std::string(kOutcomeNames[i])] += double(op.outcomes[size_t(i)]) / interval;
    }
    if (op.missed) errs["missed"] += double(op.missed) / interval;
    merged.Merge(op.latency);
  }
  for (const auto& [outcome, v] : errs) {
    std::vector<double>& series = errors_[outcome];
    series.resize(points, 0.0);
    series.push_back(v);
  }
  p50_.push_back(merged.count() ? double(merged.ValueAtQuantile(0.5)) / 1e6 : 0.0);
  p99_.push_back(merged.count() ? double(merged.ValueAtQuantile(0.99)) / 1e6 : 0.0);
  active_.push_back(double(second.active_workers));
  saturated_.push_back(double(second.SaturatedAgents().size()));
  double anomalies = 0;
  for (const auto& [kind, n] : second.anomalies) anomalies += double(n);
  anomalies_.push_back(anomalies);
}

Json RunViewBuilder::View(const RunSummary& summary) const {
  Json view = header_;
  const size_t points = t_.size();
  Json ops = Json::object(), errors = Json::object();
  for (const auto& [name, s] : ops_) {
    std::vector<double> padded = s;
    padded.resize(points, kGap);
    ops[name] = Series(padded);
  }
  for (const auto& [name, s] : errors_) {
    std::vector<double> padded = s;
    padded.resize(points, 0.0);
    errors[name] = padded;
  }
  view["status"] = status_;
  view["error"] = error_;
  view["phase"] = phase_;
  view["progress"] = status_ == "running" ? progress_ : Json(nullptr);
  view["move"] = status_ == "running" ? move_view_ : Json(nullptr);
  view["series"] = {{"t", t_},
                    {"ops", ops},
                    {"p50_ms", p50_},
                    {"p99_ms", p99_},
                    {"errors", errors},
                    {"active_workers", active_},
                    {"saturated_agents", saturated_},
                    {"anomalies", anomalies_}};
  view["phases"] = phases_;
  Json shares = Json::object();
  for (const auto& [node, s] : shares_) {
    std::vector<double> padded = s;
    padded.resize(share_t_.size(), kGap);
    shares[node] = Series(padded);
  }
  view["shares"] = {{"unit", share_unit_}, {"t", share_t_}, {"nodes", shares}};
  Json health = Json::array();
  for (const Poll& p : health_) health.push_back({{"t", p.t}, {"healthy", p.healthy}, {"detail", p.detail}});
  view["health"] = health;
  view["logs"] = logs_;
  Json faults = Json::array();
  for (const FaultRecovery& f : summary.faults) {
    Json j = RecoveryToJson(f);
    for (const FaultRecovery& n : summary.new_order_faults) {
      if (n.index == f.index) j["new_order"] = RecoveryToJson(n);  // tpcc: New-Order's own numbers
    }
    faults.push_back(std::move(j));
  }
  view["faults"] = faults;
  Json cycles = Json::array();
  for (const FaultCycles& c : GroupFaultCycles(summary.faults)) cycles.push_back(FaultCyclesToJson(c));
  view["fault_cycles"] = cycles;
  Json s = SummaryToJson(summary);
  view["summary"] = {{"phases", s["phases"]}, {"groups", s["groups"]}, {"nodes", s["nodes"]}};
  view["events"] = s["events"];
  view["undone"] = s["undone"];
  view["degraded"] = s["degraded"];
  view["verdict"] = s["verdict"];
  view["anomalies"] = s["anomalies"];
  // A finished run leads with its result (report/headline.h).
  if (status_ != "running") {
    const Headline h = MakeHeadline(summary);
    view["headline"] = {{"result", h.result}, {"lines", h.lines}};
  }
  return view;
}

Json BuildRunView(const std::vector<Json>& journal) {
  RunViewBuilder b;
  for (const Json& line : journal) b.Add(line);
  return b.View();
}

}  // namespace stampede::report
