#include "report/endpoint_summary.h"

#include <algorithm>
#include <cstdio>

namespace stampede::report {

void EndpointSummary::Add(const record::EndpointSecond& e) {
  lost += e.lost;
  reconnects += e.reconnects;
  connect_failures += e.connect_failures;
  ok += e.ok;
  if (e.first_ok_t >= 0 && (first_ok_t < 0 || e.first_ok_t < first_ok_t)) first_ok_t = e.first_ok_t;
  last_ok_t = std::max(last_ok_t, e.last_ok_t);
}

Json EndpointSummary::ToJson() const {
  auto t = [](double v) { return v < 0 ? Json(nullptr) : Json(v); };
  return {{"ok", ok},     {"first_ok_t", t(first_ok_t)}, {"last_ok_t", t(last_ok_t)},
          {"lost", lost}, {"reconnects", reconnects},    {"connect_failures", connect_failures}};
}

void EndpointsMarkdown(const std::map<std::string, EndpointSummary>& endpoints, std::ostringstream& md) {
  if (endpoints.empty()) return;
  // Redis Cluster routes by slot: there the endpoints only seed the map.
  const bool served = std::any_of(endpoints.begin(), endpoints.end(), [](const auto& e) { return e.second.ok > 0; });
  md << "\n| endpoint |" << (served ? " ok operations | served from / until (s) |" : "")
     << " connections lost | reconnects to | failed connects |\n|---|" << (served ? "---:|---:|" : "")
     << "---:|---:|---:|\n";
  for (const auto& [name, e] : endpoints) {
    md << "| " << name << " | ";
    if (served) {
      char span[48] = "n/a";
      if (e.first_ok_t >= 0) std::snprintf(span, sizeof(span), "%.1f / %.1f", e.first_ok_t, e.last_ok_t);
      md << e.ok << " | " << span << " | ";
    }
    md << e.lost << " | " << e.reconnects << " | " << e.connect_failures << " |\n";
  }
}

}  // namespace stampede::report
