// The dependency-graph check of an append phase's history
// (docs/consistency.md), from the published definitions: Adya's thesis
// ("Weak Consistency", 1999) and Kingsbury and Alvaro, "Elle" (VLDB 2020).
//
// Nodes are the committed transactions (ok) and those of unknown outcome
// (info) whose appends a read saw. Each key's version order is its longest
// read. Edges:
//   ww  T1 appended a key's element, T2 the next one;
//   wr  T2 read a key up to T1's append;
//   rw  T1 read a key up to an element, T2 appended the next one (the empty
//       read: the first);
//   process   T2 is the same worker's next transaction after T1 (ok);
//   realtime  T2 began after T1 was acknowledged (on another agent, by more
//             than the clocks' margin).
// In each strongly connected component the checker looks for a cycle of
// each kind, through one edge at a time (breadth first, counting the rw
// and wr edges on the way): G0 (ww only), G1c (ww and wr), G-single
// (exactly one rw), G2-item (two or more rw); then, with process edges
// added, the same kinds as `_process` cycles that need one, and with
// real-time edges as `_realtime` ones. A kind counts once per component.
// Besides cycles: G1b (a read ending on another transaction's intermediate
// append) and internal (a read that does not end with its own
// transaction's earlier appends to the key).
//
// Memory: the transactions' micro-operations without their read lists, a
// value's writer, and the graph's edges (about as many as micro-operations
// plus workers per transaction for real time). Not thread-safe.
#ifndef STAMPEDE_REPORT_CYCLE_CHECK_H_
#define STAMPEDE_REPORT_CYCLE_CHECK_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "record/records.h"
#include "report/append_op.h"

namespace stampede::report {

struct CycleOptions {
  // A transaction acknowledged on another agent precedes one invoked on
  // this agent only if by more than this (0 with one agent).
  int64_t margin_ns = 0;
  size_t examples_per_kind = 10;
  // The search gives up after this many steps, saying so in the note.
  uint64_t max_steps = 40'000'000;
};

struct CycleFindings {
  std::map<std::string, uint64_t> counts;  // by kind: g0, g1c, g_single_realtime, internal, ...
  std::vector<record::AnomalyExample> examples;
  std::string note;  // what the search could not finish, or ""
  // Each example cycle for Graphviz: (kind-N, DOT text).
  std::vector<std::pair<std::string, std::string>> dots;
};

class CycleChecker {
 public:
  explicit CycleChecker(const CycleOptions& options = {}) : options_(options) {}

  // A transaction's completion (ok or info; failed ones are not added),
  // invoked at invoked_ns. Its reads' lists are checked here (internal)
  // and kept only as their length and last element.
  void Add(const AppendOp& done, int64_t invoked_ns);
  // The version order of a key: its longest read, every element once.
  void SetOrder(int64_t key, const std::vector<int64_t>& order);

  CycleFindings Check();

 private:
  struct Mop {
    bool read;
    int64_t key;
    int64_t value;   // an append's; a read's last element
    int64_t length;  // a read's list's length (-1: not known, an info's)
  };
  struct Txn {
    bool ok;
    bool final;
    uint32_t process;
    int64_t invoked, done;
    uint32_t first_mop, mops;
    uint32_t agent, endpoint;  // indexes into names_
  };
  struct Writer {
    uint32_t txn;
    bool intermediate;  // its transaction appended to the key again
  };
  struct Edge {
    uint32_t from, to;
  };
  class Graph;
  class Search;

  uint32_t Name(const std::string& s);
  // Counts one of kind; its number among the kind's examples (1..), or 0
  // past them.
  size_t Flag(const std::string& kind, const Txn& t, int64_t key, const std::string& detail);
  void BuildDataEdges(Graph* g);
  void BuildSessionEdges(Graph* g);
  void CheckIntermediateReads();
  void SearchComponent(const std::array<std::vector<Edge>, 3>& through, size_t stage, Search* search,
                       const uint64_t& steps);
  std::vector<std::string> Reasons(const std::vector<uint32_t>& cycle, const std::vector<uint8_t>& kinds) const;
  std::string Explain(const std::vector<uint32_t>& cycle, const std::vector<uint8_t>& kinds) const;
  std::string Dot(const std::string& name, const std::vector<uint32_t>& cycle, const std::vector<uint8_t>& kinds) const;
  std::string Why(uint32_t a, uint32_t b, uint8_t kind) const;
  std::string Who(uint32_t t) const;
  const Writer* WriterOf(int64_t key, int64_t value) const;

  CycleOptions options_;
  std::vector<Txn> txns_;
  std::vector<Mop> mops_;
  std::unordered_map<int64_t, Writer> writers_;               // by value: values are unique in a phase
  std::unordered_map<int64_t, std::vector<int64_t>> orders_;  // by key: its version order
  std::unordered_map<std::string, uint32_t> name_index_;
  std::vector<std::string> names_;
  CycleFindings out_;
};

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_CYCLE_CHECK_H_
