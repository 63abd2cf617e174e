// What each agent said about each phase (ready to start, done, what it
// owes), and whether a group of agents has reached a mark: the run's
// barriers before a phase starts, before it ends, and around the cleanup.
//
// Not thread-safe: the run controller holds it under its mutex.
#ifndef STAMPEDE_COORDINATOR_PHASE_BARRIER_H_
#define STAMPEDE_COORDINATOR_PHASE_BARRIER_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace stampede::coordinator {

class PhaseBarrier {
 public:
  enum class Mark {
    kReady,    // connections open, setup done (PHASE_READY)
    kDone,     // the share ran (PHASE_DONE), or the cleanup did (CLEANUP_DONE)
    kChecked,  // its writes were read back (WRITES_CHECKED; check_writes)
  };
  struct End {
    int64_t last_done_ns = 0;  // 0: no agent is done
    bool timed_out = false;    // some agent's share hit the phase's timeout
  };

  // Times are on the coordinator clock; a zero time counts as 1 ns so that
  // the mark is still set. owed: -1 when the share has no schedule.
  void Ready(uint32_t phase, const std::string& agent, int64_t time_ns, int64_t owed);
  void Done(uint32_t phase, const std::string& agent, int64_t time_ns, bool timed_out);
  void Checked(uint32_t phase, const std::string& agent);

  bool Has(Mark mark, uint32_t phase, const std::string& agent) const;
  bool All(Mark mark, uint32_t phase, const std::vector<std::string>& agents) const;
  // What the agents owe together; -1 if any of them has no schedule or has
  // not said.
  int64_t Owed(uint32_t phase, const std::vector<std::string>& agents) const;
  End EndOf(uint32_t phase) const;

 private:
  struct Marks {
    int64_t ready_ns = 0, done_ns = 0;
    int64_t owed = -1;
    bool timed_out = false;
    bool checked = false;
  };
  const Marks* Find(uint32_t phase, const std::string& agent) const;

  std::map<std::pair<uint32_t, std::string>, Marks> marks_;
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_PHASE_BARRIER_H_
