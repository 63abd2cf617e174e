#include "report/move_progress.h"

#include <algorithm>

#include "report/rebalance.h"

namespace stampede::report {
namespace {

constexpr size_t kPacePolls = 5;

double ShareOf(const std::vector<record::NodeShare>& shares, const std::string& node) {
  for (const record::NodeShare& s : shares) {
    if (s.node == node) return std::max(0.0, s.share);
  }
  return 0;  // gone from the cluster: it holds nothing
}

}  // namespace

void MoveProgress::Add(const record::Record& r) {
  if (const auto* f = std::get_if<record::FaultSent>(&r)) {
    active_ = false;
    if (f->undo || (f->action != "join" && f->action != "leave") || before_.empty()) return;
    active_ = true;
    ended_ = false;
    action_ = f->action;
    nodes_before_ = ServingNodes(before_);
    leaver_.clear();
    pace_.clear();
    status_ = MoveStatus{f->action + " " + f->node, 0, 0, unit_, 0, -1};
    if (action_ == "join") status_.total = JoinExcess(before_);
  } else if (const auto* p = std::get_if<record::HealthPoll>(&r)) {
    Poll(*p);
  }
}

// What the serving nodes hold above an even share of one more node than
// served before the join.
double MoveProgress::JoinExcess(const std::vector<record::NodeShare>& shares) const {
  double total = 0;
  for (const record::NodeShare& s : before_) total += s.share > 0 ? s.share : 0;
  const double even = total / double(nodes_before_ + 1);
  double excess = 0;
  for (const record::NodeShare& s : shares) excess += std::max(0.0, s.share - even);
  return excess;
}

void MoveProgress::Poll(const record::HealthPoll& p) {
  if (!p.answered || p.shares.empty()) return;
  if (!active_) {
    before_ = p.shares;
    unit_ = p.share_unit;
    return;
  }
  if (ended_) return;  // 100% stays said
  if (action_ == "join") {
    status_.done = std::max(0.0, status_.total - JoinExcess(p.shares));
  } else {
    if (leaver_.empty()) {
      double fell = 0;
      for (const record::NodeShare& b : before_) {
        const double by = std::max(0.0, b.share) - ShareOf(p.shares, b.node);
        if (by > fell) fell = by, leaver_ = b.node;
      }
      if (!leaver_.empty()) status_.total = std::max(0.0, ShareOf(before_, leaver_));
    }
    if (!leaver_.empty()) status_.done = status_.total - ShareOf(p.shares, leaver_);
  }
  status_.done = std::clamp(status_.done, 0.0, status_.total);
  status_.ratio = status_.total > 0 ? std::min(0.999, status_.done / status_.total) : 0;
  if (Balanced(p.shares, tolerance_, action_, nodes_before_)) {
    status_.ratio = 1;
    status_.done = status_.total;
    ended_ = true;
  }
  pace_.emplace_back(p.t, status_.done);
  if (pace_.size() > kPacePolls) pace_.pop_front();
  const auto& [t0, done0] = pace_.front();
  const double rate = pace_.size() > 1 && p.t > t0 ? (status_.done - done0) / (p.t - t0) : 0;
  status_.left_s = ended_ ? 0 : rate > 0 ? (status_.total - status_.done) / rate : -1;
}

std::optional<MoveStatus> MoveProgress::Current() {
  if (!active_) return std::nullopt;
  if (ended_) active_ = false;  // the 100% line, once
  return status_;
}

}  // namespace stampede::report
