#include "common/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

namespace stampede {
namespace {

uint64_t ExactQuantile(std::vector<uint64_t> v, double q) {
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(q * v.size()));
  if (rank == 0) rank = 1;
  return v[rank - 1];
}

std::vector<uint64_t> LogNormalSamples(size_t n, uint64_t seed) {
  std::mt19937_64 gen(seed);
  // Median ~ 1 ms, long tail to seconds; clamp into 1 us .. 60 s.
  std::lognormal_distribution<double> dist(std::log(1e6), 2.0);
  std::vector<uint64_t> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    double v = std::clamp(dist(gen), 1e3, 60e9);
    out.push_back(static_cast<uint64_t>(v));
  }
  return out;
}

TEST(HistogramLayoutTest, BucketsAreContiguousAndNarrow) {
  for (uint64_t v : {1ull, 127ull, 128ull, 255ull, 256ull, 1000ull, 123456ull, 999999999ull, 60000000000ull}) {
    int i = HistogramLayout::IndexOf(v);
    ASSERT_LT(i, HistogramLayout::kNumBuckets);
    EXPECT_LE(HistogramLayout::LowerBound(i), v);
    EXPECT_GT(HistogramLayout::LowerBound(i) + HistogramLayout::Width(i), v);
    // <= 1% relative error for the midpoint from 1 us up.
    if (v >= 1000) {
      double mid = double(HistogramLayout::Midpoint(i));
      EXPECT_LE(std::abs(mid - double(v)) / double(v), 0.01) << v;
    }
  }
  for (int i = 1; i < HistogramLayout::kNumBuckets; ++i) {
    EXPECT_EQ(HistogramLayout::LowerBound(i), HistogramLayout::LowerBound(i - 1) + HistogramLayout::Width(i - 1)) << i;
  }
  EXPECT_EQ(HistogramLayout::IndexOf(HistogramLayout::kMaxTrackableNs), HistogramLayout::kNumBuckets - 1);
}

TEST(HistogramTest, PercentilesWithinOnePercentOfExact) {
  auto samples = LogNormalSamples(200000, 7);
  Histogram h;
  for (uint64_t s : samples) h.Record(s);
  for (double q : {0.0, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0}) {
    double exact = double(ExactQuantile(samples, q));
    double got = double(h.ValueAtQuantile(q));
    EXPECT_LE(std::abs(got - exact) / exact, 0.01) << "q=" << q;
  }
  EXPECT_EQ(h.count(), samples.size());
  EXPECT_EQ(h.max_ns(), *std::max_element(samples.begin(), samples.end()));
}

TEST(HistogramTest, MergeEqualsRecordAll) {
  auto a = LogNormalSamples(50000, 1);
  auto b = LogNormalSamples(70000, 2);
  Histogram ha, hb, all;
  for (uint64_t s : a) ha.Record(s), all.Record(s);
  for (uint64_t s : b) hb.Record(s), all.Record(s);
  ha.Merge(hb);
  EXPECT_EQ(ha.count(), all.count());
  EXPECT_EQ(ha.sum_ns(), all.sum_ns());
  EXPECT_EQ(ha.max_ns(), all.max_ns());
  for (double q = 0; q <= 1.0; q += 0.01) {
    EXPECT_EQ(ha.ValueAtQuantile(q), all.ValueAtQuantile(q)) << q;
  }
}

TEST(HistogramRecorderTest, DrainWhileRecordingLosesNothing) {
  HistogramRecorder rec;
  Histogram drained;
  constexpr int kN = 500000;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < kN; ++i) rec.Record(1000 + (i % 5000));
    done = true;
  });
  while (!done) rec.DrainInto(&drained);
  writer.join();
  rec.DrainInto(&drained);
  EXPECT_EQ(drained.count(), uint64_t(kN));
  EXPECT_EQ(drained.max_ns(), 1000u + 4999u);
  Histogram again;
  EXPECT_EQ(rec.DrainInto(&again), 0u);
}

TEST(HistogramTest, ClampsHugeValues) {
  Histogram h;
  h.Record(uint64_t{1} << 50);
  EXPECT_EQ(h.count(), 1u);
  EXPECT_EQ(h.max_ns(), uint64_t{1} << 50);
  EXPECT_EQ(h.ValueAtQuantile(0.5), HistogramLayout::Midpoint(HistogramLayout::kNumBuckets - 1));
}

}  // namespace
}  // namespace stampede
