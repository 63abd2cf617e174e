#include "record/second.h"

namespace stampede::record {

uint64_t OpSecond::count() const {
  uint64_t n = 0;
  for (uint64_t c : outcomes) n += c;
  return n;
}

uint64_t Second::Count() const {
  uint64_t n = 0;
  for (const auto& [name, op] : ops) n += op.count();
  return n;
}

uint64_t Second::Errors() const {
  uint64_t n = 0;
  for (const auto& [name, op] : ops) n += op.errors();
  return n;
}

uint64_t Second::Missed() const {
  uint64_t n = 0;
  for (const auto& [name, op] : ops) n += op.missed;
  return n;
}

std::vector<std::string> Second::SaturatedAgents() const {
  std::vector<std::string> out;
  for (const auto& [agent, load] : agent_load) {
    if (load.Saturated()) out.push_back(agent);
  }
  return out;
}

std::array<uint64_t, kNumOutcomes> Second::Outcomes() const {
  std::array<uint64_t, kNumOutcomes> sum{};
  for (const auto& [name, op] : ops) {
    for (int i = 0; i < kNumOutcomes; ++i) sum[size_t(i)] += op.outcomes[size_t(i)];
  }
  return sum;
}

Histogram Second::Latency() const {
  Histogram h;
  for (const auto& [name, op] : ops) h.Merge(op.latency);
  return h;
}

}  // namespace stampede::record
