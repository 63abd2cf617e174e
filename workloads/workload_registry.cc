#include "workloads/workload_registry.h"

#include <set>

#include "workloads/append_workload.h"
#include "workloads/bank_workload.h"
#include "workloads/crud_workload.h"
#include "workloads/custom_workload.h"
#include "workloads/geo_workload.h"
#include "workloads/hugedb_workload.h"
#include "workloads/kv_workload.h"
#include "workloads/orm_workload.h"
#include "workloads/rebalance_workload.h"
#include "workloads/register_workload.h"
#include "workloads/tpcc_workload.h"
#include "workloads/ycsb_workload.h"

namespace stampede::workloads {

const std::vector<WorkloadInfo>& Workloads() {
  static const std::vector<WorkloadInfo> kWorkloads = {
      {"crud", "insert/select/update/delete by id on a two-column table (dbbench)", &CrudWorkload::ParamSpecs,
       &CrudWorkload::Create, &CrudWorkload::Steps},
      {"kv", "read/write mix over a fixed key space, uniform or zipfian", &KvWorkload::ParamSpecs, &KvWorkload::Create},
      {"rebalance2021", "the rebalance benchmark: InsertOne, Count, UpdateOne, Count, SelectOne, each a step",
       &RebalanceWorkload::ParamSpecs, &RebalanceWorkload::Create, &RebalanceWorkload::Steps},
      {"custom", "operations declared in the plan (custom:), with parameter generators", &CustomWorkload::ParamSpecs,
       &CustomWorkload::Create},
      {"geo", "points on a map: insert, search the nearest within a radius, move (PostgreSQL earthdistance, Redis GEO)",
       &GeoWorkload::ParamSpecs, &GeoWorkload::Create, &GeoWorkload::Steps},
      {"hugedb2019", "users, items and rels: inserts, then concurrent searches and updates (the 2019 hugedb benchmark)",
       &HugedbWorkload::ParamSpecs, &HugedbWorkload::Create, &HugedbWorkload::Steps},
      {"orm2019", "a 2019 ORM benchmark: Insert, MultiInsert (100 rows), Update, Read, MultiRead (limit 100)",
       &OrmWorkload::ParamSpecs, &OrmWorkload::Create, &OrmWorkload::Steps},
      {"bank", "transfers between accounts and reads of their total, which must not change (consistency)",
       &BankWorkload::ParamSpecs, &BankWorkload::Create},
      {"append", "transactions of list appends and reads, kept as an Elle-compatible history and checked (consistency)",
       &AppendWorkload::ParamSpecs, &AppendWorkload::Create},
      {"register",
       "pairs of workers: one writes a key through one endpoint, the other reads it through another (stale reads)",
       &RegisterWorkload::ParamSpecs, &RegisterWorkload::Create},
      {"ycsb", "YCSB core workloads a-f: a load step, then the read/update/insert/scan mix", &YcsbWorkload::ParamSpecs,
       &YcsbWorkload::Create, &YcsbWorkload::Steps},
      {"tpcc", "TPC-C's nine tables loaded for W warehouses, and its consistency conditions 1 to 5, 8 and 9 checked",
       &TpccWorkload::ParamSpecs, &TpccWorkload::Create, &TpccWorkload::Steps, &TpccWorkload::LoadRows},
  };
  return kWorkloads;
}

const WorkloadInfo* FindWorkload(const std::string& name) {
  for (const WorkloadInfo& w : Workloads()) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

std::vector<std::string> WorkloadNames() {
  std::vector<std::string> names;
  for (const WorkloadInfo& w : Workloads()) names.push_back(w.name);
  return names;
}

Status CheckWorkloadRegistry() {
  std::set<std::string> seen;
  for (const WorkloadInfo& w : Workloads()) {
    if (!seen.insert(w.name).second) return Status::Error("duplicate workload '" + w.name + "'");
  }
  return Status::Ok();
}

uint64_t ProgressRows(const std::string& workload, const std::map<std::string, std::string>& params,
                      const std::string& step) {
  const WorkloadInfo* info = FindWorkload(workload);
  if (!info || !info->progress_rows) return 0;
  return info->progress_rows(Params(info->param_specs(), params), step);
}

StatusOr<std::unique_ptr<Workload>> CreateWorkload(const std::string& name, const WorkloadContext& ctx,
                                                   const std::map<std::string, std::string>& params) {
  const WorkloadInfo* info = FindWorkload(name);
  if (!info) return Status::Error("unknown workload '" + name + "'");
  return info->factory(ctx, Params(info->param_specs(), params));
}

StatusOr<int> StepIndex(const std::string& workload, const std::vector<std::string>& names, const std::string& step) {
  if (step.empty()) return 0;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == step) return int(i);
  }
  return Status::Error(workload + ": unknown step '" + step + "'");
}

}  // namespace stampede::workloads
