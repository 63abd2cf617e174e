#include "plan/stage_schedule.h"

#include <algorithm>
#include <cmath>

#include "plan/phase_shape.h"

namespace stampede::plan {

StageSchedule::StageSchedule(const v1::Phase& phase) {
  if (phase.stages_size() == 0) {
    open_loop_ = phase.rate() > 0;
    constant_rate_ = phase.rate();
    return;
  }
  open_loop_ = plan::IsOpenLoop(phase);
  points_.push_back({0, 0});
  double t = 0;
  for (const v1::Stage& s : phase.stages()) {
    t += double(s.duration_ms()) / 1000.0;
    points_.push_back({t, open_loop_ ? s.rate() : double(s.workers())});
  }
}

double StageSchedule::ValueAt(double t) const {
  if (points_.empty()) return constant_rate_;
  if (t <= 0) return points_.front().value;
  for (size_t i = 1; i < points_.size(); ++i) {
    const Point& a = points_[i - 1];
    const Point& b = points_[i];
    if (t <= b.t) {
      if (b.t <= a.t) return b.value;
      return a.value + (b.value - a.value) * (t - a.t) / (b.t - a.t);
    }
  }
  return points_.back().value;
}

double StageSchedule::TimeOfOp(double n) const {
  if (points_.empty()) return constant_rate_ > 0 ? n / constant_rate_ : -1;
  // Walk the stages: each contributes the area of a trapezoid.
  double done = 0;
  for (size_t i = 1; i < points_.size(); ++i) {
    const Point& a = points_[i - 1];
    const Point& b = points_[i];
    const double len = b.t - a.t;
    const double area = 0.5 * (a.value + b.value) * len;
    if (n < done + area || (i + 1 == points_.size() && n <= done + area && area > 0)) {
      // Solve a.value*x + 0.5*slope*x^2 = n - done for x in [0, len].
      const double need = n - done;
      const double slope = len > 0 ? (b.value - a.value) / len : 0;
      double x;
      if (std::abs(slope) < 1e-12) {
        x = a.value > 0 ? need / a.value : 0;
      } else {
        const double disc = a.value * a.value + 2 * slope * need;
        x = (-a.value + std::sqrt(std::max(0.0, disc))) / slope;
      }
      return a.t + std::min(std::max(x, 0.0), len);
    }
    done += area;
  }
  return -1;
}

double StageSchedule::OpsBy(double t) const {
  if (t <= 0) return 0;
  if (points_.empty()) return constant_rate_ * t;
  double done = 0;
  for (size_t i = 1; i < points_.size(); ++i) {
    const Point& a = points_[i - 1];
    const Point& b = points_[i];
    const double len = b.t - a.t;
    if (t <= b.t) {
      const double x = t - a.t;
      const double at_x = len > 0 ? a.value + (b.value - a.value) * x / len : b.value;
      return done + 0.5 * (a.value + at_x) * x;
    }
    done += 0.5 * (a.value + b.value) * len;
  }
  return done;  // the stages are over: nothing more is due
}

std::function<double(double)> ScheduledOpsBy(const v1::Phase& phase) {
  StageSchedule schedule(phase);
  if (!schedule.open_loop()) return nullptr;
  const double ops = phase.ops() > 0 ? double(phase.ops()) : 1e300;
  const double duration = phase.duration_ms() > 0 ? double(phase.duration_ms()) / 1000.0 : 1e300;
  return [schedule, ops, duration](double t) { return std::min(ops, schedule.OpsBy(std::min(t, duration))); };
}

}  // namespace stampede::plan
