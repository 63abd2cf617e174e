// Which of a worker's inserts were acknowledged (ok), which were left
// ambiguous and which failed (any other outcome: the database said no, or
// never got them), for the read-back after a phase (check_writes). Insert k of
// the worker has id base + worker + k x stride (crud's scheme), so a bit
// per insert is enough. Belongs to the worker's thread; the runner reads
// it after the phase.
#ifndef STAMPEDE_WORKLOADS_WRITE_LEDGER_H_
#define STAMPEDE_WORKLOADS_WRITE_LEDGER_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/outcome.h"

namespace stampede::workloads {

class WriteLedger {
 public:
  WriteLedger(uint64_t base, uint64_t worker, uint64_t stride) : base_(base), worker_(worker), stride_(stride) {}

  // A pipelined worker (Phase.pipeline) draws up to `depth` operations
  // before the first one's outcome is known: their first inserts wait in a
  // ring, and each Settle takes the oldest.
  void set_depth(size_t depth) { starts_.assign(depth + 1, 0); }
  // The inserts from `next` on belong to the operation being drawn.
  void Begin(uint64_t next) {
    if (starts_.empty()) {
      from_ = next;
    } else {
      starts_[head_++ % starts_.size()] = next;
    }
  }
  // The operation drawn (the oldest not settled, when pipelined) ended with
  // outcome; its inserts end where the next one's begin, or at `end`.
  void Settle(uint64_t end, Outcome outcome) {
    uint64_t from = from_;
    if (!starts_.empty()) {
      if (tail_ == head_) return;
      from = starts_[tail_++ % starts_.size()];
      if (tail_ != head_) end = starts_[tail_ % starts_.size()];
    }
    std::vector<uint64_t>& bits =
        outcome == Outcome::kOk ? acked_ : (outcome == Outcome::kAmbiguous ? ambiguous_ : failed_);
    for (uint64_t k = from; k < end; ++k) {
      // Grows by doubling: a few allocations over a phase, not one per op.
      if (bits.size() <= k / 64) bits.resize(std::max<size_t>(k / 64 + 1, bits.size() * 2), 0);
      bits[k / 64] |= uint64_t{1} << (k % 64);
    }
    from_ = end;
  }

  int64_t Id(uint64_t k) const { return int64_t(base_ + worker_ + k * stride_); }
  bool acked(uint64_t k) const { return Has(acked_, k); }
  bool ambiguous(uint64_t k) const { return Has(ambiguous_, k); }
  bool failed(uint64_t k) const { return Has(failed_, k); }
  // One past the highest insert index any set may hold.
  uint64_t end() const { return 64 * std::max({acked_.size(), ambiguous_.size(), failed_.size()}); }

 private:
  static bool Has(const std::vector<uint64_t>& bits, uint64_t k) {
    return k / 64 < bits.size() && (bits[k / 64] >> (k % 64)) & 1;
  }

  uint64_t base_, worker_, stride_;
  uint64_t from_ = 0;
  std::vector<uint64_t> starts_;  // pipelined: a ring of first inserts
  uint64_t head_ = 0, tail_ = 0;
  std::vector<uint64_t> acked_, ambiguous_, failed_;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_WRITE_LEDGER_H_
