#include "coordinator/live_runs.h"

#include <fstream>
#include <set>
#include <sstream>

#include "common/clock.h"
#include "coordinator/history_pages.h"
#include "report/run_view.h"
#include "web/assets.h"

namespace stampede::coordinator {
namespace {

web::HttpResponse JsonResponse(const report::Json& j, int status = 200) {
  return {status, "application/json", j.dump()};
}

web::HttpResponse JsonText(std::string body) { return {200, "application/json", std::move(body)}; }

web::HttpResponse NotFound(const std::string& what) {
  return {404, "text/plain; charset=utf-8", what + " not found\n"};
}

}  // namespace

LiveRuns::LiveRuns(std::function<std::vector<ConnectedAgent>()> connected) : connected_(std::move(connected)) {}

void LiveRuns::RunStarting(const std::string& plan_yaml) {
  MutexLock lock(mu_);
  current_ = report::RunViewBuilder();
  ++generation_;
  current_plan_yaml_ = plan_yaml;
}

void LiveRuns::OnRecord(const record::Record& r) {
  metrics_.OnRecord(r);
  MutexLock lock(mu_);
  if (const auto* run = std::get_if<record::RunStart>(&r)) {
    current_ = report::RunViewBuilder();
    ++generation_;
    runs_.push_back({run->run_id, run->plan_name, run->started_at, "running", run->results_dir});
  } else if (const auto* end = std::get_if<record::RunEnd>(&r); end && !runs_.empty()) {
    runs_.back().status = end->ok ? "ok" : "failed";
  }
  current_.Add(r);
}

// Built at most once a second for the same records, whoever polls; the
// text is made outside the lock the run's threads need.
web::HttpResponse LiveRuns::CurrentView() {
  report::Json view;
  std::string plan_yaml;
  uint64_t generation = 0;
  size_t records = 0;
  const int64_t now = MonoNowNs();
  {
    MutexLock lock(mu_);
    records = current_.records();
    if (!view_.empty() && view_generation_ == generation_ && view_records_ == records &&
        now - view_built_ns_ < kNsPerSec) {
      return JsonText(view_);
    }
    view = current_.View();
    plan_yaml = current_plan_yaml_;
    generation = generation_;
  }
  std::string body = Decorate(std::move(view), plan_yaml, records == 0).dump();
  MutexLock lock(mu_);
  view_ = body;
  view_generation_ = generation;
  view_records_ = records;
  view_built_ns_ = now;
  return JsonText(std::move(body));
}

report::Json LiveRuns::Decorate(report::Json view, const std::string& plan_yaml, bool empty) const {
  if (empty) view["status"] = "waiting";
  const std::vector<std::string> connected = ConnectedNames();
  view["connected_agents"] = connected;
  std::set<std::string> now(connected.begin(), connected.end());
  report::Json lost = report::Json::array();
  for (const auto& a : view.value("agents", std::vector<std::string>{})) {
    if (!now.count(a) && view.value("status", "") == "running") lost.push_back(a);
  }
  view["lost_agents"] = lost;
  view["plan_yaml"] = plan_yaml;
  return view;
}

std::vector<std::string> LiveRuns::ConnectedNames() const {
  std::vector<std::string> names;
  if (connected_) {
    for (const ConnectedAgent& a : connected_()) names.push_back(a.name);
  }
  return names;
}

// The connected agents and what they declared; an agent that owns nodes
// generates no load unless a plan's agents.load says so (docs/plan.md).
web::HttpResponse LiveRuns::AgentsList() const {
  report::Json list = report::Json::array();
  if (connected_) {
    for (const ConnectedAgent& a : connected_()) {
      list.push_back({{"name", a.name},
                      {"labels", a.labels},
                      {"nodes", a.nodes},
                      {"capacity", a.capacity},
                      {"version", a.version},
                      {"default_role", a.nodes.empty() ? "load" : "nodes"}});
    }
  }
  return JsonResponse(list);
}

web::HttpResponse LiveRuns::Handle(const std::string& raw_target) {
  std::string target = raw_target.substr(0, raw_target.find('?'));
  if (target == "/" || target.empty()) target = "/index.html";
  if (target == "/metrics") {
    if (connected_) metrics_.SetAgentsConnected(ConnectedNames().size());
    return {200, "text/plain; version=0.0.4; charset=utf-8", metrics_.Render()};
  }
  if (target == "/api/agents") return AgentsList();
  if (auto page = HistoryPage(target, history_, results_root_)) return *page;
  if (target == "/api/runs") {
    MutexLock lock(mu_);
    report::Json list = report::Json::array();
    for (const Run& r : runs_) {
      list.push_back({{"run_id", r.run_id},
                      {"plan_name", r.plan_name},
                      {"status", r.status},
                      {"started_at", r.started_at},
                      {"results_dir", r.dir}});
    }
    return JsonResponse(list);
  }
  const std::string prefix = "/api/runs/";
  if (target.rfind(prefix, 0) == 0) {
    const std::string id = target.substr(prefix.size());
    std::string plan_yaml, dir;
    bool current = false;
    {
      MutexLock lock(mu_);
      current = id == "current" || (!runs_.empty() && runs_.back().run_id == id);
      for (const Run& r : runs_) {
        if (!current && r.run_id == id) dir = r.dir;
      }
      if (!current && dir.empty()) return NotFound("run " + id);
    }
    if (current) return CurrentView();
    if (!dir.empty()) {
      // An earlier run is read from disk without holding the live run's lock.
      report::RunViewBuilder builder;
      Status read = report::ScanRecords(dir + "/journal.jsonl", [&](record::Record&& r) { builder.Add(r); });
      if (!read.ok()) return NotFound("journal of run " + id);
      std::ifstream in(dir + "/plan.yaml");
      std::stringstream ss;
      ss << in.rdbuf();
      plan_yaml = ss.str();
      return JsonResponse(Decorate(builder.View(), plan_yaml, builder.records() == 0));
    }
    return NotFound("run " + id);
  }
  if (const web::Asset* a = web::FindAsset(target.substr(1))) {
    return {200, std::string(a->content_type), std::string(a->data)};
  }
  return NotFound(target);
}

}  // namespace stampede::coordinator
