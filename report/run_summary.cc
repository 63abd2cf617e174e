#include "report/run_summary.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "proto/fault_action.h"
#include "record/record_codec.h"
#include "report/batch_rows.h"
#include "report/fault_cycles.h"
#include "report/hdr_log.h"
#include "report/headline.h"
#include "report/hugedb_cru.h"
#include "report/new_order_recovery.h"
#include "report/phase_markdown.h"
#include "report/recovery.h"
#include "report/report_html.h"
#include "report/run_view.h"
#include "report/text_format.h"
#include "report/tpmc.h"
#include "report/verdict.h"
#include "report/writes_check.h"

namespace stampede::report {
namespace {

Status WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) return Status::Error(path + ": " + std::strerror(errno));
  out << content;
  out.close();
  if (!out) return Status::Error(path + ": write failed");
  return Status::Ok();
}

// "2026-12-03T09:23:46Z" as seconds since the epoch (0 if it is not that).
double EpochOf(const std::string& iso) {
  std::tm tm{};
  if (!strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm)) return 0;
  return double(timegm(&tm));
}

}  // namespace

std::vector<StepGroup> StepGroups(const RunSummary& s) {
  std::vector<StepGroup> groups;
  for (const PhaseSummary& p : s.phases) {
    if (p.group.empty()) continue;
    if (groups.empty() || groups.back().name != p.group) groups.push_back({p.group, {}, 0});
    groups.back().steps.push_back(&p);
    groups.back().total_s += p.duration_s;
  }
  return groups;
}

uint64_t OpSummary::count() const {
  uint64_t n = 0;
  for (uint64_t c : outcomes) n += c;
  return n;
}

OpSummary* PhaseSummary::FindOrAdd(const std::string& op) {
  for (auto& o : ops) {
    if (o.name == op) return &o;
  }
  ops.push_back(OpSummary{op, {}, 0, 0, 0, 0, Histogram()});
  return &ops.back();
}

uint64_t PhaseSummary::done() const {
  uint64_t n = 0;
  for (const OpSummary& o : ops) n += o.count();
  return n;
}

double PhaseSummary::CpuUsPerOp() const {
  double cpu = 0;
  for (const auto& [agent, s] : agent_cpu_s) cpu += s;
  return done() ? cpu * 1e6 / double(done()) : -1;
}

uint64_t PhaseSummary::missed() const {
  uint64_t n = 0;
  for (const OpSummary& o : ops) n += o.missed;
  return n;
}

std::string PhaseSummary::SaturationNote() const {
  if (saturated_s <= 0) return "";
  std::string who;
  for (const auto& [agent, secs] : agent_saturated_s)
    who += (who.empty() ? "" : ", ") + agent + " " + Fixed(secs, 1) + " s";
  const std::string when =
      "Client saturated in " + Fixed(saturated_s, 1) + " of " + Fixed(load_measured_s, 1) + " s (" + who + ")";
  if (saturated_s * 2 > load_measured_s) {
    return "**" + when +
           "**: over half of this phase, so its latency and throughput measure the agent more than the database "
           "(docs/metrics.md, \"Client saturation\").";
  }
  return when + ": those seconds' latency and throughput may measure the agent rather than the database.";
}

PhaseSummary* SummaryBuilder::PhaseOf(uint32_t index) {
  auto it = by_index_.find(index);
  return it == by_index_.end() ? nullptr : &s_.phases[it->second];
}

void SummaryBuilder::AddSecond(const record::Second& second) {
  // By index: a late line (an agent's spool handed in after a loss) may
  // come after later phases started.
  PhaseSummary* p = PhaseOf(second.index);
  if (!p) return;
  for (const auto& [name, o] : second.ops) {
    OpSummary* op = p->FindOrAdd(name);
    for (int i = 0; i < kNumOutcomes; ++i) op->outcomes[size_t(i)] += o.outcomes[size_t(i)];
    op->retries += o.retries;
    op->missed += o.missed;
    op->rollbacks += o.rollbacks;
    op->disk_full += o.disk_full;
    op->latency.Merge(o.latency);
  }
  for (const auto& [agent, n] : second.agent_ops) p->agent_ops[agent] += n;
  p->anomalies.Add(second);
  for (const auto& [agent, cpu] : second.agent_cpu_s) p->agent_cpu_s[agent] += cpu;
  p->other_cpu_s += second.other_cpu_s;
  if (!second.agent_load.empty() && !second.late) {
    p->load_measured_s += second.interval_s;
    const std::vector<std::string> saturated = second.SaturatedAgents();
    for (const std::string& agent : saturated) p->agent_saturated_s[agent] += second.interval_s;
    if (!saturated.empty()) p->saturated_s += second.interval_s;
  }
  for (const auto& [name, e] : second.endpoints) p->endpoints[name].Add(e);
  if (!p->ended) p->duration_s = std::max(p->duration_s, second.phase_t);
}

