#include "plan/fault_ledger.h"

#include "proto/fault_action.h"

namespace stampede::plan {

void FaultLedger::TookEffect(const std::string& action, const std::string& node) {
  if (IsHealedAction(action)) {
    // A network fault or a full disk is never a state worth keeping.
    if (action == "heal") {
      impaired_.erase(node);
    } else {
      impaired_.insert(node);
    }
    return;
  }
  State& s = nodes_[node];
  if (action == "kill" || action == "stop") {
    s = State::kDown;
  } else if (action == "pause") {
    s = State::kPaused;
  } else if (action == "resume" || action == "start" || action == "restart") {
    s = State::kUp;
  }
}

std::vector<FaultLedger::Undo> FaultLedger::Pending() const {
  std::vector<Undo> undo;
  for (const std::string& node : impaired_) undo.push_back({"heal", node});
  for (const auto& [node, state] : nodes_) {
    if (state == State::kPaused) {
      // A frozen process is never a state worth keeping.
      undo.push_back({"resume", node});
    } else if (state == State::kDown) {
      for (int i = 0; i < plan_.faults_size(); ++i) {
        const v1::Fault& f = plan_.faults(i);
        if (f.node() == node && (f.action() == "start" || f.action() == "restart") && !sent_.count(i)) {
          undo.push_back({"start", node});
          break;
        }
      }
    }
  }
  return undo;
}

}  // namespace stampede::plan
