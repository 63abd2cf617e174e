// How far a join's or a leave's data movement is, live (the run's progress
// line: "join redis-new 38% (1,560 of 4,096 slots moved, 12 s left)"), from
// the health polls' view of where the data is (report/rebalance.h).
// - join: what must move is what the serving nodes hold above an even
//   share of one more node, at the last poll before the join; moved is that
//   less what they still hold above it.
// - leave: the leaving node is the one whose share falls first; what must
//   move is its share before the leave, moved what it has given up.
// It ends at 100% once a poll is balanced (rebalance.h's Balanced), or at
// the next fault. Not thread-safe.
#ifndef STAMPEDE_REPORT_MOVE_PROGRESS_H_
#define STAMPEDE_REPORT_MOVE_PROGRESS_H_

#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "record/records.h"

namespace stampede::report {

struct MoveStatus {
  std::string what;  // "join redis-new"
  double done = 0, total = 0;
  std::string unit;    // slots, regions, ranges, tablets
  double ratio = 0;    // 0..1
  double left_s = -1;  // at the pace of the last polls; -1: not known
};

class MoveProgress {
 public:
  explicit MoveProgress(double tolerance = 0.1) : tolerance_(tolerance) {}
  // A FaultSent of join or leave starts one; a HealthPoll moves it on.
  void Add(const record::Record& r);
  // While a movement is under way (and once at its end, at 100%).
  std::optional<MoveStatus> Current();

 private:
  void Poll(const record::HealthPoll& p);
  double JoinExcess(const std::vector<record::NodeShare>& shares) const;

  double tolerance_;
  std::vector<record::NodeShare> before_;  // the last poll's shares before the fault
  std::string action_, unit_;
  size_t nodes_before_ = 0;
  std::string leaver_;  // leave: the node whose share falls
  bool active_ = false, ended_ = false;
  MoveStatus status_;
  std::deque<std::pair<double, double>> pace_;  // (poll t, done)
};

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_MOVE_PROGRESS_H_
