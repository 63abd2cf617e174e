// libFuzzer target: any bytes as an agent's snapshot (the protobuf an agent
// streams every second), decoded, its histograms read back and merged with
// a well-formed snapshot from another agent. Corrupt bucket indexes, absurd
// counts and seconds from nowhere must be refused or merged, never crash.
#include <cstddef>
#include <cstdint>

#include "common/clock.h"
#include "common/histogram.h"
#include "coordinator/phase_merger.h"
#include "proto/histogram_codec.h"

namespace {

stampede::v1::Snapshot Good(uint32_t seq) {
  stampede::v1::Snapshot s;
  s.set_agent("a1");
  s.set_seq(seq);
  s.set_start_ns(int64_t(seq) * stampede::kNsPerSec);
  s.set_end_ns(int64_t(seq + 1) * stampede::kNsPerSec);
  auto* op = s.add_ops();
  op->set_op("insert");
  for (int i = 0; i < stampede::kNumOutcomes; ++i) op->add_outcomes(i == 0 ? 10 : 0);
  stampede::Histogram h;
  h.RecordN(1000, 10);
  stampede::HistogramToProto(h, op->mutable_latency());
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  stampede::v1::Snapshot s;
  if (!s.ParseFromArray(data, int(size))) return 0;
  for (const auto& op : s.ops()) {
    stampede::Histogram h;
    if (stampede::MergeHistogramProto(op.latency(), &h)) (void)h.ValueAtQuantile(0.99);
  }
  s.set_agent(s.agent().empty() || s.agent()[0] % 2 ? "a2" : s.agent());
  stampede::coordinator::PhaseMerger m("insert", 0, 0, 0, {"a1", "a2"}, 2 * stampede::kNsPerSec);
  (void)m.Add(Good(1));
  (void)m.Add(s);
  (void)m.Flush(5 * stampede::kNsPerSec, false);
  (void)m.Flush(0, true);
  return 0;
}
