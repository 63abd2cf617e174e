#include "coordinator/run_controller.h"

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "common/clock.h"
#include "common/duration.h"
#include "common/log.h"
#include "common/strings.h"
#include "health/health_probe.h"
#include "plan/plan_expander.h"
#include "report/run_summary.h"

namespace stampede::coordinator {
namespace {

constexpr int64_t kStartLeadNs = 500 * kNsPerMs;
constexpr int64_t kGraceNs = 2 * kNsPerSec;
constexpr int64_t kStopWaitNs = 10 * kNsPerSec;

std::string UtcNow(const char* format) {
  std::time_t t = std::time(nullptr);
  std::tm tm;
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), format, &tm);
  return buf;
}

std::string TargetDescription(const v1::Target& t) {
  std::vector<std::string> eps(t.endpoints().begin(), t.endpoints().end());
  return t.driver() + " (" + t.flavor() + ") " + Join(eps, ", ");
}

}  // namespace

RunController::RunController(RunOptions options, AgentRegistry* registry)
    : options_(std::move(options)), registry_(registry) {}

bool RunController::Cancelled() { return options_.observer && options_.observer->Cancelled(); }

void RunController::Log(const std::string& line) {
  SLOG(kInfo) << line;
  if (options_.observer) options_.observer->OnLog(line);
}

void RunController::Emit(const report::Json& line) {
  Status s = journal_.Append(line);
  if (options_.on_line) options_.on_line(line);
  if (s.ok() || journal_failed_.exchange(true)) return;
  // A journal that cannot be written (a full disk) ends the run: what it
  // holds so far stays readable.
  const std::string why = "results: " + s.message() +
                          "; the run was stopped and the journal keeps what was written before";
  SLOG(kError) << why;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_) error_ = why;
  }
  cv_.notify_all();
}

void RunController::Broadcast(const v1::CoordinatorMessage& m, const std::set<std::string>& to) {
  for (const auto& a : agents_) {
    if (to.count(a->name())) a->Send(m);
  }
}

