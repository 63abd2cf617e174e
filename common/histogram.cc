#include "common/histogram.h"

#include <algorithm>
#include <cmath>

namespace stampede {

void Histogram::RecordN(uint64_t ns, uint64_t n) {
  if (n == 0) return;
  counts_[HistogramLayout::IndexOf(ns)] += n;
  count_ += n;
  sum_ns_ += ns * n;
  max_ns_ = std::max(max_ns_, ns);
}

void Histogram::Merge(const Histogram& other) {
  for (int i = 0; i < HistogramLayout::kNumBuckets; ++i) {
    counts_[i] += other.counts_[i];
  }
  count_ += other.count_;
  sum_ns_ += other.sum_ns_;
  max_ns_ = std::max(max_ns_, other.max_ns_);
}

void Histogram::Reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = sum_ns_ = max_ns_ = 0;
}

bool Histogram::AddBucket(int index, uint64_t count) {
  if (index < 0 || index >= HistogramLayout::kNumBuckets) return false;
  counts_[index] += count;
  count_ += count;
  return true;
}

uint64_t Histogram::ValueAtQuantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  uint64_t rank = static_cast<uint64_t>(std::ceil(q * double(count_)));
  if (rank == 0) rank = 1;
  uint64_t seen = 0;
  for (int i = 0; i < HistogramLayout::kNumBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      return std::min(HistogramLayout::Midpoint(i), max_ns_);
    }
  }
  return max_ns_;
}

uint64_t HistogramRecorder::DrainInto(Histogram* out) {
  if (!nonempty_.exchange(false, std::memory_order_acquire)) return 0;
  uint64_t moved = 0;
  for (int i = 0; i < HistogramLayout::kNumBuckets; ++i) {
    // A relaxed load first keeps the common empty bucket a plain read.
    if (buckets_[i].load(std::memory_order_relaxed) == 0) continue;
    uint64_t c = buckets_[i].exchange(0, std::memory_order_relaxed);
    out->counts_[i] += c;
    moved += c;
  }
  out->count_ += moved;
  out->sum_ns_ += sum_ns_.exchange(0, std::memory_order_relaxed);
  out->max_ns_ = std::max(out->max_ns_, max_ns_.exchange(0, std::memory_order_relaxed));
  return moved;
}

}  // namespace stampede
