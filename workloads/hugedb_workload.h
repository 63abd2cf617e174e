// hugedb2019: the users / items / rels scenario of the origin.
//
// Tables (prefix `table`, default hugedb_): users(id, uniq UNIQUE),
// items(id, fk_id, typ, amount) with 4 items per user, rels(fk_low,
// fk_high, bond) linking each new user to an earlier one. Two steps:
//
//   warm   InsertUsersItems for the first 5% of the users (all workers)
//   mixed  the other 95% of the inserts, concurrently with `searches`
//          operations of each kind:
//            SearchUsers          SELECT ... FROM users WHERE uniq = $1
//            UpdateItemsAmounts   SELECT ... FROM items WHERE fk_id = $1 AND typ IN (3 types),
//                                 then 3 x UPDATE items SET amount = amount + x WHERE id = $1
//            RandomSearchItems    SELECT ... FROM items WHERE fk_id = $1
//            SearchRelsAddBonds   SELECT ... FROM rels WHERE fk_low = $1 OR fk_high = $1,
//                                 and half the time UPDATE rels SET bond = bond + 1
//
// InsertUsersItems is 1 user + 4 items + 1 rel (6 statements, one op). The
// kinds of the mixed step are spread over its operations by a fixed
// permutation, so every count is exact however many workers or agents run
// it. `slow_factor` divides `users` and `searches`, as the original's did.
// SQL targets only.
#ifndef STAMPEDE_WORKLOADS_HUGEDB_WORKLOAD_H_
#define STAMPEDE_WORKLOADS_HUGEDB_WORKLOAD_H_

#include "workloads/workload.h"
#include "workloads/workload_registry.h"

namespace stampede::workloads {

class HugedbWorkload : public StatementWorkload {
 public:
  static const std::vector<ParamSpec>& ParamSpecs();
  static StatusOr<std::unique_ptr<Workload>> Create(const WorkloadContext& ctx, const Params& params);
  static std::vector<StepSpec> Steps(const Params& params, uint32_t workers);

  std::unique_ptr<WorkerOps> MakeWorker(uint32_t global_worker) const override;

  enum Op {
    kInsertUsersItems = 0,
    kSearchUsers,
    kUpdateItemsAmounts,
    kRandomSearchItems,
    kSearchRelsAddBonds,
    kNumOps
  };
  enum Stmt {
    kInsertUser = 0,
    kInsertItem,
    kInsertRel,
    kSelectUser,
    kSelectItemsTyp,
    kUpdateAmount,
    kSelectItems,
    kSelectRels,
    kUpdateBond
  };
  static constexpr int kItemsPerUser = 4;

  struct Counts {
    uint64_t users = 0;     // after slow_factor
    uint64_t warm = 0;      // users inserted in the warm step
    uint64_t searches = 0;  // per search kind
  };
  static Counts CountsOf(const Params& params);

 private:
  HugedbWorkload() = default;
  WorkloadContext ctx_;
  Counts counts_;
  bool warm_ = true;
};

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_HUGEDB_WORKLOAD_H_