v1::RunResult RunController::Run() {
  // Stepped workloads become one phase per step; plan.yaml keeps the plan
  // as written.
  options_.plan = plan::ExpandSteps(options_.plan);
  const v1::Plan& plan = options_.plan;
  run_start_ns_ = MonoNowNs();
  if (plan.timeout_ms()) run_deadline_ns_ = run_start_ns_ + int64_t(plan.timeout_ms()) * kNsPerMs;
  const std::string started_at = UtcNow("%Y-%m-%dT%H:%M:%SZ");
  run_id_ = UtcNow("%Y%m%d-%H%M%S") + "-" + plan.name();
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!options_.results_dir.empty()) {
    dir_ = options_.results_dir;
  } else {
    dir_ = options_.results_root + "/" + run_id_;
    for (int n = 2; fs::exists(dir_, ec); ++n) dir_ = options_.results_root + "/" + run_id_ + "-" + std::to_string(n);
  }
  fs::create_directories(dir_, ec);
  v1::RunResult result;
  if (ec) {
    result.set_error("results: cannot create " + dir_ + ": " + ec.message());
    return result;
  }
  {
    std::ofstream out(dir_ + "/plan.yaml");
    out << options_.plan_yaml;
  }
  Status s = journal_.Open(dir_ + "/journal.jsonl");
  if (!s.ok()) {
    result.set_error("results: " + s.message());
    return result;
  }

  const uint32_t min_agents = plan.agents().min();
  if (registry_->size() < min_agents) {
    Log("waiting up to " + std::to_string(plan.agents().wait_ms() / 1000) + "s for " +
        std::to_string(min_agents) + " agent(s), " + std::to_string(registry_->size()) +
        " connected");
  }
  size_t n = registry_->WaitForAgents(min_agents, run_start_ns_ + int64_t(plan.agents().wait_ms()) * kNsPerMs,
                                      [this] { return Cancelled(); });
  if (Cancelled()) return Finish(false, "aborted before start");
  if (n < min_agents) {
    std::vector<std::string> names;
    for (const auto& a : registry_->Connected()) names.push_back(a->name());
    return Finish(false, "waited " + std::to_string(plan.agents().wait_ms() / 1000) + "s for " +
                             std::to_string(min_agents) + " agent(s); " + std::to_string(n) +
                             " connected" + (names.empty() ? "" : " (" + Join(names, ", ") + ")"));
  }
  agents_ = registry_->Connected();
  std::vector<std::string> names;
  for (const auto& a : agents_) names.push_back(a->name());
  {
    std::lock_guard<std::mutex> lock(mu_);
    active_ = std::set<std::string>(names.begin(), names.end());
  }
  // Every fault must name a node that exactly one connected agent declares.
  for (const auto& a : agents_) {
    for (const std::string& node : a->hello().nodes()) {
      if (!node_owner_.count(node)) node_owner_[node] = a;
    }
  }
  for (int i = 0; i < plan.faults_size(); ++i) {
    const v1::Fault& f = plan.faults(i);
    if (node_owner_.count(f.node())) continue;
    std::vector<std::string> declared;
    for (const auto& a : agents_) {
      std::vector<std::string> nodes(a->hello().nodes().begin(), a->hello().nodes().end());
      declared.push_back(a->name() + ": " + (nodes.empty() ? "none" : Join(nodes, " ")));
    }
    return Finish(false, "faults[" + std::to_string(i) + "].node: '" + f.node() +
                             "' is not declared by any connected agent (" + Join(declared, "; ") +
                             "); nothing was run");
  }
  Emit({{"type", "run"},
        {"run_id", run_id_},
        {"plan_name", plan.name()},
        {"results_dir", dir_},
        {"started_at", started_at},
        {"target", TargetDescription(plan.target())},
        {"recovery",
         {{"baseline_s", plan.recovery().baseline_ms() / 1000.0},
          {"recovered_fraction", plan.recovery().recovered_fraction()},
          {"hold_s", plan.recovery().hold_ms() / 1000.0},
          {"healthy_polls", plan.target().health().consecutive()}}},
        {"agents", names},
        {"report", {{"ns_per_op", plan.report().ns_per_op()}}}});
  Log("run " + run_id_ + " with " + std::to_string(agents_.size()) + " agent(s): " + Join(names, ", "));
  StartHealthPoller();
  for (size_t i = 0; i < agents_.size(); ++i) {
    v1::CoordinatorMessage m;
    auto* a = m.mutable_assignment();
    a->set_run_id(run_id_);
    *a->mutable_plan() = plan;
    a->set_agent_index(static_cast<uint32_t>(i));
    a->set_agent_count(static_cast<uint32_t>(agents_.size()));
    agents_[i]->Send(m);
  }

  for (int p = 0; p < plan.phases_size(); ++p) {
    const v1::Phase& phase = plan.phases(p);
    const uint32_t index = static_cast<uint32_t>(p);
    std::set<std::string> active;
    {
      std::lock_guard<std::mutex> lock(mu_);
      phase_index_ = index;
      phase_name_ = phase.name();
      merger_.reset();
      active = active_;
    }
    // Agent 0 runs the phase's setup before anyone else prepares statements.
    v1::CoordinatorMessage prepare;
    prepare.mutable_prepare()->set_run_id(run_id_);
    prepare.mutable_prepare()->set_phase_index(index);
    std::set<std::string> first = {agents_[0]->name()};
    std::set<std::string> rest = active;
    rest.erase(agents_[0]->name());
    Wait w = Wait::kDone;
    for (const auto* group : {&first, &rest}) {
      if (group->empty() || w != Wait::kDone) continue;
      {
        std::lock_guard<std::mutex> lock(mu_);
        events_.clear();
        events_kind_ = v1::Event::PHASE_READY;
        events_phase_ = index;
      }
      Broadcast(prepare, *group);
      w = WaitForEvents(v1::Event::PHASE_READY, index, *group, false);
    }
    if (w != Wait::kDone) {
      v1::CoordinatorMessage stop;
      stop.mutable_stop()->set_run_id(run_id_);
      stop.mutable_stop()->set_abort(true);
      stop.mutable_stop()->set_reason("run aborted");
      Broadcast(stop, active);
      std::string error;
      {
        std::lock_guard<std::mutex> lock(mu_);
        error = error_.value_or("aborted by user");
      }
      return Finish(false, error);
    }

    const int64_t start_ns = MonoNowNs() + kStartLeadNs;
    int64_t owed = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      active = active_;
      for (const std::string& a : active) {
        auto it = owed_.find(a);
        if (it == owed_.end() || it->second < 0 || owed < 0) {
          owed = -1;
        } else {
          owed += it->second;
        }
      }
      owed_.clear();
      phase_timed_out_ = false;
      merger_ = std::make_unique<PhaseMerger>(phase.name(), index, start_ns, run_start_ns_, active, kGraceNs);
      events_.clear();
      events_kind_ = v1::Event::PHASE_DONE;
      events_phase_ = index;
    }
    report::Json phase_start = {{"type", "phase_start"},
                                {"phase", phase.name()},
                                {"index", index},
                                {"workload", phase.workload()},
                                {"workers", phase.workers()},
                                {"t", double(start_ns - run_start_ns_) / 1e9}};
    if (owed >= 0) phase_start["owed"] = owed;
    phase_done_ = 0;
    phase_missed_ = 0;
    if (!phase.group().empty()) {
      phase_start["group"] = phase.group();
      phase_start["step"] = phase.step();
    }
    Emit(phase_start);
    Log("phase " + phase.name() + ": " + phase.workload() + ", " + std::to_string(phase.workers()) +
        " workers");
    v1::CoordinatorMessage start;
    start.mutable_start()->set_run_id(run_id_);
    start.mutable_start()->set_phase_index(index);
    start.mutable_start()->set_start_ns(start_ns);
    // The steps of one plan phase share its fault schedule: it starts with
    // the first step and runs on across the others.
    const bool group_start = phase.group().empty() || p == 0 || plan.phases(p - 1).group() != phase.group();
    const std::string& scheduled_name = phase.group().empty() ? phase.name() : phase.group();
    if (group_start) phase_ops_ = 0;
    for (int i = 0; i < plan.faults_size() && group_start; ++i) {
      const v1::Fault& f = plan.faults(i);
      if (f.phase() != scheduled_name) continue;
      if (f.at_percent() > 0) {
        // Of the plan phase's operations: all its steps for a stepped one.
        uint64_t ops = 0;
        for (int q = p; q < plan.phases_size() && (q == p || (!phase.group().empty() && plan.phases(q).group() == phase.group())); ++q) {
          ops += plan.phases(q).ops();
        }
        due_faults_.push_back({i, INT64_MAX, std::max<uint64_t>(1, static_cast<uint64_t>(f.at_percent() / 100.0 * double(ops)))});
      } else {
        due_faults_.push_back({i, start_ns + int64_t(f.at_ms()) * kNsPerMs, 0});
      }
    }
    Broadcast(start, active);
    w = WaitForEvents(v1::Event::PHASE_DONE, index, active, true);
    const bool group_end = phase.group().empty() || p + 1 == plan.phases_size() ||
                           plan.phases(p + 1).group() != phase.group();
    if (group_end || w != Wait::kDone) {
      for (const DueFault& d : due_faults_) {
        Log("fault " + std::to_string(d.index) + " (" + plan.faults(d.index).action() + " " +
            plan.faults(d.index).node() + ") not sent: phase " + scheduled_name + " ended first");
      }
      due_faults_.clear();
    }
    if (w != Wait::kDone) {
      v1::CoordinatorMessage stop;
      stop.mutable_stop()->set_run_id(run_id_);
      stop.mutable_stop()->set_abort(true);
      stop.mutable_stop()->set_reason(w == Wait::kCancelled ? "aborted by user" : "run aborted");
      Broadcast(stop, active);
      // Let the agents deliver what they measured before writing results.
      const int64_t until = MonoNowNs() + kStopWaitNs;
      while (MonoNowNs() < until) {
        std::unique_lock<std::mutex> lock(mu_);
        bool all = true;
        for (const auto& a : active_) all &= events_.count(a) > 0 || lost_.count(a) > 0;
        if (all) break;
        cv_.wait_for(lock, std::chrono::milliseconds(100));
      }
    }
    FlushSeconds(true);
    int64_t end_ns = MonoNowNs();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!events_.empty()) {
        end_ns = 0;
        for (const auto& [agent, t] : events_) end_ns = std::max(end_ns, t);
      }
    }
    bool timed_out;
    {
      std::lock_guard<std::mutex> lock(mu_);
      timed_out = phase_timed_out_;
    }
    report::Json phase_end = {{"type", "phase_end"},
                              {"phase", phase.name()},
                              {"index", index},
                              {"duration_s", double(end_ns - start_ns) / 1e9},
                              {"completed", w == Wait::kDone && !timed_out}};
    if (owed >= 0 && w == Wait::kDone) {
      // What no agent reported, done or missed: the shares of agents lost
      // on the way.
      const uint64_t reported = phase_done_ + phase_missed_;
      phase_end["owed"] = owed;
      phase_end["unaccounted"] = uint64_t(owed) > reported ? uint64_t(owed) - reported : 0;
    }
    if (timed_out) phase_end["timed_out"] = true;
    Emit(phase_end);
    if (timed_out && w == Wait::kDone) {
      const std::string why = "phase " + phase.name() + " timed out after " +
                              FormatDurationNs(int64_t(phase.timeout_ms()) * kNsPerMs) +
                              " (its timeout); what it did not do is counted as missed";
      return Finish(false, why);
    }
    if (w != Wait::kDone) {
      std::string error;
      {
        std::lock_guard<std::mutex> lock(mu_);
        error = error_.value_or("aborted by user");
      }
      return Finish(false, error);
    }
  }
  // The last phase's and the plan's cleanup, on agent 0 alone, once every
  // agent has finished: a prepare one past the last phase.
  const bool cleanup = !plan.cleanup().empty() ||
                       (plan.phases_size() > 0 && !plan.phases(plan.phases_size() - 1).cleanup().empty());
  if (cleanup && !agents_.empty()) {
    const uint32_t index = static_cast<uint32_t>(plan.phases_size());
    {
      std::lock_guard<std::mutex> lock(mu_);
      events_.clear();
      events_kind_ = v1::Event::PHASE_READY;
      events_phase_ = index;
    }
    v1::CoordinatorMessage m;
    m.mutable_prepare()->set_run_id(run_id_);
    m.mutable_prepare()->set_phase_index(index);
    const std::set<std::string> first = {agents_[0]->name()};
    Broadcast(m, first);
    Log("cleanup on " + agents_[0]->name());
    if (WaitForEvents(v1::Event::PHASE_READY, index, first, false) != Wait::kDone) {
      std::string error;
      {
        std::lock_guard<std::mutex> lock(mu_);
        error = error_.value_or("aborted during cleanup");
      }
      return Finish(false, error);
    }
  }
  return Finish(true, "");
}

