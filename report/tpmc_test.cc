#include "report/tpmc.h"

#include <gtest/gtest.h>

namespace stampede::report {
namespace {

PhaseSummary TpccRun(uint64_t new_orders_ok) {
  PhaseSummary p;
  p.workload = "tpcc";
  p.duration_s = 15;
  OpSummary* o = p.FindOrAdd("new_order");
  o->outcomes[0] = new_orders_ok;
  o->outcomes[1] = 40;  // errors are not New-Orders done
  o->rollbacks = 9;     // rolled back ones are (counted ok)
  p.FindOrAdd("payment")->outcomes[0] = 900;
  return p;
}

TEST(Tpmc, NewOrdersThatEndedOkPerMinute) {
  const PhaseSummary p = TpccRun(1000);
  ASSERT_TRUE(Tpmc(p).has_value());
  EXPECT_DOUBLE_EQ(*Tpmc(p), 4000.0);
  EXPECT_EQ(TpmcLine(p).rfind("tpmC 4000 (", 0), 0u) << TpmcLine(p);
}

TEST(Tpmc, NoneOutsideTpccsRunStep) {
  PhaseSummary check = TpccRun(0);
  check.ops.clear();  // the check step has no New-Order
  EXPECT_FALSE(Tpmc(check).has_value());
  EXPECT_EQ(TpmcLine(check), "");
  PhaseSummary other = TpccRun(1000);
  other.workload = "crud";
  EXPECT_FALSE(Tpmc(other).has_value());
}

}  // namespace
}  // namespace stampede::report
