// What a run's faults did to each node, and what puts a node back when the
// run ends before its plan did: a node the run paused is resumed; a node it
// killed or stopped is started if the plan meant to start it again
// (a start or restart of that node that has not been sent yet); a node
// with a network fault (partition, blackhole, delay, loss) or a fill is
// healed.
//
// Used by the coordinator (a run that ends early) and by an agent that
// lost its coordinator (its own nodes). Not thread-safe.
#ifndef STAMPEDE_PLAN_FAULT_LEDGER_H_
#define STAMPEDE_PLAN_FAULT_LEDGER_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "proto/stampede.pb.h"

namespace stampede::plan {

class FaultLedger {
 public:
  explicit FaultLedger(const v1::Plan& plan) : plan_(plan) {}

  // Fault `index` of the plan was sent to its agent.
  void Sent(int index) { sent_.insert(index); }
  // An action took effect on a node (a planned fault, or an undo).
  void TookEffect(const std::string& action, const std::string& node);

  struct Undo {
    std::string action;  // heal | resume | start
    std::string node;
  };
  // What to do now: heals first, then the rest in node order.
  std::vector<Undo> Pending() const;

 private:
  enum class State { kUp, kDown, kPaused };
  const v1::Plan& plan_;
  std::set<int> sent_;
  std::map<std::string, State> nodes_;
  std::set<std::string> impaired_;  // nodes with a network fault
};

}  // namespace stampede::plan

#endif  // STAMPEDE_PLAN_FAULT_LEDGER_H_