RunController::Wait RunController::WaitForEvents(v1::Event::Kind kind, uint32_t phase,
                                                 const std::set<std::string>& agents,
                                                 bool flush_seconds) {
  int64_t next_flush = MonoNowNs();
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, std::chrono::milliseconds(due_faults_.empty() ? 100 : 5));
      if (error_) return Wait::kError;
      bool all = events_kind_ == kind && events_phase_ == phase;
      for (const std::string& a : agents) {
        if (active_.count(a) && !events_.count(a)) all = false;
      }
      if (all) return Wait::kDone;
      if (run_deadline_ns_ && MonoNowNs() >= run_deadline_ns_) {
        if (!error_) {
          error_ = "the run timed out after " +
                   FormatDurationNs(int64_t(options_.plan.timeout_ms()) * kNsPerMs) +
                   " (its timeout) in phase " + phase_name_ + "; results so far are kept";
        }
        return Wait::kError;
      }
    }
    if (Cancelled()) return Wait::kCancelled;
    SendDueFaults();  // also between the steps of a plan phase
    if (flush_seconds && MonoNowNs() >= next_flush) {
      FlushSeconds(false);
      next_flush = MonoNowNs() + 200 * kNsPerMs;
    }
  }
}

void RunController::SendDueFaults() {
  const int64_t now = MonoNowNs();
  for (auto it = due_faults_.begin(); it != due_faults_.end();) {
    const bool due = it->at_ops > 0 ? phase_ops_.load() >= it->at_ops : now >= it->at_ns;
    if (!due) {
      ++it;
      continue;
    }
    const v1::Fault& f = options_.plan.faults(it->index);
    const auto& owner = node_owner_.at(f.node());
    v1::CoordinatorMessage m;
    auto* c = m.mutable_fault();
    c->set_run_id(run_id_);
    c->set_fault_index(static_cast<uint32_t>(it->index));
    c->set_action(f.action());
    c->set_node(f.node());
    // Journal the request before sending it: the agent's answer (a
    // fault_result line) can arrive before Send() returns.
    Emit({{"type", "fault"},
          {"index", it->index},
          {"phase", f.phase()},
          {"action", f.action()},
          {"node", f.node()},
          {"agent", owner->name()},
          {"requested_t", double(now - run_start_ns_) / 1e9}});
    owner->Send(m);
    Log("fault " + std::to_string(it->index) + ": " + f.action() + " " + f.node() + " (agent " +
        owner->name() + ")");
    it = due_faults_.erase(it);
  }
}

