#include "proto/histogram_codec.h"

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

}  // namespace stampede
