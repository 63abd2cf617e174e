// Conversions between common/histogram.h and its wire and journal forms.
#ifndef STAMPEDE_PROTO_HISTOGRAM_CODEC_H_
#define STAMPEDE_PROTO_HISTOGRAM_CODEC_H_

#include <cstdint>

#include "common/histogram.h"
#include "proto/stampede.pb.h"

namespace stampede {

void HistogramToProto(const Histogram& h, v1::HistogramData* out);
// Adds the proto's contents into *h. Returns false on a malformed message.
bool MergeHistogramProto(const v1::HistogramData& in, Histogram* h);
// Value at quantile q of the proto's sparse form without a dense copy, as
// Histogram::ValueAtQuantile gives it; 0 when empty or malformed.
uint64_t ProtoValueAtQuantile(const v1::HistogramData& in, double q);

}  // namespace stampede

#endif  // STAMPEDE_PROTO_HISTOGRAM_CODEC_H_