void RunController::FlushSeconds(bool all) {
  std::vector<report::Json> lines;
  std::string phase;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!merger_) return;
    lines = merger_->Flush(MonoNowNs(), all);
    for (auto& l : lines_) lines.push_back(std::move(l));
    lines_.clear();
    phase = phase_name_;
  }
  for (const report::Json& line : lines) {
    Emit(line);
    uint64_t count = 0, errors = 0, missed = 0;
    Histogram merged;
    for (const auto& [name, op] : line["ops"].items()) {
      missed += op.value("missed", uint64_t{0});
      const auto& outcomes = op["outcomes"];
      for (size_t i = 0; i < outcomes.size(); ++i) {
        count += outcomes[i].get<uint64_t>();
        if (i > 0) errors += outcomes[i].get<uint64_t>();
      }
      report::MergeHistogramJson(op["latency"], &merged);
    }
    phase_ops_ += count;
    phase_done_ += count;
    phase_missed_ += missed;
    // Late lines and the sliver after a phase's deadline say little live.
    if (!options_.observer || line.value("late", false) || line.value("interval_s", 0.0) < 0.5) {
      continue;
    }
    v1::Progress p;
    p.set_elapsed_s(line.value("t", 0.0));
    p.set_phase(phase);
    double interval = line.value("interval_s", 1.0);
    p.set_ops_per_s(interval > 0 ? double(count) / interval : 0);
    p.set_p99_us(double(merged.ValueAtQuantile(0.99)) / 1000.0);
    p.set_errors(errors);
    p.set_missed(missed);
    p.set_agents(line.value("agents", 0u));
    p.set_active_workers(line.value("active_workers", 0u));
    options_.observer->OnProgress(p);
  }
}

