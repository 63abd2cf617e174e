#include "coordinator/fault_schedule.h"

#include <algorithm>

#include "common/clock.h"

namespace stampede::coordinator {

bool FaultSchedule::StartsGroup(int p) const {
  const v1::Phase& phase = plan_.phases(p);
  return phase.group().empty() || p == 0 || plan_.phases(p - 1).group() != phase.group();
}

bool FaultSchedule::EndsGroup(int p) const {
  const v1::Phase& phase = plan_.phases(p);
  return phase.group().empty() || p + 1 == plan_.phases_size() || plan_.phases(p + 1).group() != phase.group();
}

void FaultSchedule::StartGroup(int p, int64_t start_ns, const std::set<int>& skip) {
  const v1::Phase& phase = plan_.phases(p);
  const std::string& name = phase.group().empty() ? phase.name() : phase.group();
  for (int i = 0; i < plan_.faults_size(); ++i) {
    const v1::Fault& f = plan_.faults(i);
    if (f.phase() != name || skip.count(i)) continue;
    if (f.has_roll() && f.roll().step() > 0) {
      due_.push_back({i, INT64_MAX, 0, true});
    } else if (f.at_percent() > 0) {
      // Of the plan phase's operations: all its steps for a stepped one.
      uint64_t ops = 0;
      for (int q = p;
           q < plan_.phases_size() && (q == p || (!phase.group().empty() && plan_.phases(q).group() == phase.group()));
           ++q) {
        ops += plan_.phases(q).ops();
      }
      const uint64_t at = static_cast<uint64_t>(f.at_percent() / 100.0 * double(ops));
      due_.push_back({i, INT64_MAX, std::max<uint64_t>(1, at), false});
    } else {
      due_.push_back({i, start_ns + int64_t(f.at_ms()) * kNsPerMs, 0, false});
    }
  }
}

bool FaultSchedule::ChainDue(const Due& d, int64_t now_ns, const Progress& progress) const {
  auto prev = progress.done_ns.find(d.index - 1);
  if (prev == progress.done_ns.end()) return false;
  const int64_t max_wait = int64_t(plan_.faults(d.index).roll().max_wait_ms()) * kNsPerMs;
  if (now_ns >= prev->second + max_wait) return true;
  return progress.healthy_polls_since &&
         progress.healthy_polls_since(prev->second) >= std::max(1, progress.healthy_polls_needed);
}

std::vector<int> FaultSchedule::TakeDue(int64_t now_ns, uint64_t ops) { return TakeDue(now_ns, ops, Progress()); }

std::vector<int> FaultSchedule::TakeDue(int64_t now_ns, uint64_t ops, const Progress& progress) {
  std::vector<int> out;
  for (auto it = due_.begin(); it != due_.end();) {
    const bool due = it->chained      ? ChainDue(*it, now_ns, progress)
                     : it->at_ops > 0 ? ops >= it->at_ops
                                      : now_ns >= it->at_ns;
    if (!due) {
      ++it;
      continue;
    }
    out.push_back(it->index);
    it = due_.erase(it);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> FaultSchedule::TakeUnsent() {
  std::vector<int> out;
  for (const Due& d : due_) out.push_back(d.index);
  due_.clear();
  return out;
}

}  // namespace stampede::coordinator
