// kv: a read/write mix over a fixed key space (k BIGINT PRIMARY KEY, v),
// keys drawn uniformly or from a scrambled zipfian. Writes are upserts, so
// any worker may write any key. `preload` fills every key before the phase.
#ifndef STAMPEDE_WORKLOADS_KV_WORKLOAD_H_
#define STAMPEDE_WORKLOADS_KV_WORKLOAD_H_

#include <memory>

#include "workloads/random_string.h"
#include "workloads/workload.h"
#include "workloads/zipfian_generator.h"

namespace stampede::workloads {

class KvWorkload : public StatementWorkload {
 public:
  static const std::vector<ParamSpec>& ParamSpecs();
  static StatusOr<std::unique_ptr<Workload>> Create(const WorkloadContext& ctx, const Params& params);

  std::unique_ptr<WorkerOps> MakeWorker(uint32_t global_worker) const override;
  std::string PipelineBlocker() const override { return ""; }

 private:
  KvWorkload() = default;
  // Every key written, kPreloadKeys a statement: the lead says how far it
  // is, and no single statement holds the server for the whole preload.
  static constexpr uint64_t kPreloadKeys = 100000;
  template <typename Statement>
  void Preload(Statement statement) {
    AddCountedSetup(keys_, kPreloadKeys, "keys", statement);
  }
  WorkloadContext ctx_;
  uint64_t keys_ = 0;
  double read_fraction_ = 0.5;
  int value_size_ = 100;
  std::shared_ptr<const ZipfianGenerator> zipf_;  // null: uniform
  std::shared_ptr<const RandomText> text_;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_KV_WORKLOAD_H_
