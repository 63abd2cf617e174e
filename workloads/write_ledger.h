// Which of a worker's inserts were acknowledged (ok) and which were left
// ambiguous, for the read-back after a phase (check_writes). Insert k of
// the worker has id base + worker + k x stride (crud's scheme), so a bit
// per insert is enough. Belongs to the worker's thread; the runner reads
// it after the phase.
#ifndef STAMPEDE_WORKLOADS_WRITE_LEDGER_H_
#define STAMPEDE_WORKLOADS_WRITE_LEDGER_H_

#include <cstdint>
#include <vector>

#include "common/outcome.h"

namespace stampede::workloads {

class WriteLedger {
 public:
  WriteLedger(uint64_t base, uint64_t worker, uint64_t stride) : base_(base), worker_(worker), stride_(stride) {}

  // The inserts from `next` on belong to the operation being drawn.
  void Begin(uint64_t next) { from_ = next; }
  // That operation ended with outcome, having drawn inserts [from, end).
  void Settle(uint64_t end, Outcome outcome) {
    if (outcome != Outcome::kOk && outcome != Outcome::kAmbiguous) return;
    std::vector<uint64_t>& bits = outcome == Outcome::kOk ? acked_ : ambiguous_;
    for (uint64_t k = from_; k < end; ++k) {
      // Grows by doubling: a few allocations over a phase, not one per op.
      if (bits.size() <= k / 64) bits.resize(std::max<size_t>(k / 64 + 1, bits.size() * 2), 0);
      bits[k / 64] |= uint64_t{1} << (k % 64);
    }
    from_ = end;
  }

  int64_t Id(uint64_t k) const { return int64_t(base_ + worker_ + k * stride_); }
  bool acked(uint64_t k) const { return Has(acked_, k); }
  bool ambiguous(uint64_t k) const { return Has(ambiguous_, k); }
  // One past the highest insert index either set may hold.
  uint64_t end() const { return 64 * std::max(acked_.size(), ambiguous_.size()); }

 private:
  static bool Has(const std::vector<uint64_t>& bits, uint64_t k) {
    return k / 64 < bits.size() && (bits[k / 64] >> (k % 64)) & 1;
  }

  uint64_t base_, worker_, stride_;
  uint64_t from_ = 0;
  std::vector<uint64_t> acked_, ambiguous_;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_WRITE_LEDGER_H_
