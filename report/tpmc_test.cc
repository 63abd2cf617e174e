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

// With wait, the share of 12.86 New-Orders a minute per warehouse (scaled
// by the waits); without, none, and the note says it is a throughput.
TEST(Tpmc, EfficiencyOnlyWithWait) {
  PhaseSummary p = TpccRun(10);  // 40 a minute
  EXPECT_FALSE(TpmcEfficiency(p).has_value());
  EXPECT_NE(TpmcNote(p).find("not a conforming tpmC"), std::string::npos);
  p.params = {{"warehouses", "4"}, {"wait", "1"}};
  ASSERT_TRUE(TpmcEfficiency(p).has_value());
  EXPECT_NEAR(*TpmcEfficiency(p), 40 / (12.86 * 4), 1e-9);
  EXPECT_EQ(TpmcLine(p).rfind("tpmC 40, efficiency 77.8% (New-Orders a minute, with the specification's", 0), 0u)
      << TpmcLine(p);
  p.params["wait"] = "0.1";
  EXPECT_NEAR(*TpmcEfficiency(p), 40 * 0.1 / (12.86 * 4), 1e-9);
  EXPECT_NE(TpmcNote(p).find("scaled by 0.1: not a conforming tpmC"), std::string::npos) << TpmcNote(p);
  Json j;
  AddTpmcJson(p, &j);
  EXPECT_EQ(j["tpmc"], 40.0);
  EXPECT_TRUE(j.contains("tpmc_efficiency"));
  EXPECT_EQ(j["tpmc_note"], TpmcNote(p));
}

}  // namespace
}  // namespace stampede::report
