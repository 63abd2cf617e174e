#include "report/rolls.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "report/text_format.h"

namespace stampede::report {
namespace {

constexpr size_t kMaxSeconds = 86400;

const FaultRecovery* Find(const std::vector<FaultRecovery>& faults, int index) {
  for (const FaultRecovery& f : faults) {
    if (f.index == index) return &f;
  }
  return nullptr;
}

}  // namespace

void RollTracker::Add(const record::Record& r) {
  if (const auto* f = std::get_if<record::FaultSent>(&r)) {
    if (!f->undo && f->roll >= 0) {
      steps_.push_back({f->roll, f->roll_step, f->roll_steps, f->roll_floor, f->node, int(f->index)});
    }
  } else if (const auto* s = std::get_if<record::Second>(&r)) {
    if (s->late || seconds_.size() >= kMaxSeconds) return;
    seconds_.push_back({s->t - s->interval_s, s->t, s->Outcomes()[0], s->scheduled});
  }
}

std::vector<RollNumbers> RollTracker::Result(const std::vector<FaultRecovery>& faults) const {
  std::map<int, RollNumbers> rolls;
  for (const Step& st : steps_) {
    RollNumbers& r = rolls[st.roll];
    r.id = st.roll;
    r.steps = st.steps;
    r.floor = st.floor;
    r.nodes.push_back(st.node);
    const FaultRecovery* f = Find(faults, st.index);
    if (!f) continue;
    if (st.step == 0) {
      r.start_t = f->requested_t >= 0 ? f->requested_t : f->t;
      r.baseline_ops_per_s = f->baseline_ops_per_s;
    }
    if (!f->ok) continue;
    ++r.steps_done;
    // The roll ends when its last step's cluster is healthy again.
    const double end = f->healthy_s >= 0 ? f->t + f->healthy_s : std::max(f->t, f->done_t);
    r.end_t = std::max(r.end_t, end);
  }
  std::vector<RollNumbers> out;
  for (auto& [id, r] : rolls) {
    if (r.start_t >= 0 && r.end_t >= r.start_t) r.duration_s = r.end_t - r.start_t;
    const double until = r.end_t >= 0 ? r.end_t : 1e18;
    for (const Sec& s : seconds_) {
      const double dur = s.end - s.start;
      if (r.start_t < 0 || s.end <= r.start_t || s.start >= until || dur < 0.5 || s.scheduled == 0) continue;
      double expected = r.baseline_ops_per_s;
      if (s.scheduled > 0) expected = std::min(expected, s.scheduled / dur);
      if (expected <= 0) continue;
      const double ratio = double(s.ok) / dur / expected;
      if (r.lowest < 0 || ratio < r.lowest) r.lowest = ratio;
    }
    r.floor_held = r.floor <= 0 || (r.lowest >= 0 && r.lowest >= r.floor);
    out.push_back(std::move(r));
  }
  return out;
}

Json RollToJson(const RollNumbers& r) {
  auto num = [](double v) { return v < 0 ? Json(nullptr) : Json(v); };
  return {{"id", r.id},
          {"nodes", r.nodes},
          {"steps", r.steps},
          {"steps_done", r.steps_done},
          {"start_t_s", num(r.start_t)},
          {"duration_s", num(r.duration_s)},
          {"baseline_ops_per_s", r.baseline_ops_per_s},
          {"lowest_throughput", num(r.lowest)},
          {"throughput_floor", r.floor > 0 ? Json(r.floor) : Json(nullptr)},
          {"floor_held", r.floor > 0 ? Json(r.floor_held) : Json(nullptr)}};
}

std::string RenderRollsMarkdown(const std::vector<RollNumbers>& rolls) {
  if (rolls.empty()) return "";
  std::ostringstream md;
  md << "\n## Rolling restarts\n\nEach step is a restart in the table above; the roll as a whole:\n\n"
     << "| roll | nodes | steps done | duration (first asked -> last healthy) | baseline ok ops/s | lowest "
        "throughput, % of baseline | floor |\n|---|---|---:|---:|---:|---:|---|\n";
  for (const RollNumbers& r : rolls) {
    std::string nodes;
    for (const std::string& n : r.nodes) nodes += (nodes.empty() ? "" : ", ") + n;
    char floor[64] = "none";
    if (r.floor > 0) {
      std::snprintf(floor, sizeof(floor), "%.0f%%: %s", r.floor * 100, r.floor_held ? "held" : "**broken**");
    }
    md << "| " << r.id << " | " << nodes << " | " << r.steps_done << " of " << r.steps << " | "
       << (r.duration_s >= 0 ? Fixed(r.duration_s, 1) + " s" : std::string("n/a")) << " | "
       << Fixed(r.baseline_ops_per_s, 1) << " | " << (r.lowest >= 0 ? Fixed(r.lowest * 100, 0) + "%" : "n/a") << " | "
       << floor << " |\n";
  }
  return md.str();
}

}  // namespace stampede::report