void RunController::OnSnapshot(const std::string& agent, const v1::Snapshot& snapshot) {
  (void)agent;
  std::lock_guard<std::mutex> lock(mu_);
  if (snapshot.run_id() != run_id_ || !merger_ || snapshot.phase_index() != phase_index_) return;
  for (auto& l : merger_->Add(snapshot)) lines_.push_back(std::move(l));
}

void RunController::OnEvent(const std::string& agent, const v1::Event& event) {
  if (event.run_id() != run_id_) return;
  switch (event.kind()) {
    case v1::Event::LOG:
      Emit({{"type", "log"}, {"agent", agent}, {"message", event.message()}});
      Log("agent " + agent + ": " + event.message());
      return;
    case v1::Event::FAULT_DONE:
    case v1::Event::FAULT_FAILED: {
      bool ok = event.kind() == v1::Event::FAULT_DONE;
      Emit({{"type", "fault_result"},
            {"index", event.fault_index()},
            {"agent", agent},
            {"ok", ok},
            {"t", double(event.time_ns() - run_start_ns_) / 1e9},
            {"message", event.message()}});
      Log("fault " + std::to_string(event.fault_index()) + (ok ? " done: " : " FAILED: ") +
          event.message());
      return;
    }
    case v1::Event::ERROR: {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_) error_ = "agent " + agent + ": " + event.message();
      break;
    }
    default: {
      std::lock_guard<std::mutex> lock(mu_);
      if (event.kind() == events_kind_ && event.phase_index() == events_phase_) {
        events_[agent] = event.time_ns();
        if (event.kind() == v1::Event::PHASE_READY) owed_[agent] = event.owed_ops();
        if (event.kind() == v1::Event::PHASE_DONE && event.timed_out()) phase_timed_out_ = true;
      }
      break;
    }
  }
  cv_.notify_all();
}