void SummaryBuilder::Add(const record::Record& r) {
  recovery_.Add(r);
  new_orders_.Add(r);
  rebalance_.Add(r);
  rolls_.Add(r);
  std::visit(
      record::Overloaded{
          [&](const record::RunStart& x) {
            s_.run_id = x.run_id;
            s_.plan_name = x.plan_name;
            s_.started_at = x.started_at;
            s_.target = x.target;
            s_.agents = x.agents;
            s_.roles = x.roles;
            s_.ns_per_op = x.ns_per_op;
            s_.hdr_log = x.hdr_log;
            s_.expect = x.expect;
            s_.history = x.history;
            s_.history_window = x.history_window;
            s_.baseline = x.baseline;
          },
          [&](const record::PhaseStart& x) {
            PhaseSummary p;
            p.name = x.phase;
            p.workers = x.workers;
            p.pipeline = x.pipeline;
            p.batch = x.batch;
            p.params = x.params;
            p.workload = x.workload;
            p.group = x.group;
            p.step = x.step;
            p.owed = x.owed;
            by_index_[x.index] = s_.phases.size();
            s_.phases.push_back(std::move(p));
          },
          [&](const record::Second& x) { AddSecond(x); },
          [&](const record::PhaseEnd& x) { AddPhaseEnd(x); },
          [&](const record::WritesChecked& x) {
            if (PhaseSummary* p = PhaseOf(x.index)) p->writes = x;
          },
          [&](const record::HistoryChecked& x) {
            if (PhaseSummary* p = PhaseOf(x.index)) p->anomalies.Add(x);
          },
          [&](const record::LogLine& x) { s_.logs.push_back((x.agent.empty() ? "" : x.agent + ": ") + x.message); },
          [&](const record::AgentEvent& x) {
            std::string detail = !x.reason.empty() ? x.reason : x.how;
            if (x.event == "adopted") detail = "took over " + x.source + "'s share";
            s_.events.push_back({x.t, x.agent, x.event, detail});
          },
          [&](const record::CoordinatorEvent& x) {
            s_.events.push_back({x.t, "coordinator", x.event, x.detail});
          },
          [&](const record::FaultSent& x) {
            if (!x.undo) return;
            UndoneFault& u = undone_[int(x.index)];
            u.action = x.action;
            u.node = x.node;
            u.agent = x.agent;
            u.t = x.requested_t;
          },
          [&](const record::FaultDone& x) {
            auto u = undone_.find(int(x.index));
            if (u == undone_.end()) return;
            u->second.ok = x.ok;
            u->second.message = x.message;
          },
          [&](const record::RunEnd& x) {
            s_.finished = true;
            s_.ok = x.ok;
            s_.error = x.error;
            s_.degraded = x.degraded.value_or("");
          },
          [](const record::HealthPoll&) {},
          [&](const record::NodeSample& x) { s_.nodes[x.node].Add(x); },
      },
      r);
}

void SummaryBuilder::AddPhaseEnd(const record::PhaseEnd& x) {
  PhaseSummary* p = PhaseOf(x.index);
  if (!p) return;
  p->ended = true;
  p->duration_s = x.duration_s;
  p->completed = x.completed;
  p->timed_out = x.timed_out;
  p->unaccounted = x.unaccounted;
}

void SummaryBuilder::Add(const Json& line) {
  if (auto r = record::Decode(line)) Add(*r);
}

RunSummary SummaryBuilder::Result() const {
  RunSummary s = s_;
  for (const auto& [i, u] : undone_) s.undone.push_back(u);
  s.faults = recovery_.Result();
  const std::map<int, RebalanceNumbers> moved = rebalance_.Result();
  for (FaultRecovery& f : s.faults) {
    if (auto it = moved.find(f.index); it != moved.end()) f.rebalance = it->second;
  }
  s.rolls = rolls_.Result(s.faults);
  if (HasTpcc(s)) s.new_order_faults = new_orders_.Result();
  if (!s.finished) s.error = "run did not finish (journal ends early)";
  return s;
}

RunSummary BuildSummary(const std::vector<Json>& journal) {
  SummaryBuilder b;
  for (const Json& line : journal) b.Add(line);
  return b.Result();
}

