// ycsb: the YCSB core workloads A-F on a table usertable(ycsb_key
// VARCHAR(64) PRIMARY KEY, field0..fieldN-1), keys "user" + FNV-64(keynum).
//
//   mix  read  update  insert  scan  read-modify-write  distribution
//   a    0.50  0.50                                      zipfian
//   b    0.95  0.05                                      zipfian
//   c    1.00                                            zipfian
//   d    0.95          0.05                              latest
//   e                  0.05    0.95                      zipfian (scan length uniform 1..max_scan_length)
//   f    0.50                        0.50                zipfian
//
// With `load: true` (default) the phase runs in two steps: "load" inserts
// keynums 0..records-1 (worker g of W: g, g+W, ...; disjoint across agents)
// and "run" runs the mix for the phase's duration or ops. Zipfian is YCSB's
// constant 0.99 with FNV scrambling over [0, records); "latest" favours the
// most recently inserted keys (estimated from this worker's own inserts,
// assuming every worker inserts at the same pace).
// Updates write one random field; inserts write all. Redis: a hash per key
// (PREFIX:user...), and a sorted set PREFIX:index of keys (score 0) that
// inserts add to and scans read with ZRANGEBYLEX.
#ifndef STAMPEDE_WORKLOADS_YCSB_WORKLOAD_H_
#define STAMPEDE_WORKLOADS_YCSB_WORKLOAD_H_

#include <memory>

#include "workloads/random_string.h"
#include "workloads/workload.h"
#include "workloads/workload_registry.h"
#include "workloads/zipfian_generator.h"

namespace stampede::workloads {

class YcsbWorkload : public StatementWorkload {
 public:
  static const std::vector<ParamSpec>& ParamSpecs();
  static StatusOr<std::unique_ptr<Workload>> Create(const WorkloadContext& ctx, const Params& params);
  static std::vector<StepSpec> Steps(const Params& params, uint32_t workers);

  std::unique_ptr<WorkerOps> MakeWorker(uint32_t global_worker) const override;

  enum Op { kRead = 0, kUpdate, kInsert, kScan, kReadModifyWrite, kNumOps };
  // Statements: read, scan, insert, index (Redis insert's second command),
  // then one update per field.
  enum Stmt { kStmtRead = 0, kStmtScan, kStmtInsert, kStmtIndex, kStmtUpdate0 };
  enum class Distribution { kUniform, kZipfian, kLatest };
  static constexpr int kMaxFields = 12;
  // Inserts of run phase p start at keynum records + p x kPhaseKeySpan.
  static constexpr uint64_t kPhaseKeySpan = 1'000'000'000'000;

  struct Config {
    uint64_t records = 0;
    int fields = 10;
    int field_length = 100;
    int max_scan_length = 100;
    double weights[kNumOps] = {};
    Distribution distribution = Distribution::kZipfian;
    bool load = false;  // this phase is the load step
    bool redis = false;
    std::string key_prefix;  // Redis: "usertable:"
  };

 private:
  YcsbWorkload() = default;
  WorkloadContext ctx_;
  Config config_;
  std::shared_ptr<const ZipfianGenerator> zipf_;
  std::unique_ptr<const RandomText> text_;  // field values
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_YCSB_WORKLOAD_H_
