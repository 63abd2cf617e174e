#include "report/history_check.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "common/isolation.h"
#include "report/append_parse.h"
#include "report/cycle_check.h"

namespace stampede::report {
namespace {

using List = std::vector<int64_t>;

using Mop = AppendMop;
using Op = AppendOp;

bool IsPrefix(const List& a, const List& b) {  // a is a prefix of b
  return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// "[1,2,…,8,9]": a list in a line of text, its last elements.
std::string Show(const List& l) {
  std::ostringstream out;
  out << "[";
  const size_t from = l.size() > 6 ? l.size() - 5 : 0;
  if (from) out << "… ";
  for (size_t i = from; i < l.size(); ++i) out << (i > from ? "," : "") << l[i];
  out << "] (" << l.size() << ")";
  return out.str();
}

struct Key {
  List final;  // the longest final read
  bool has_final = false;
  std::unordered_map<int64_t, int64_t> pos;  // value -> position in final
  List longest;                              // the longest read so far (pass 2)
  // Acknowledged appends in time order: (ack time, the highest position
  // in final acknowledged up to then); all of them, and each agent's.
  using Acks = std::vector<std::pair<int64_t, int64_t>>;
  Acks acks;
  std::unordered_map<std::string, Acks> agent_acks;
  std::unordered_set<int64_t> failed;  // appends of failed transactions
};

// What a read invoked at some time had to see: the final list's elements
// up to position pos (acknowledged at ack_ns), or nothing (pos -1).
struct Required {
  int64_t pos = -1;
  int64_t lag_ns = 0;  // how long before the read began that was acknowledged
};

class Checker {
 public:
  Checker(std::string phase, uint32_t index, const HistoryCheckOptions& options)
      : options_(options), phase_(std::move(phase)) {
    out_.phase = phase_;
    out_.index = index;
  }

  void First(const Op& op) {
    agents_.insert(op.agent);
    if (op.type == "fail") {
      for (const Mop& m : op.mops) {
        if (!m.read) keys_[m.key].failed.insert(m.value);
      }
    }
    if (!op.final || op.type != "ok") return;
    for (const Mop& m : op.mops) {
      if (!m.read) continue;
      Key& k = keys_[m.key];
      if (!k.has_final || IsPrefix(k.final, m.list)) {
        k.final = m.list;
      } else if (!IsPrefix(m.list, k.final)) {
        Flag("incompatible_order", op, m.key, 0, 0, 0,
             "final reads " + Show(m.list) + " and " + Show(k.final) + " differ");
      }
      k.has_final = true;
    }
  }

  void BetweenPasses() {
    // Real-time order across agents only beyond their clocks' margin.
    CycleOptions cycle;
    cycle.margin_ns = agents_.size() > 1 ? options_.stale_margin_ns : 0;
    cycle.examples_per_kind = options_.examples_per_kind;
    cycles_ = CycleChecker(cycle);
    for (auto& [key, k] : keys_) {
      if (!k.has_final) continue;
      ++out_.final_keys;
      for (size_t i = 0; i < k.final.size(); ++i) k.pos.emplace(k.final[i], int64_t(i));
      k.longest = k.final;
    }
  }

  void Second(const Op& op) {
    if (op.type == "invoke") {
      Invoked(op);
      invoked_[op.process] = op.time;
      return;
    }
    if (!op.final) ++out_.transactions;
    if (op.type == "ok" || op.type == "info") {
      const auto at = invoked_.find(op.process);
      cycles_.Add(op, at == invoked_.end() ? op.time : at->second);
    }
    if (op.type != "ok") return;
    const auto pending = pending_.find(op.process);
    for (size_t i = 0; i < op.mops.size(); ++i) {
      const Mop& m = op.mops[i];
      if (!m.read) {
        if (!op.final) Acknowledged(op, m);
        continue;
      }
      Required required;
      if (pending != pending_.end() && i < pending->second.size()) required = pending->second[i];
      Read(op, m, required);
    }
    if (pending != pending_.end()) pending_.erase(pending);
  }

  std::vector<std::pair<std::string, std::string>> TakeDots() { return std::move(dots_); }

  record::HistoryChecked Finish() {
    const std::string cycles_note = CheckCycles();
    for (const auto& [second, at] : seconds_) out_.seconds.push_back(at);
    std::string note;
    if (unchecked_appends_) {
      note = std::to_string(unchecked_appends_) + " acknowledged appends to keys without a final read not checked";
    }
    if (!cycles_note.empty()) note += (note.empty() ? "" : "; ") + cycles_note;
    out_.note = note;
    out_.isolation = options_.isolation;
    for (auto it = out_.counts.begin(); it != out_.counts.end();) {
      if (IsolationForbids(options_.isolation, it->first)) {
        ++it;
        continue;
      }
      out_.allowed[it->first] = it->second;
      it = out_.counts.erase(it);
    }
    return std::move(out_);
  }

 private:
  // The dependency graph's cycles (report/cycle_check.h), each key's
  // version order its longest read; what could not be searched, or "".
  std::string CheckCycles() {
    for (const auto& [key, k] : keys_) {
      if (k.has_final) cycles_.SetOrder(key, k.longest);
    }
    CycleFindings found = cycles_.Check();
    dots_ = std::move(found.dots);
    for (const auto& [kind, n] : found.counts) out_.counts[kind] += n;
    for (record::AnomalyExample& e : found.examples) {
      // The seconds with anomalies: those the level forbids.
      if (IsolationForbids(options_.isolation, e.kind)) {
        auto& at = seconds_[int64_t(std::floor(e.t))];
        if (at.second == 0) at.first = e.t;
        ++at.second;
      }
      out_.examples.push_back(std::move(e));
    }
    return found.note;
  }

  void Invoked(const Op& op) {
    std::vector<Required>& req = pending_[op.process];
    req.assign(op.mops.size(), Required{});
    for (size_t i = 0; i < op.mops.size(); ++i) {
      if (!op.mops[i].read || op.final) continue;
      const auto it = keys_.find(op.mops[i].key);
      if (it == keys_.end()) continue;
      // Acknowledged before the read began: on another agent's clock,
      // by more than the margin; on this agent's, at all.
      Latest(it->second.acks, op.time - options_.stale_margin_ns, op.time, &req[i]);
      const auto own = it->second.agent_acks.find(op.agent);
      if (own != it->second.agent_acks.end()) Latest(own->second, op.time - 1, op.time, &req[i]);
    }
  }

  // The highest position acknowledged by `by` in acks, if above *req's.
  static void Latest(const Key::Acks& acks, int64_t by, int64_t began, Required* req) {
    const auto after = std::upper_bound(acks.begin(), acks.end(), by,
                                        [](int64_t t, const std::pair<int64_t, int64_t>& a) { return t < a.first; });
    if (after == acks.begin() || std::prev(after)->second <= req->pos) return;
    *req = {std::prev(after)->second, began - std::prev(after)->first};
  }

  void Acknowledged(const Op& op, const Mop& m) {
    Key& k = keys_[m.key];
    if (!k.has_final) {
      ++unchecked_appends_;
      return;
    }
    const auto p = k.pos.find(m.value);
    if (p == k.pos.end()) {
      Flag("lost", op, m.key, m.value, -1, 0,
           "append " + std::to_string(m.value) + " acknowledged, missing from the final read " + Show(k.final));
      return;
    }
    for (Key::Acks* acks : {&k.acks, &k.agent_acks[op.agent]}) AddAck(acks, op.time, p->second);
  }

  // Keeps acks in time order, each with the highest position acknowledged
  // by its time, which Latest's binary search needs. The file is in time
  // order only within the coordinator's reorder window: an event that came
  // more than a second late (an agent's snapshot was full) lands here after
  // later ones, and appended at the end it made a read look stale against
  // appends acknowledged after the read began.
  static void AddAck(Key::Acks* acks, int64_t time, int64_t pos) {
    auto at = std::upper_bound(acks->begin(), acks->end(), time,
                               [](int64_t t, const std::pair<int64_t, int64_t>& a) { return t < a.first; });
    const int64_t before = at == acks->begin() ? -1 : std::prev(at)->second;
    at = acks->insert(at, {time, std::max(before, pos)});
    for (++at; at != acks->end() && at->second < pos; ++at) at->second = pos;
  }

  void Read(const Op& op, const Mop& m, const Required& required) {
    Key& k = keys_[m.key];
    List sorted = m.list;
    std::sort(sorted.begin(), sorted.end());
    if (const auto d = std::adjacent_find(sorted.begin(), sorted.end()); d != sorted.end()) {
      Flag("duplicate", op, m.key, 0, *d, 0, "read " + Show(m.list) + " holds " + std::to_string(*d) + " twice");
    }
    for (int64_t v : m.list) {
      if (!k.failed.count(v)) continue;
      Flag("aborted_read", op, m.key, 0, v, 0,
           "read " + Show(m.list) + " holds " + std::to_string(v) + ", appended by a transaction that failed");
      break;
    }
    if (op.final) return;
    if (IsPrefix(k.longest, m.list)) {
      k.longest = m.list;
    } else if (!IsPrefix(m.list, k.longest)) {
      Flag("incompatible_order", op, m.key, 0, 0, 0,
           "read " + Show(m.list) + " where " + Show(k.longest) + " was read");
      return;
    }
    if (required.pos >= 0 && int64_t(m.list.size()) <= required.pos) {
      const int64_t missed = k.final[size_t(required.pos)];
      Flag("stale_read", op, m.key, missed, int64_t(m.list.size()), required.lag_ns,
           "read " + Show(m.list) + " misses " + std::to_string(missed) + ", acknowledged");
    }
  }

  // An anomaly seen at op's completion. lag_ns: for a stale read, how long
  // before it began the missed append was acknowledged.
  void Flag(const std::string& kind, const Op& op, int64_t key, int64_t expected, int64_t got, int64_t lag_ns,
            const std::string& detail) {
    ++out_.counts[kind];
    const double t = double(op.time) / 1e9;
    auto& at = seconds_[int64_t(std::floor(t))];
    if (at.second == 0) at.first = t;
    ++at.second;
    size_t& shown = shown_[kind];
    if (shown >= options_.examples_per_kind) return;
    ++shown;
    record::AnomalyExample e;
    e.kind = kind;
    e.t = t;
    e.endpoint = op.endpoint;
    e.agent = op.agent;
    e.op = "txn";
    e.key = key;
    e.expected = expected;
    e.got = got;
    e.final = op.final;
    e.detail = detail;
    e.lag_s = double(lag_ns) / 1e9;
    out_.examples.push_back(std::move(e));
  }

  HistoryCheckOptions options_;
  std::string phase_;
  record::HistoryChecked out_;
  std::unordered_map<int64_t, Key> keys_;
  std::unordered_map<uint32_t, std::vector<Required>> pending_;  // by process
  std::unordered_map<uint32_t, int64_t> invoked_;                // by process: its transaction's invocation
  std::set<std::string> agents_;
  CycleChecker cycles_;
  std::vector<std::pair<std::string, std::string>> dots_;   // the example cycles, for Graphviz
  std::map<int64_t, std::pair<double, uint64_t>> seconds_;  // whole second -> (first t, count)
  std::map<std::string, size_t> shown_;
  uint64_t unchecked_appends_ = 0;
};

// Calls fn(op) for each line of the phase; false if the file cannot be read.
template <typename Fn>
Status EachOp(const std::string& path, const std::string& phase, Fn fn) {
  std::ifstream in(path);
  if (!in) return Status::Error(path + ": cannot be read");
  std::string line;
  Op op;
  AppendLineParser parser;
  while (std::getline(in, line)) {
    if (line.find("\"phase\"") == std::string::npos) continue;
    if (parser.Parse(line, phase, &op)) fn(op);
  }
  if (in.bad()) return Status::Error(path + ": read failed");
  return Status::Ok();
}

}  // namespace

StatusOr<record::HistoryChecked> CheckHistory(const std::string& path, const std::string& phase, uint32_t index,
                                              const HistoryCheckOptions& options,
                                              std::vector<std::pair<std::string, std::string>>* dots) {
  Checker checker(phase, index, options);
  if (Status s = EachOp(path, phase, [&](const Op& op) { checker.First(op); }); !s.ok()) return s;
  checker.BetweenPasses();
  if (Status s = EachOp(path, phase, [&](const Op& op) { checker.Second(op); }); !s.ok()) return s;
  record::HistoryChecked checked = checker.Finish();
  if (dots) *dots = checker.TakeDots();
  return checked;
}

StatusOr<std::vector<std::string>> HistoryPhases(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Error(path + ": cannot be read");
  std::vector<std::string> phases;
  std::set<std::string> seen;
  std::string line;
  AppendLineParser parser;
  while (std::getline(in, line)) {
    const std::string p = parser.Phase(line);
    if (!p.empty() && seen.insert(p).second) phases.push_back(p);
  }
  return phases;
}

}  // namespace stampede::report