namespace {

// The stepped phases again, per plan phase, in the original's shape: each
// step's time and a total.
Json StepGroupsToJson(const RunSummary& s) {
  Json groups = Json::array();
  for (const StepGroup& g : StepGroups(s)) {
    Json steps = Json::array();
    for (const PhaseSummary* p : g.steps) {
      uint64_t count = 0, ok = 0;
      for (const OpSummary& o : p->ops) count += o.count(), ok += o.outcomes[0];
      steps.push_back({{"step", p->step},
                       {"phase", p->name},
                       {"seconds", p->duration_s},
                       {"ns_per_op", count ? p->duration_s * 1e9 / double(count) : 0.0},
                       {"count", count},
                       {"ok", ok},
                       {"errors", count - ok},
                       {"completed", p->completed}});
    }
    Json group = {{"name", g.name}, {"workload", g.steps.front()->workload}, {"steps", steps}, {"total_s", g.total_s}};
    if (g.steps.front()->workload == "hugedb2019") group["cru"] = HugedbCruLine(g);
    groups.push_back(std::move(group));
  }
  return groups;
}

}  // namespace

Json SummaryToJson(const RunSummary& s) {
  Json phases = Json::array();
  PhaseAnomalies all;  // every phase's, by kind
  for (const PhaseSummary& p : s.phases) {
    Json ops = Json::array();
    for (const OpSummary& o : p.ops) {
      Json errors = Json::object();
      for (int i = 1; i < kNumOutcomes; ++i) errors[std::string(kOutcomeNames[i])] = o.outcomes[i];
      const Histogram& h = o.latency;
      ops.push_back({
          {"name", o.name},
          {"count", o.count()},
          {"ok", o.outcomes[0]},
          {"errors", errors},
          {"retries", o.retries},
          {"missed", o.missed},
          {"rollbacks", o.rollbacks},
          {"disk_full", o.disk_full},
          {"ops_per_s", p.duration_s > 0 ? double(o.count()) / p.duration_s : 0.0},
          {"ns_per_op", o.count() > 0 ? p.duration_s * 1e9 / double(o.count()) : 0.0},
          {"latency_us",
           {{"mean", h.MeanNs() / 1000.0},
            {"p50", Us(h.ValueAtQuantile(0.50))},
            {"p90", Us(h.ValueAtQuantile(0.90))},
            {"p99", Us(h.ValueAtQuantile(0.99))},
            {"p999", Us(h.ValueAtQuantile(0.999))},
            {"max", Us(h.max_ns())}}},
      });
    }
    Json endpoints = Json::object();
    for (const auto& [name, e] : p.endpoints) endpoints[name] = e.ToJson();
    Json phase = {{"name", p.name},
                  {"workload", p.workload},
                  {"endpoints", endpoints},
                  {"workers", p.workers},
                  {"pipeline", p.pipeline},
                  {"batch", p.batch},
                  {"duration_s", p.duration_s},
                  {"completed", p.completed},
                  {"agent_ops", p.agent_ops},
                  {"agent_cpu_s", p.agent_cpu_s},
                  {"other_cpu_s", p.other_cpu_s},
                  {"cpu_us_per_op", p.CpuUsPerOp() < 0 ? Json(nullptr) : Json(p.CpuUsPerOp())},
                  {"client_saturated_s", p.saturated_s},
                  {"client_saturated_s_by_agent", p.agent_saturated_s},
                  {"client_load_measured_s", p.load_measured_s},
                  {"client_saturation_note", p.SaturationNote()},
                  {"ops", ops},
                  {"done", p.done()},
                  {"missed", p.missed()},
                  {"unaccounted", p.unaccounted},
                  {"owed", p.owed >= 0 ? Json(p.owed) : Json(nullptr)}};
    if (p.timed_out) phase["timed_out"] = true;
    AddTpmcJson(p, &phase);
    if (p.writes) phase["writes"] = WritesToJson(*p.writes);
    phase["anomalies"] = AnomaliesToJson(p.anomalies);
    for (const auto& [kind, n] : p.anomalies.counts) all.counts[kind] += n;
    if (const OpSummary* o = p.BatchedOp()) phase["rows"] = BatchRowsToJson(p, *o);
    if (!p.group.empty()) {
      phase["group"] = p.group;
      phase["step"] = p.step;
    }
    phases.push_back(std::move(phase));
  }
  Json groups = StepGroupsToJson(s);
  Json events = Json::array();
  for (const RunEvent& e : s.events) {
    events.push_back({{"t", e.t}, {"who", e.who}, {"event", e.event}, {"detail", e.detail}});
  }
  Json undone = Json::array();
  for (const UndoneFault& u : s.undone) {
    undone.push_back(
        {{"action", u.action}, {"node", u.node}, {"agent", u.agent}, {"ok", u.ok}, {"message", u.message}, {"t", u.t}});
  }
  Json j = {{"run_id", s.run_id},
            {"plan_name", s.plan_name},
            {"started_at", s.started_at},
            {"target", s.target},
            {"agents", s.agents},
            {"roles", s.roles},
            {"nodes", NodesToJson(s.nodes)},
            {"ok", s.ok},
            {"phases", phases},
            {"groups", groups},
            {"notes", s.logs},
            {"events", events},
            {"undone", undone}};
  j["anomalies"] = {{"total", all.total()}, {"by_kind", all.counts}};
  j["rolls"] = Json::array();
  for (const RollNumbers& r : s.rolls) j["rolls"].push_back(RollToJson(r));
  j["error"] = s.error.empty() ? Json(nullptr) : Json(s.error);
  j["degraded"] = s.degraded.empty() ? Json(nullptr) : Json(s.degraded);
  j["verdict"] = s.expect.empty() ? Json(nullptr) : VerdictToJson(Evaluate(s));
  return j;
}