void RunController::OnAgentLost(const std::string& agent) {
  bool abort;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!active_.count(agent)) return;
    lost_.insert(agent);
    abort = options_.plan.agents().on_loss() != "continue";
    if (abort) {
      if (!error_) error_ = "lost agent " + agent + " (agents.on_loss: abort)";
    } else {
      active_.erase(agent);
      if (merger_) merger_->DropAgent(agent);
    }
  }
  Emit({{"type", "log"}, {"agent", agent}, {"message", "agent lost"}});
  Log("lost agent " + agent + (abort ? "; aborting the run" : "; continuing without it"));
  cv_.notify_all();
}

void RunController::StartHealthPoller() {
  const v1::Target& t = options_.plan.target();
  if (t.health().kind().empty()) return;
  health::ProbeOptions o;
  o.kind = t.health().kind();
  o.urls.assign(t.health().urls().begin(), t.health().urls().end());
  o.endpoints.assign(t.endpoints().begin(), t.endpoints().end());
  o.user = t.user();
  o.database = t.database();
  o.expected_nodes = static_cast<int>(t.health().nodes());
  if (!t.password_env().empty()) {
    // The coordinator polls with its own copy of the secret.
    const char* pw = std::getenv(t.password_env().c_str());
    if (pw) {
      o.password = pw;
    } else {
      Log("health probe: " + t.password_env() + " is not set on the coordinator; polling without a password");
    }
  }
  auto probe = health::MakeHealthProbe(o);
  if (!probe.ok()) {
    Log("health probe: " + probe.status().message());
    return;
  }
  health_thread_ = std::thread([this, p = std::shared_ptr<health::HealthProbe>(std::move(*probe))] {
    int last = -1;  // -1 unknown, 0 unhealthy, 1 healthy
    int64_t next = MonoNowNs();
    while (!health_stop_.load()) {
      // Stamped when the poll started: a poll that hangs until its timeout
      // (a paused node) says the cluster was unhealthy from then on.
      const double t = double(MonoNowNs() - run_start_ns_) / 1e9;
      auto r = p->Poll();
      report::Json line = {{"type", "health"}, {"t", t},
                           {"poll_s", double(MonoNowNs() - run_start_ns_) / 1e9 - t}};
      bool healthy = r.ok() && r->healthy;
      line["healthy"] = healthy;
      if (r.ok()) {
        line["underreplicated"] = r->underreplicated;
        line["unavailable"] = r->unavailable;
        line["live_nodes"] = r->live_nodes;
        line["detail"] = r->detail;
      } else {
        line["error"] = r.status().message();
      }
      Emit(line);
      if (int(healthy) != last) {
        Log(std::string("cluster ") + (healthy ? "healthy" : "unhealthy") + ": " +
            (r.ok() ? r->detail : r.status().message()));
        last = healthy;
      }
      next += kNsPerSec;
      while (!health_stop_.load() && MonoNowNs() < next) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
  });
}

void RunController::StopHealthPoller() {
  health_stop_ = true;
  if (health_thread_.joinable()) health_thread_.join();
}

v1::RunResult RunController::Finish(bool ok, const std::string& error) {
  StopHealthPoller();
  report::Json end = {{"type", "end"}, {"ok", ok}};
  if (!error.empty()) end["error"] = error;
  Emit(end);
  journal_.Close();
  v1::RunResult result;
  result.set_ok(ok);
  result.set_error(error);
  result.set_results_dir(dir_);
  std::vector<std::string> warnings;
  auto journal = report::ReadJournal(dir_ + "/journal.jsonl", &warnings);
  for (const std::string& w : warnings) SLOG(kWarn) << w;
  if (!journal.ok()) {
    result.set_ok(false);
    result.set_error(error.empty() ? journal.status().message() : error);
    return result;
  }
  report::RunSummary summary;
  Status s = report::WriteReports(dir_, *journal, &summary);
  if (!s.ok()) {
    result.set_ok(false);
    if (error.empty()) result.set_error("results: " + s.message());
  }
  result.set_report_md(report::RenderReportMarkdown(summary));
  return result;
}

}  // namespace stampede::coordinator
