#include <gtest/gtest.h>

#include <set>

#include "workloads/workload_registry.h"

namespace stampede::workloads {
namespace {

TEST(WorkloadRegistryTest, NamesAreUnique) { EXPECT_TRUE(CheckWorkloadRegistry().ok()); }

// Inserts of all workers, on however many agents, never share a key, and the
// stream of a worker does not depend on which agent runs it.
TEST(CrudWorkloadTest, InsertKeysAreDisjointAcrossWorkers) {
  WorkloadContext ctx;
  ctx.seed = 42;
  ctx.total_workers = 8;
  auto w = CreateWorkload("crud", ctx, {});
  ASSERT_TRUE(w.ok()) << w.status().message();
  std::set<int64_t> seen;
  for (uint32_t g = 0; g < 8; ++g) {
    auto ops = (*w)->MakeWorker(g);
    for (int i = 0; i < 1000; ++i) {
      drivers::OpRequest req;
      ASSERT_EQ(ops->Next(&req), 0);
      EXPECT_TRUE(seen.insert(req.params[0].i).second) << req.params[0].i;
    }
  }
  EXPECT_EQ(seen.size(), 8000u);
  EXPECT_EQ(*seen.rbegin(), 7999);
}

TEST(CrudWorkloadTest, SameSeedSameStream) {
  WorkloadContext ctx;
  ctx.seed = 7;
  ctx.total_workers = 4;
  std::map<std::string, std::string> params = {{"insert", "1"}, {"select", "3"}};
  auto a = CreateWorkload("crud", ctx, params);
  auto b = CreateWorkload("crud", ctx, params);
  auto wa = (*a)->MakeWorker(2), wb = (*b)->MakeWorker(2);
  for (int i = 0; i < 100; ++i) {
    drivers::OpRequest ra, rb;
    ASSERT_EQ(wa->Next(&ra), wb->Next(&rb));
    EXPECT_EQ(ra.params[0].i, rb.params[0].i);
  }
}

TEST(CrudWorkloadTest, RejectsAllZeroWeights) {
  WorkloadContext ctx;
  auto w = CreateWorkload("crud", ctx, {{"insert", "0"}});
  EXPECT_FALSE(w.ok());
}

TEST(KvWorkloadTest, ReadFractionAndDialects) {
  for (auto d : {drivers::Dialect::kPostgres, drivers::Dialect::kMysql, drivers::Dialect::kRedis}) {
    WorkloadContext ctx;
    ctx.dialect = d;
    auto w = CreateWorkload("kv", ctx, {{"read", "0.9"}, {"keys", "1000"}});
    ASSERT_TRUE(w.ok());
    auto ops = (*w)->MakeWorker(0);
    int reads = 0;
    for (int i = 0; i < 10000; ++i) {
      drivers::OpRequest req;
      if (ops->Next(&req) == 0) ++reads;
      EXPECT_LT(req.params[0].i, 1000);
    }
    EXPECT_NEAR(reads / 10000.0, 0.9, 0.02);
    EXPECT_EQ((*w)->statements().size(), 2u);
  }
}

}  // namespace
}  // namespace stampede::workloads