std::string RenderReportMarkdown(const RunSummary& s) {
  std::ostringstream md;
  md << "# stampede run" << (s.run_id.empty() ? "" : " " + s.run_id) << "\n\n";
  md << RenderHeadlineMarkdown(MakeHeadline(s)) << "\n";
  // A run that ended before its first phase has nothing else to say.
  if (s.phases.empty() && !s.ok) return md.str();
  md << "- plan: " << s.plan_name << "\n";
  md << "- target: " << s.target << "\n";
  md << "- agents: ";
  for (size_t i = 0; i < s.agents.size(); ++i) {
    auto role = s.roles.find(s.agents[i]);
    md << (i ? ", " : "") << s.agents[i] << (role == s.roles.end() ? "" : " (" + role->second + ")");
  }
  md << "\n- started: " << s.started_at << "\n";
  // Joins and leaves stay done whatever happens to the run.
  std::string topology;
  for (const FaultRecovery& f : s.faults) {
    if (!IsTopologyAction(f.action)) continue;
    topology += (topology.empty() ? "" : ", ") + f.action + " " + f.node + " at " + f.When() +
                (f.ok ? "" : " (FAILED: " + f.message + ")");
  }
  if (!topology.empty()) md << "- cluster changed by the run (not undone): " << topology << "\n";
  md << RenderVerdictMarkdown(Evaluate(s));
  for (const PhaseSummary& p : s.phases) {
    PhaseTableMarkdown(s, p, md);
    PhaseNotesMarkdown(p, md);
  }
  for (const StepGroup& g : StepGroups(s)) {
    // As the original printed it: "<db> InsertOne 10.03s" ... "<db> Total".
    // ns/op as the Go benchmarks of the origin print it: the step's wall
    // time over its operations.
    md << "\n## " << g.name << ": steps\n\n| step | time | ns/op | ok | errors |\n|---|---:|---:|---:|---:|\n";
    for (const PhaseSummary* p : g.steps) {
      uint64_t count = 0, ok = 0;
      for (const OpSummary& o : p->ops) count += o.count(), ok += o.outcomes[0];
      md << "| " << p->step << " | " << Fixed(p->duration_s, 2) << "s | "
         << Fixed(count ? p->duration_s * 1e9 / double(count) : 0, 0) << " | " << ok << " | " << count - ok
         << (p->completed ? "" : " (incomplete)") << " |\n";
    }
    md << "| Total | " << Fixed(g.total_s, 2) << "s | | | |\n";
    md << "\nns/op: the step's wall time over its operations, as Go benchmarks print it; not a latency "
          "(the phase tables above give those).\n";
    if (std::string disk = DiskUsageLine(s.nodes); !disk.empty()) md << "\n" << disk << "\n";
    if (g.steps.front()->workload == "hugedb2019") md << "\n" << HugedbCruLine(g) << "\n";
  }
  md << RenderRecoveryMarkdown(s.faults);
  md << RenderNewOrderRecoveryMarkdown(s.new_order_faults);
  md << RenderFaultCyclesMarkdown(GroupFaultCycles(s.faults), s.faults);
  md << RenderRollsMarkdown(s.rolls);
  md << NodesMarkdown(s.nodes);
  if (!s.undone.empty()) {
    md << "\n## Undone when the run ended\n\nThe run ended before its plan put these nodes back:\n\n";
    for (const UndoneFault& u : s.undone) {
      md << "- " << u.action << " " << u.node << " (agent " << u.agent << ") at " << Fixed(u.t, 1)
         << " s: " << (u.ok ? "done" : "FAILED: " + u.message) << "\n";
    }
  }
  if (!s.events.empty()) {
    md << "\n## Agents and coordinator\n\n| t | who | what | detail |\n|---:|---|---|---|\n";
    for (const RunEvent& e : s.events) {
      md << "| " << Fixed(e.t, 1) << " s | " << e.who << " | " << e.event << " | " << e.detail << " |\n";
    }
  }
  if (!s.logs.empty()) {
    md << "\n## Notes\n\n";
    for (const std::string& l : s.logs) md << "- " << ExplainCountNote(l, s) << "\n";
  }
  return md.str();
}

