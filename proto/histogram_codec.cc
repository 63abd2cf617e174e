#include "proto/histogram_codec.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace stampede {

void HistogramToProto(const Histogram& h, v1::HistogramData* out) {
  out->Clear();
  h.ForEachBucket([&](int index, uint64_t count) {
    out->add_index(static_cast<uint32_t>(index));
    out->add_count(count);
  });
  out->set_sum_ns(h.sum_ns());
  out->set_max_ns(h.max_ns());
}

bool MergeHistogramProto(const v1::HistogramData& in, Histogram* h) {
  if (in.index_size() != in.count_size()) return false;
  for (int i = 0; i < in.index_size(); ++i) {
    if (!h->AddBucket(static_cast<int>(in.index(i)), in.count(i))) return false;
  }
  h->AddSummary(in.sum_ns(), in.max_ns());
  return true;
}

uint64_t ProtoValueAtQuantile(const v1::HistogramData& in, double q) {
  if (in.index_size() != in.count_size()) return 0;
  std::vector<std::pair<uint32_t, uint64_t>> buckets;
  uint64_t total = 0;
  for (int i = 0; i < in.index_size(); ++i) {
    if (in.index(i) >= uint32_t(HistogramLayout::kNumBuckets)) return 0;
    buckets.emplace_back(in.index(i), in.count(i));
    total += in.count(i);
  }
  if (total == 0) return 0;
  std::sort(buckets.begin(), buckets.end());
  const uint64_t rank = std::max<uint64_t>(1, uint64_t(std::ceil(std::clamp(q, 0.0, 1.0) * double(total))));
  uint64_t seen = 0;
  for (const auto& [index, count] : buckets) {
    seen += count;
    if (seen >= rank) return std::min(HistogramLayout::Midpoint(int(index)), in.max_ns());
  }
  return in.max_ns();
}

}  // namespace stampede
