#include "coordinator/history_pages.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runs/history_html.h"
#include "runs/run_store.h"
#include "runs/trends.h"

namespace stampede::coordinator {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

web::HttpResponse JsonOk(const Json& j) { return {200, "application/json", j.dump()}; }
web::HttpResponse Text(int status, const std::string& text) {
  return {status, "text/plain; charset=utf-8", text + "\n"};
}

// A results directory's name as a URL may carry it: no path, no dots first.
bool SafeName(const std::string& s) {
  if (s.empty() || s.size() > 200 || s[0] == '.') return false;
  for (char c : s) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

// "%20" and friends in a plan's name, as a browser sends them.
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned v = 0;
    if (s[i] == '%' && i + 2 < s.size() &&
        std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16).ptr == s.data() + i + 3) {
      out += char(v);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

web::HttpResponse Plans(runs::RunStore& store) {
  auto plans = store.Plans();
  if (!plans.ok()) return Text(500, plans.status().message());
  Json list = Json::array();
  for (const runs::PlanRuns& p : *plans) {
    list.push_back(
        {{"plan", p.plan}, {"runs", p.runs}, {"last_started_at", p.last_started_at}, {"last_verdict", p.last_verdict}});
  }
  return JsonOk(list);
}

web::HttpResponse Plan(runs::RunStore& store, const std::string& plan, const std::string& results_root) {
  auto list = store.Runs(plan, runs::kChangeRuns);
  if (!list.ok()) return Text(500, list.status().message());
  if (list->empty()) return Text(404, "no runs of plan " + plan);
  const fs::path root = fs::weakly_canonical(results_root);
  auto link = [&](const runs::RunRecord& r) -> std::string {
    std::error_code ec;
    const fs::path dir = fs::weakly_canonical(r.dir, ec);
    if (ec || dir.parent_path() != root || !fs::exists(dir / "report.html", ec)) return "";
    return "runs/" + dir.filename().string() + "/report.html";
  };
  return JsonOk(runs::HistoryView(plan, *list, runs::FindLevelChanges(*list), link));
}

web::HttpResponse Report(const std::string& name, const std::string& results_root) {
  if (!SafeName(name)) return Text(404, "no such run");
  std::ifstream in(fs::path(results_root) / name / "report.html", std::ios::binary);
  if (!in) return Text(404, "no report of " + name);
  std::stringstream body;
  body << in.rdbuf();
  return {200, "text/html; charset=utf-8", body.str()};
}

}  // namespace

std::optional<web::HttpResponse> HistoryPage(const std::string& target, const std::string& history,
                                             const std::string& results_root) {
  const std::string runs_prefix = "/runs/", api = "/api/history";
  if (target.rfind(runs_prefix, 0) == 0) {
    const std::string rest = target.substr(runs_prefix.size());
    const size_t slash = rest.find('/');
    if (slash == std::string::npos || rest.substr(slash) != "/report.html") return Text(404, target + " not found");
    return Report(rest.substr(0, slash), results_root);
  }
  if (target != api && target.rfind(api + "/", 0) != 0) return std::nullopt;
  if (history.empty()) return Text(404, "this coordinator keeps no run history (--history off)");
  if (!runs::RunStore::IsPostgres(history) && !fs::exists(history)) return JsonOk(Json::array());
  auto store = runs::RunStore::Open(history);
  if (!store.ok()) return Text(500, store.status().message());
  if (target == api || target == api + "/") return Plans(**store);
  return Plan(**store, Unescape(target.substr(api.size() + 1)), results_root);
}

}  // namespace stampede::coordinator
