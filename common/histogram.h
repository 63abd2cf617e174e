// Log-linear latency histograms (HdrHistogram-style).
//
// Values are nanoseconds. Buckets are exact below 128 ns; above, each power of
// two is split into 128 equal sub-buckets, so a bucket's width is at most
// 1/128 of its lower bound and the reported midpoint is within 0.4% of any
// value in it. Values above kMaxTrackableNs (about 68.7 s) land in the last
// bucket; the exact maximum is kept separately.
//
// Histogram is a plain value type: not thread-safe, mergeable, serializable.
// HistogramRecorder is the per-worker recorder: one writer thread calls
// Record() (no lock, no allocation), one collector thread calls DrainInto().
#ifndef STAMPEDE_COMMON_HISTOGRAM_H_
#define STAMPEDE_COMMON_HISTOGRAM_H_

#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <vector>

namespace stampede {

class HistogramLayout {
 public:
  static constexpr int kSubBucketBits = 7;
  static constexpr int kSubBuckets = 1 << kSubBucketBits;  // 128
  static constexpr int kMaxMsb = 35;
  static constexpr uint64_t kMaxTrackableNs = (uint64_t{1} << (kMaxMsb + 1)) - 1;
  static constexpr int kNumBuckets = ((kMaxMsb - kSubBucketBits) << kSubBucketBits) + 2 * kSubBuckets;

  static constexpr int IndexOf(uint64_t v) {
    if (v > kMaxTrackableNs) v = kMaxTrackableNs;
    int msb = 63 - std::countl_zero(v | 1);
    int shift = msb > kSubBucketBits ? msb - kSubBucketBits : 0;
    return static_cast<int>((uint64_t(shift) << kSubBucketBits) + (v >> shift));
  }
  static constexpr uint64_t LowerBound(int index) {
    int shift = (index >> kSubBucketBits) - 1;
    if (shift < 0) shift = 0;
    uint64_t sub = uint64_t(index) - (uint64_t(shift) << kSubBucketBits);
    return sub << shift;
  }
  static constexpr uint64_t Width(int index) {
    int shift = (index >> kSubBucketBits) - 1;
    return uint64_t{1} << (shift < 0 ? 0 : shift);
  }
  static constexpr uint64_t Midpoint(int index) { return LowerBound(index) + (Width(index) - 1) / 2; }
};

class Histogram {
 public:
  Histogram() : counts_(HistogramLayout::kNumBuckets, 0) {}

  void Record(uint64_t ns) { RecordN(ns, 1); }
  void RecordN(uint64_t ns, uint64_t n);
  void Merge(const Histogram& other);
  void Reset();

  uint64_t count() const { return count_; }
  uint64_t sum_ns() const { return sum_ns_; }
  uint64_t max_ns() const { return max_ns_; }
  double MeanNs() const { return count_ ? double(sum_ns_) / count_ : 0.0; }
  // Value at quantile q in [0,1]: the midpoint of the bucket holding the
  // ceil(q*count)-th smallest value, never above the recorded maximum.
  uint64_t ValueAtQuantile(double q) const;

  // Sparse form: (bucket index, count) pairs of non-empty buckets.
  template <typename Fn>
  void ForEachBucket(Fn&& fn) const {
    for (int i = 0; i < HistogramLayout::kNumBuckets; ++i) {
      if (counts_[i]) fn(i, counts_[i]);
    }
  }
  // Adds a bucket count (used when reading the sparse form back).
  // Returns false if index is out of range.
  bool AddBucket(int index, uint64_t count);
  void AddSummary(uint64_t sum_ns, uint64_t max_ns) {
    sum_ns_ += sum_ns;
    if (max_ns > max_ns_) max_ns_ = max_ns;
  }

 private:
  friend class HistogramRecorder;
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t sum_ns_ = 0;
  uint64_t max_ns_ = 0;
};

// Single-writer, single-drainer recorder. Record() is lock-free and does not
// allocate; DrainInto() moves everything recorded so far into a Histogram and
// leaves the recorder empty, without losing a concurrent Record().
class HistogramRecorder {
 public:
  HistogramRecorder() = default;
  HistogramRecorder(const HistogramRecorder&) = delete;
  HistogramRecorder& operator=(const HistogramRecorder&) = delete;

  void Record(uint64_t ns) {
    buckets_[HistogramLayout::IndexOf(ns)].fetch_add(1, std::memory_order_relaxed);
    sum_ns_.fetch_add(ns, std::memory_order_relaxed);
    uint64_t m = max_ns_.load(std::memory_order_relaxed);
    while (ns > m && !max_ns_.compare_exchange_weak(m, ns, std::memory_order_relaxed)) {
    }
    nonempty_.store(true, std::memory_order_release);
  }

  // Returns the number of values moved.
  uint64_t DrainInto(Histogram* out);

 private:
  std::array<std::atomic<uint64_t>, HistogramLayout::kNumBuckets> buckets_{};
  std::atomic<uint64_t> sum_ns_{0};
  std::atomic<uint64_t> max_ns_{0};
  std::atomic<bool> nonempty_{false};
};

}  // namespace stampede

#endif  // STAMPEDE_COMMON_HISTOGRAM_H_
