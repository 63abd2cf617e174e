#include "coordinator/phase_barrier.h"

#include <algorithm>

namespace stampede::coordinator {

void PhaseBarrier::Ready(uint32_t phase, const std::string& agent, int64_t time_ns, int64_t owed) {
  Marks& m = marks_[{phase, agent}];
  m.ready_ns = std::max<int64_t>(1, time_ns);
  m.owed = owed;
}

void PhaseBarrier::Done(uint32_t phase, const std::string& agent, int64_t time_ns, bool timed_out) {
  Marks& m = marks_[{phase, agent}];
  m.done_ns = std::max<int64_t>(1, time_ns);
  m.timed_out |= timed_out;
}

void PhaseBarrier::Checked(uint32_t phase, const std::string& agent) { marks_[{phase, agent}].checked = true; }

const PhaseBarrier::Marks* PhaseBarrier::Find(uint32_t phase, const std::string& agent) const {
  auto it = marks_.find({phase, agent});
  return it == marks_.end() ? nullptr : &it->second;
}

bool PhaseBarrier::Has(Mark mark, uint32_t phase, const std::string& agent) const {
  const Marks* m = Find(phase, agent);
  if (m == nullptr) return false;
  switch (mark) {
    case Mark::kReady:
      return m->ready_ns != 0;
    case Mark::kDone:
      return m->done_ns != 0;
    case Mark::kChecked:
      return m->checked;
  }
  return false;
}

bool PhaseBarrier::All(Mark mark, uint32_t phase, const std::vector<std::string>& agents) const {
  return std::all_of(agents.begin(), agents.end(), [&](const std::string& a) { return Has(mark, phase, a); });
}

int64_t PhaseBarrier::Owed(uint32_t phase, const std::vector<std::string>& agents) const {
  int64_t owed = 0;
  for (const std::string& a : agents) {
    const Marks* m = Find(phase, a);
    if (m == nullptr || m->owed < 0) return -1;
    owed += m->owed;
  }
  return owed;
}

PhaseBarrier::End PhaseBarrier::EndOf(uint32_t phase) const {
  End end;
  for (auto it = marks_.lower_bound({phase, ""}); it != marks_.end() && it->first.first == phase; ++it) {
    end.last_done_ns = std::max(end.last_done_ns, it->second.done_ns);
    end.timed_out |= it->second.timed_out;
  }
  return end;
}

}  // namespace stampede::coordinator
