#include "coordinator/baseline.h"

#include <algorithm>

#include "runs/run_store.h"

namespace stampede::coordinator {

std::string ReadBaseline(const std::string& history, const v1::Plan& plan, record::RunStart* run) {
  const bool relative =
      std::any_of(run->expect.begin(), run->expect.end(), [](const record::Expectation& e) { return e.relative; });
  if (!relative || history.empty()) return "";
  const uint32_t window = plan.history().window() ? plan.history().window() : record::kDefaultHistoryWindow;
  auto store = runs::RunStore::Open(history);
  if (!store.ok()) return "expectations relative to history not judged: " + store.status().message();
  auto baseline = (*store)->Baselines(plan.name(), window);
  if (!baseline.ok()) return "expectations relative to history not judged: " + baseline.status().message();
  run->history = history;
  run->history_window = window;
  run->baseline = std::move(*baseline);
  return "";
}

}  // namespace stampede::coordinator
