#include "workloads/register_workload.h"

#include <gtest/gtest.h>

#include "workloads/workload_registry.h"

namespace stampede::workloads {
namespace {

drivers::OpResult Ok(int64_t value = 0) {
  drivers::OpResult r;
  r.rows = 1;
  r.value = value;
  return r;
}

TEST(RegisterWorkloadTest, APairWritesAndReadsOneKey) {
  WorkloadContext ctx;
  ctx.total_workers = 4;
  auto w = CreateWorkload("register", ctx, {{"table", "r"}});
  ASSERT_TRUE(w.ok()) << w.status().message();
  auto writer = (*w)->MakeWorker(2), reader = (*w)->MakeWorker(3), other = (*w)->MakeWorker(1);
  drivers::OpRequest req;
  ASSERT_EQ(writer->Next(&req), RegisterWorkload::kWriteOp);
  EXPECT_EQ(req.params[0].i, 1);                      // pair 1's key
  EXPECT_EQ(req.params[1].i, 1);                      // the first value
  writer->Observe(RegisterWorkload::kWriteOp, Ok());  // acknowledged
  ASSERT_EQ(reader->Next(&req), RegisterWorkload::kReadOp);
  EXPECT_EQ(req.params[0].i, 1);
  reader->Observe(RegisterWorkload::kReadOp, Ok(0));  // missed value 1
  ASSERT_TRUE(reader->flagged());
  const AnomalyNote n = reader->TakeFlag();
  EXPECT_EQ(n.kind, Anomaly::kStaleRead);
  EXPECT_EQ(n.key, 1);
  EXPECT_EQ(n.expected, 1);
  EXPECT_EQ(n.got, 0);
  EXPECT_GE(n.lag_ns, 0);
  // Up to date, or ahead of what was acknowledged (an ambiguous write that
  // committed): fine.
  reader->Next(&req);
  reader->Observe(RegisterWorkload::kReadOp, Ok(1));
  EXPECT_FALSE(reader->flagged());
  writer->Next(&req);
  drivers::OpResult lost = Ok();
  lost.outcome = Outcome::kAmbiguous;
  writer->Observe(RegisterWorkload::kWriteOp, lost);  // value 2 not acknowledged
  reader->Next(&req);
  reader->Observe(RegisterWorkload::kReadOp, Ok(1));
  EXPECT_FALSE(reader->flagged());
  // Another pair's reader expects nothing of key 1.
  other->Next(&req);
  EXPECT_EQ(req.params[0].i, 0);
  other->Observe(RegisterWorkload::kReadOp, Ok(0));
  EXPECT_FALSE(other->flagged());
}

}  // namespace
}  // namespace stampede::workloads
