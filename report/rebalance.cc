#include "report/rebalance.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "proto/fault_action.h"

namespace stampede::report {
namespace {

// Polls kept: a day of them, once a second.
constexpr size_t kMaxPolls = 86400;

// Giving its data away, in the engines' words: a PD store Offline, a
// CockroachDB node decommissioning.
bool Leaving(const record::NodeShare& n) { return n.state == "Offline" || n.state == "decommissioning"; }

bool Serving(const record::NodeShare& n) {
  if (n.share <= 0 || Leaving(n)) return false;
  // Gone (PD store states, yb-master, CockroachDB's liveness and membership).
  for (const char* gone : {"Tombstone", "Down", "DEAD", "dead", "decommissioned"}) {
    if (n.state == gone) return false;
  }
  return true;
}

// What the nodes that gained hold more, by get (-1 if a side does not know
// it): a node absent from one side counts as 0 there.
template <typename Get>
double Gain(const std::vector<record::NodeShare>& before, const std::vector<record::NodeShare>& after, Get get) {
  double gained = 0;
  for (const record::NodeShare& a : after) {
    if (get(a) < 0) return -1;
    double was = 0;
    for (const record::NodeShare& b : before) {
      if (b.node != a.node) continue;
      if (get(b) < 0) return -1;
      was = get(b);
    }
    gained += std::max(0.0, get(a) - was);
  }
  return gained;
}

}  // namespace

size_t ServingNodes(const std::vector<record::NodeShare>& shares) {
  return size_t(std::count_if(shares.begin(), shares.end(), Serving));
}

bool Copying(const record::HealthPoll& poll) {
  const std::string& u = poll.share_unit;
  return poll.underreplicated > 0 && (u == "tablets" || u == "regions" || u == "replicas");
}

bool Balanced(const std::vector<record::NodeShare>& shares, double tolerance, const std::string& action,
              size_t nodes_before) {
  const size_t n = ServingNodes(shares);
  if (n == 0) return false;
  if (action == "join" && n <= nodes_before) return false;
  if (action == "leave" && n >= nodes_before) return false;
  double total = 0;
  for (const record::NodeShare& s : shares) {
    if (Leaving(s) && s.share > 0) return false;  // its data is still on the move
    total += Serving(s) ? s.share : 0;
  }
  const double even = total / double(n);
  for (const record::NodeShare& s : shares) {
    if (Serving(s) && std::abs(s.share - even) > tolerance * even) return false;
  }
  return true;
}

void RebalanceTracker::Add(const record::Record& r) {
  if (const auto* run = std::get_if<record::RunStart>(&r)) {
    opt_.hold_s = run->recovery.hold_s;
    opt_.tolerance = run->recovery.balance_tolerance;
    opt_.baseline_s = run->recovery.baseline_s;
  } else if (const auto* sec = std::get_if<record::Second>(&r)) {
    for (const auto& [name, e] : sec->endpoints) {
      std::vector<Served>& v = served_[name];
      if (e.ok && e.first_ok_t >= 0 && v.size() < kMaxPolls) v.push_back({e.first_ok_t, e.last_ok_t});
    }
  } else if (const auto* poll = std::get_if<record::HealthPoll>(&r)) {
    if (poll->shares.empty() || polls_.size() >= kMaxPolls) return;
    unit_ = poll->share_unit;
    polls_.push_back({poll->t, poll->shares, Copying(*poll)});
  } else if (const auto* f = std::get_if<record::FaultSent>(&r)) {
    if (!f->undo) faults_.push_back({int(f->index), f->action, f->requested_t});
  } else if (const auto* n = std::get_if<record::NodeSample>(&r)) {
    std::vector<Disk>& d = disk_[n->node];
    if (n->disk_bytes >= 0 && d.size() < kMaxPolls) d.push_back({n->t, n->disk_bytes});
  }
}

int64_t RebalanceTracker::DiskAt(const std::vector<Disk>& samples, double t) const {
  int64_t bytes = -1;
  for (const Disk& d : samples) {
    if (d.t > t) break;
    bytes = d.bytes;
  }
  return bytes;
}

int64_t RebalanceTracker::JoinedDisk(double fault_t, double at_t) const {
  int64_t total = -1;
  for (const auto& [node, samples] : disk_) {
    if (DiskAt(samples, fault_t) > 0) continue;  // it had data before
    const int64_t now = DiskAt(samples, at_t);
    if (now > 0) total = std::max<int64_t>(total, 0) + now;
  }
  return total;
}

int64_t RebalanceTracker::PeakLag(double from_t, double to_t) const {
  int64_t peak = -1;
  for (const Poll& p : polls_) {
    if (p.t <= from_t) continue;
    if (p.t > to_t) break;
    for (const record::NodeShare& s : p.shares) peak = std::max(peak, s.lag_bytes);
  }
  return peak;
}

bool RebalanceTracker::ServedIn(const std::vector<Served>& seconds, double from, double to) const {
  return std::any_of(seconds.begin(), seconds.end(), [&](const Served& s) { return s.last >= from && s.first <= to; });
}

void RebalanceTracker::FirstAndLastOps(const Fault& f, double next, RebalanceNumbers* n) const {
  const double base = f.t - opt_.baseline_s;
  // The last operation any endpoint served in the window: an endpoint
  // stopped if others served on for a second after its last.
  double window_last = -1;
  for (const auto& [ep, seconds] : served_) {
    for (const Served& s : seconds) {
      if (s.first < next) window_last = std::max(window_last, std::min(s.last, next));
    }
  }
  // A leaving node may refuse new operations the moment it is asked to
  // go: its last one then ended a few ms before the fault, and it served
  // nothing after (0 s). One that stopped more than a second before the
  // fault did not stop because of it.
  constexpr double kLeaveSlackS = 1.0;
  double best_last = -1;
  for (const auto& [ep, seconds] : served_) {
    const bool before = ServedIn(seconds, base, f.t);
    double first = -1, last = -1;
    for (const Served& s : seconds) {
      if (s.first >= f.t && s.first < next && (first < 0 || s.first < first)) first = s.first;
      if (s.last >= f.t - kLeaveSlackS && s.first < next) last = std::max(last, s.last);
    }
    if (f.action == "join" && !before && first >= 0 && (n->first_op_s < 0 || first - f.t < n->first_op_s)) {
      n->first_op_s = first - f.t;
      n->first_op_endpoint = ep;
    }
    if (f.action == "leave" && before && last >= 0 && window_last - last >= 1.0 && last > best_last) {
      best_last = last;
      n->last_op_s = std::max(0.0, last - f.t);
      n->last_op_endpoint = ep;
    }
  }
}

std::map<int, RebalanceNumbers> RebalanceTracker::Result() const {
  std::map<int, RebalanceNumbers> out;
  for (size_t k = 0; k < faults_.size(); ++k) {
    const Fault& f = faults_[k];
    const double next = k + 1 < faults_.size() ? faults_[k + 1].t : 1e18;
    const Poll* before = nullptr;
    const Poll* last = nullptr;
    const Poll* held = nullptr;
    bool done = false;
    for (const Poll& p : polls_) {
      if (p.t <= f.t) {
        before = &p;
        continue;
      }
      if (p.t >= next) break;
      last = &p;
      if (done) continue;
      const size_t nodes_before = before ? ServingNodes(before->shares) : 0;
      if (p.copying || !Balanced(p.shares, opt_.tolerance, f.action, nodes_before)) {
        held = nullptr;
      } else if (!held) {
        held = &p;
      }
      if (held && p.t - held->t >= opt_.hold_s - 1e-6) done = true;
    }
    if (!last) continue;  // nothing polled after it
    RebalanceNumbers n;
    n.unit = unit_;
    if (before) {
      n.before = before->shares;
      n.balanced_before = !before->copying && Balanced(before->shares, opt_.tolerance, "", 0);
    }
    const Poll* end = done ? held : last;
    n.after = end->shares;
    if (done) n.time_to_balanced_s = std::max(0.0, held->t - f.t);
    n.moved = std::max(0.0, Gain(n.before, n.after, [](const record::NodeShare& s) { return s.share; }));
    const double keys = Gain(n.before, n.after, [](const record::NodeShare& s) { return double(s.keys); });
    const double bytes = Gain(n.before, n.after, [](const record::NodeShare& s) { return double(s.bytes); });
    n.moved_keys = keys < 0 ? -1 : int64_t(keys);
    n.moved_bytes = bytes < 0 ? -1 : int64_t(bytes);
    n.joined_disk_bytes = JoinedDisk(f.t, end->t);
    n.peak_lag_bytes = PeakLag(f.t, end->t);
    FirstAndLastOps(f, next, &n);
    out[f.index] = std::move(n);
  }
  return out;
}

namespace {

Json SharesToJson(const std::vector<record::NodeShare>& shares) {
  Json out = Json::array();
  for (const record::NodeShare& s : shares) {
    Json n = {{"node", s.node}, {"share", s.share}};
    if (s.leaders >= 0) n["leaders"] = s.leaders;
    if (s.keys >= 0) n["keys"] = s.keys;
    if (s.bytes >= 0) n["bytes"] = s.bytes;
    if (!s.state.empty()) n["state"] = s.state;
    out.push_back(std::move(n));
  }
  return out;
}

// "127.0.0.1:7000 5461, 127.0.0.1:7001 5462 (slots)"
std::string SharesLine(const std::vector<record::NodeShare>& shares, const std::string& unit) {
  if (shares.empty()) return "n/a";
  std::string out;
  for (const record::NodeShare& s : shares) {
    char v[32];
    std::snprintf(v, sizeof(v), "%.0f", s.share);
    out += (out.empty() ? "" : ", ") + s.node + " " + v + (s.state.empty() || s.state == "master" ? "" : " " + s.state);
  }
  return out + " (" + unit + ")";
}

}  // namespace

Json RebalanceToJson(const RebalanceNumbers& n) {
  auto num = [](double v) { return v < 0 ? Json(nullptr) : Json(v); };
  return {{"unit", n.unit},
          {"time_to_balanced_s", num(n.time_to_balanced_s)},
          {"balanced", n.time_to_balanced_s >= 0},
          {"balanced_before", n.balanced_before},
          {"moved", n.moved},
          {"moved_keys", n.moved_keys < 0 ? Json(nullptr) : Json(n.moved_keys)},
          {"moved_bytes", n.moved_bytes < 0 ? Json(nullptr) : Json(n.moved_bytes)},
          {"joined_disk_bytes", n.joined_disk_bytes < 0 ? Json(nullptr) : Json(n.joined_disk_bytes)},
          {"peak_lag_bytes", n.peak_lag_bytes < 0 ? Json(nullptr) : Json(n.peak_lag_bytes)},
          {"first_op_s", num(n.first_op_s)},
          {"first_op_endpoint", n.first_op_endpoint.empty() ? Json(nullptr) : Json(n.first_op_endpoint)},
          {"last_op_s", num(n.last_op_s)},
          {"last_op_endpoint", n.last_op_endpoint.empty() ? Json(nullptr) : Json(n.last_op_endpoint)},
          {"nodes_before", ServingNodes(n.before)},
          {"nodes_after", ServingNodes(n.after)},
          {"shares_before", SharesToJson(n.before)},
          {"shares_after", SharesToJson(n.after)}};
}

std::string RebalanceMarkdownRows(const RebalanceNumbers& n) {
  char buf[160];
  std::string rows;
  if (n.time_to_balanced_s >= 0) {
    std::snprintf(buf, sizeof(buf), "%.1f s", n.time_to_balanced_s);
  } else {
    std::snprintf(buf, sizeof(buf), "not balanced before the fault's window ended");
  }
  rows +=
      "| time to balanced (every serving node within tolerance of an even share, held) | " + std::string(buf) + " |\n";
  std::snprintf(buf, sizeof(buf), "%.0f %s", n.moved, n.unit.c_str());
  std::string moved = buf;
  if (n.moved_keys >= 0) moved += ", " + std::to_string(n.moved_keys) + " keys";
  if (n.moved_bytes >= 0) {
    std::snprintf(buf, sizeof(buf), ", %.1f MB", double(n.moved_bytes) / 1e6);
    moved += buf;
  }
  rows += "| data moved (what the nodes that gained hold more) | " + moved + " |\n";
  if (n.joined_disk_bytes >= 0) {
    std::snprintf(buf, sizeof(buf), "%.1f MB", double(n.joined_disk_bytes) / 1e6);
    rows += "| disk of the nodes that joined (their agents' samples) | " + std::string(buf) + " |\n";
  }
  if (n.peak_lag_bytes >= 0) {
    std::snprintf(buf, sizeof(buf), "%.2f MB", double(n.peak_lag_bytes) / 1e6);
    rows += "| peak replication lag (the furthest a copy was behind the leader's, until balanced) | " +
            std::string(buf) + " |\n";
  }
  if (n.first_op_s >= 0) {
    std::snprintf(buf, sizeof(buf), "%.2f s (%s)", n.first_op_s, n.first_op_endpoint.c_str());
    rows += "| new node's first operation (an endpoint idle before the join served one) | " + std::string(buf) + " |\n";
  }
  if (n.last_op_s >= 0) {
    std::snprintf(buf, sizeof(buf), "%.2f s (%s)", n.last_op_s, n.last_op_endpoint.c_str());
    rows += "| leaving node's last operation (an endpoint that then served no more) | " + std::string(buf) + " |\n";
  }
  rows += "| where the data was before | " + SharesLine(n.before, n.unit) + " |\n";
  rows += "| where it was " + std::string(n.time_to_balanced_s >= 0 ? "when balanced" : "at the window's end") + " | " +
          SharesLine(n.after, n.unit) + " |\n";
  return rows;
}

}  // namespace stampede::report