const char kTimelineCsvHeader[] =
    "t_s,phase,op,count,ok,retryable,unavailable,ambiguous,fatal,ops_per_s,p50_us,p99_us,"
    "max_us,active_workers,agents\n";

void AppendTimelineRows(const record::Second& second, std::string* csv) {
  const double interval = second.interval_s;
  auto row = [&](const std::string& op, const std::array<uint64_t, kNumOutcomes>& out, const Histogram& h) {
    uint64_t count = 0;
    for (uint64_t c : out) count += c;
    *csv += Fixed(second.t, 3) + "," + second.phase + "," + op + "," + std::to_string(count);
    for (uint64_t c : out) *csv += "," + std::to_string(c);
    // A sliver's rate is left empty: over a few milliseconds it says nothing.
    *csv += "," + (second.HasRate() ? Fixed(double(count) / interval, 1) : std::string()) + "," +
            Fixed(Us(h.ValueAtQuantile(0.5)), 1) + "," + Fixed(Us(h.ValueAtQuantile(0.99)), 1) + "," +
            Fixed(Us(h.max_ns()), 1) + "," + std::to_string(second.active_workers) + "," +
            std::to_string(second.agents) + "\n";
  };
  if (second.ops.empty()) {
    row("", {}, Histogram());
    return;
  }
  for (const auto& [name, op] : second.ops) row(name, op.outcomes, op.latency);
}

std::string RenderTimelineCsv(const std::vector<Json>& journal) {
  std::string csv = kTimelineCsvHeader;
  for (const Json& line : journal) {
    if (record::IsSecond(line)) AppendTimelineRows(record::DecodeSecond(line), &csv);
  }
  return csv;
}

Status WriteReports(const std::string& dir, RunSummary* summary_out, std::vector<std::string>* warnings, bool hdr_log) {
  RunViewBuilder view_builder;
  std::string timeline = kTimelineCsvHeader;
  std::optional<HdrLogWriter> hlog;
  Status scanned = ScanRecords(
      dir + "/journal.jsonl",
      [&](record::Record&& r) {
        view_builder.Add(r);
        if (const auto* run = std::get_if<record::RunStart>(&r)) {
          if (hdr_log || run->hdr_log) hlog.emplace(EpochOf(run->started_at));
        } else if (const auto* second = std::get_if<record::Second>(&r)) {
          AppendTimelineRows(*second, &timeline);
          if (hlog) hlog->Add(*second);
        }
      },
      warnings);
  if (!scanned.ok()) return scanned;
  if (hlog) {
    if (Status st = WriteFile(dir + "/latency.hlog", hlog->text()); !st.ok()) return st;
  }
  RunSummary s = view_builder.Summary();
  Json summary = SummaryToJson(s);
  summary["faults"] = Json::array();
  for (const FaultRecovery& f : s.faults) summary["faults"].push_back(RecoveryToJson(f));
  if (!s.new_order_faults.empty()) summary["new_order_faults"] = NewOrderRecoveryToJson(s.new_order_faults);
  summary["fault_cycles"] = Json::array();
  for (const FaultCycles& c : GroupFaultCycles(s.faults)) summary["fault_cycles"].push_back(FaultCyclesToJson(c));
  Status st = WriteFile(dir + "/summary.json", summary.dump(2) + "\n");
  if (st.ok()) st = WriteFile(dir + "/timeline.csv", timeline);
  if (st.ok()) st = WriteFile(dir + "/report.md", RenderReportMarkdown(s));
  if (st.ok()) {
    Json view = view_builder.View(s);
    std::ifstream plan(dir + "/plan.yaml");
    std::stringstream yaml;
    yaml << plan.rdbuf();
    view["plan_yaml"] = yaml.str();
    st = WriteFile(dir + "/report.html", RenderReportHtml(view));
  }
  if (summary_out) *summary_out = std::move(s);
  return st;
}

}  // namespace stampede::report
