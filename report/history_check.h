// The checks of an append phase's history (docs/consistency.md), from
// history.jsonl alone: what the coordinator runs after the phase and
// `stampede check` runs again.
//
// Two passes over the file, each line parsed on its own: the first keeps
// the final reads (the longest of each key) and the appends of failed
// transactions; the second checks every read and acknowledged append
// against them, in the file's (time) order. Memory grows with the keys'
// final lists and the acknowledged appends' positions in them (the data the
// database holds for the phase), not with the reads.
//
// - lost: an acknowledged append missing from its key's final read.
// - duplicate: a read holding one value twice.
// - incompatible_order: a read that is neither a prefix of the longest read
//   of its key so far, nor has it as its prefix.
// - aborted_read: a read holding a value whose append's transaction failed
//   (G1a).
// - stale_read: a read missing an append that was acknowledged before the
//   read began (on another agent, by more than the clocks' margin): a
//   real-time violation.
// Then the dependency graph's cycles, G1b and internal reads
// (report/cycle_check.h).
#ifndef STAMPEDE_REPORT_HISTORY_CHECK_H_
#define STAMPEDE_REPORT_HISTORY_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "record/records.h"

namespace stampede::report {

struct HistoryCheckOptions {
  // An append acknowledged on another agent less than this before a read
  // began may be missed by it without counting: agents' clocks agree only
  // this well (one agent's events share one clock: no margin).
  int64_t stale_margin_ns = 1000000;
  size_t examples_per_kind = 10;
  // The isolation level to judge against (common/isolation.h): kinds it
  // allows go to HistoryChecked::allowed. "": every kind is an anomaly.
  std::string isolation;
};

// Checks phase `phase` (journal index `index`) of the history at path.
// dots, if not null: each example cycle for Graphviz (kind-N, DOT text).
StatusOr<record::HistoryChecked> CheckHistory(const std::string& path, const std::string& phase, uint32_t index,
                                              const HistoryCheckOptions& options = {},
                                              std::vector<std::pair<std::string, std::string>>* dots = nullptr);

// The phases a history holds, in the order they first appear.
StatusOr<std::vector<std::string>> HistoryPhases(const std::string& path);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_HISTORY_CHECK_H_
