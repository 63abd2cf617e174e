// Rebalancing numbers per fault, from the database's own view of where the
// data is (the health polls' shares, health/share_parsers.h): how long
// until the data was spread evenly again, and how much moved.
// Definitions: docs/recovery.md, "Adding, removing and restarting nodes".
//
// A poll is balanced when every serving node (one holding a share, not
// draining or gone) holds within `tolerance` of an even share, and, after
// a join, more nodes serve than before it (after a leave, fewer), and, on
// the engines that re-create lost copies themselves (YugabyteDB tablets,
// TiDB regions, CockroachDB ranges), none is under-replicated: those
// copies are data still on the move. Time to balanced runs from when the
// fault was asked for to the first poll of a balanced stretch held for
// `hold`, within the fault's window (until the next fault is asked for).
// Not thread-safe.
#ifndef STAMPEDE_REPORT_REBALANCE_H_
#define STAMPEDE_REPORT_REBALANCE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "record/records.h"
#include "report/journal.h"

namespace stampede::report {

struct RebalanceNumbers {
  std::string unit;  // slots, regions, replicas, tablets
  double time_to_balanced_s = -1;
  bool balanced_before = false;
  std::vector<record::NodeShare> before;  // the last poll before the fault
  std::vector<record::NodeShare> after;   // when balanced (or the window's last poll)
  double moved = 0;                       // share units that changed hands
  int64_t moved_keys = -1, moved_bytes = -1;
  // Disk used by nodes (the agents' node samples) that had none before the
  // fault, when balanced: what a joiner received (Galera's state transfer).
  int64_t joined_disk_bytes = -1;
  // The most any node's copy was behind the leader's, from the fault until
  // balanced (a PostgreSQL replica's WAL lag; -1: the database does not say).
  int64_t peak_lag_bytes = -1;
  // From the workers' side (per-endpoint ok counts; on Redis Cluster by the
  // master that answered):
  // after a join, how long until an endpoint that had served nothing in the
  // baseline before it served its first operation; after a leave, until an
  // endpoint that had been serving served its last (-1: not seen).
  double first_op_s = -1;
  std::string first_op_endpoint;
  double last_op_s = -1;
  std::string last_op_endpoint;
};

struct BalanceOptions {
  double tolerance = 0.1;
  double hold_s = 5;
  double baseline_s = 10;
};

// Whether one poll's shares are balanced; nodes_before: serving nodes
// before the fault, action: its kind (join needs more serving nodes, leave
// fewer).
bool Balanced(const std::vector<record::NodeShare>& shares, double tolerance, const std::string& action,
              size_t nodes_before);
// Nodes that serve: holding a share, neither draining nor down.
size_t ServingNodes(const std::vector<record::NodeShare>& shares);
// Whether a poll says the engine is still re-creating copies: under-
// replicated tablets, regions or ranges. (Redis slots without a master and
// a Galera node missing are not copies in flight: they wait for a node.)
bool Copying(const record::HealthPoll& poll);

Json RebalanceToJson(const RebalanceNumbers& n);
// Rows of a fault's table in report.md: time to balanced, what moved, the
// shares before and after.
std::string RebalanceMarkdownRows(const RebalanceNumbers& n);

class RebalanceTracker {
 public:
  void Add(const record::Record& r);
  // By the fault's index: the numbers of every fault after which shares
  // were polled.
  std::map<int, RebalanceNumbers> Result() const;

 private:
  struct Poll {
    double t;
    std::vector<record::NodeShare> shares;
    bool copying = false;  // the engine is re-creating under-replicated copies
  };
  struct Fault {
    int index;
    std::string action;
    double t;  // asked for
  };
  struct Disk {
    double t;
    int64_t bytes;
  };
  // The disk a node had at t (its last sample at or before it; -1: none).
  int64_t DiskAt(const std::vector<Disk>& samples, double t) const;
  int64_t JoinedDisk(double fault_t, double at_t) const;
  int64_t PeakLag(double from_t, double to_t) const;
  // When each endpoint served operations: a second's first and last ok.
  struct Served {
    double first, last;
  };
  // Whether ep served anything in [from, to].
  bool ServedIn(const std::vector<Served>& seconds, double from, double to) const;
  // The join's first operation on a new endpoint, the leave's last on a
  // leaving one, in the fault's window [f.t, next).
  void FirstAndLastOps(const Fault& f, double next, RebalanceNumbers* n) const;
  BalanceOptions opt_;
  std::string unit_;
  std::vector<Poll> polls_;  // with shares, in time order
  std::vector<Fault> faults_;
  std::map<std::string, std::vector<Disk>> disk_;      // by node (the plan's name)
  std::map<std::string, std::vector<Served>> served_;  // by endpoint
};

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_REBALANCE_H_
