#include "runs/history_html.h"

#include <filesystem>
#include <map>

#include "report/report_html.h"

namespace stampede::runs {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string ReportLink(const std::string& dir, const std::string& page_dir) {
  if (dir.empty()) return "";
  std::error_code ec;
  const fs::path report = fs::absolute(fs::path(dir) / "report.html", ec);
  if (ec || !fs::exists(report, ec)) return "";
  const fs::path rel = fs::relative(report, fs::absolute(page_dir.empty() ? "." : page_dir, ec), ec);
  return ec || rel.empty() ? report.string() : rel.string();
}

}  // namespace

Json HistoryView(const std::string& plan, const std::vector<RunRecord>& runs, const std::vector<LevelChange>& changes,
                 const std::string& page_dir) {
  return HistoryView(plan, runs, changes, [&](const RunRecord& r) { return ReportLink(r.dir, page_dir); });
}

Json HistoryView(const std::string& plan, const std::vector<RunRecord>& runs, const std::vector<LevelChange>& changes,
                 const std::function<std::string(const RunRecord&)>& link) {
  Json view = {{"plan", plan}, {"runs", Json::array()}, {"metrics", Json::array()}, {"changes", Json::array()}};
  std::vector<std::string> names;
  std::map<std::string, bool> higher;
  for (const RunRecord& r : runs) {
    view["runs"].push_back({{"run_id", r.run_id},
                            {"started_at", r.started_at},
                            {"verdict", r.verdict},
                            {"duration_s", r.duration_s},
                            {"report", link(r)}});
    for (const Metric& m : r.metrics) {
      if (higher.emplace(m.name, m.higher_is_better).second) names.push_back(m.name);
    }
  }
  for (const std::string& name : names) {
    Json values = Json::array();
    for (const RunRecord& r : runs) {
      const Metric* m = r.Find(name);
      values.push_back(m ? Json(m->value) : Json(nullptr));
    }
    view["metrics"].push_back({{"name", name}, {"higher_is_better", higher[name]}, {"values", values}});
  }
  for (const LevelChange& c : changes) {
    view["changes"].push_back({{"metric", c.metric},
                               {"run", c.run},
                               {"before", c.before},
                               {"after", c.after},
                               {"change", c.change},
                               {"worse", c.worse}});
  }
  return view;
}

std::string RenderHistoryHtml(const Json& view) {
  return report::InlinePage("history.html", "STAMPEDE_HISTORY", view,
                            "stampede history: " + view.value("plan", std::string()));
}

}  // namespace stampede::runs
