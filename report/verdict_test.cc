#include "report/verdict.h"

#include <gtest/gtest.h>

#include "report/writes_check.h"

namespace stampede::report {
namespace {

record::Expectation Expect(const std::string& scope, const std::string& subject, const std::string& text) {
  auto e = record::ParseExpectation(scope, subject, text);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return *e;
}

RunSummary Summary() {
  RunSummary s;
  PhaseSummary p;
  p.name = "mixed";
  p.duration_s = 10;
  OpSummary read, write;
  read.name = "read";
  write.name = "write";
  for (int i = 0; i < 100; ++i) read.latency.Record(1'000'000);    // 1 ms
  for (int i = 0; i < 100; ++i) write.latency.Record(30'000'000);  // 30 ms
  read.outcomes[0] = 100;
  write.outcomes[0] = 98;
  write.outcomes[int(Outcome::kFatal)] = 2;
  read.missed = 3;
  p.ops = {read, write};
  s.phases.push_back(p);
  FaultRecovery kill;
  kill.action = "kill";
  kill.node = "db3";
  kill.ok = true;
  kill.t = 5;
  kill.observed = true;
  kill.probed = true;
  kill.unavailable_s = 4;
  kill.recovered_s = -1;  // not within the run
  kill.healthy_s = 8;
  kill.dip = 0;
  FaultRecovery start = kill;
  start.action = "start";
  start.t = 9;
  start.dip = -1;
  s.faults = {kill, start};
  return s;
}

TEST(VerdictTest, EachConditionIsCheckedWhereItAppliesWithItsMeasuredValue) {
  RunSummary s = Summary();
  s.expect = {Expect("phase", "mixed", "p99 < 20ms"),          Expect("phase", "mixed", "read.p99 < 20ms"),
              Expect("phase", "*", "errors.fatal == 0"),       Expect("phase", "mixed", "missed <= 3"),
              Expect("phase", "mixed", "ops_per_s >= 19.8"),   Expect("fault", "kill", "unavailability < 5s"),
              Expect("fault", "*", "time_to_recovered < 30s"), Expect("fault", "*", "lowest_throughput >= 50%")};
  Verdict v = Evaluate(s);
  ASSERT_EQ(v.checks.size(), 9u);  // a start has no lowest throughput to check
  auto check = [&](size_t i, const std::string& where, const std::string& measured, bool pass) {
    EXPECT_EQ(v.checks[i].where, where) << i;
    EXPECT_EQ(v.checks[i].measured, measured) << i;
    EXPECT_EQ(v.checks[i].pass, pass) << i;
  };
  check(0, "phase mixed", v.checks[0].measured, false);  // the worst op's p99: write's 30 ms
  EXPECT_NE(v.checks[0].measured.find(" ms"), std::string::npos);
  check(1, "phase mixed, op read", v.checks[1].measured, true);
  check(2, "phase mixed", "2", false);
  check(3, "phase mixed", "3", true);
  check(4, "phase mixed", "20.0/s", true);  // both ops: 200 in 10 s
  check(5, "fault 0: kill db3 at 5.0 s", "4.00 s", true);
  check(6, "fault 0: kill db3 at 5.0 s", "not recovered within the run", false);
  check(7, "fault 1: start db3 at 9.0 s", "not recovered within the run", false);
  check(8, "fault 0: kill db3 at 5.0 s", "0.0%", false);  // a start's dip is not checked
  EXPECT_EQ(v.failed(), 5u);
  EXPECT_FALSE(v.passed());
  const std::string md = RenderVerdictMarkdown(v);
  EXPECT_NE(md.find("## Verdict: FAILED (4 of 9 checks met)"), std::string::npos) << md;
  EXPECT_NE(md.find("| errors.fatal == 0 | phase mixed | 2 | **FAIL** |"), std::string::npos) << md;
  EXPECT_NE(FailedChecksLine(v).find("5 of 9 checks failed: p99 < 20ms (phase mixed: "), std::string::npos);
  Json j = VerdictToJson(v);
  EXPECT_EQ(j["failed"], 5);
  EXPECT_EQ(j["checks"][5]["pass"], true);
}

TEST(VerdictTest, WhatDidNotHappenFailsInsteadOfPassingSilently) {
  RunSummary s = Summary();
  s.faults[0].ok = false;
  s.faults[0].message = "no such process";
  s.faults[1].probed = false;
  s.faults[1].healthy_s = -1;
  s.expect = {Expect("phase", "insert", "errors == 0"), Expect("phase", "mixed", "scan.p99 < 1s"),
              Expect("fault", "pause", "unavailability < 1s"), Expect("fault", "kill", "unavailability < 10s"),
              Expect("fault", "start", "time_to_healthy < 60s")};
  Verdict v = Evaluate(s);
  ASSERT_EQ(v.checks.size(), 5u);
  EXPECT_EQ(v.checks[0].measured, "no phase named insert ran");
  EXPECT_EQ(v.checks[1].measured, "no op named scan");
  EXPECT_EQ(v.checks[2].measured, "no pause fault ran");
  EXPECT_EQ(v.checks[3].measured, "the fault did not take effect: no such process");
  EXPECT_EQ(v.checks[4].measured, "no health probe");
  EXPECT_EQ(v.failed(), 5u);
}

// check_writes: lost writes are judged only when every acknowledged one
// was read back; an unchecked phase fails instead of passing.
TEST(VerdictTest, LostWritesNeedTheReadBack) {
  RunSummary s = Summary();
  s.phases.push_back(s.phases[0]);
  s.phases[1].name = "insert";
  record::WritesChecked w;
  w.phase = "insert";
  w.index = 1;
  w.acked = 5000;
  w.lost = 2;
  w.ambiguous = 4;
  w.ambiguous_found = 3;
  w.lost_ids = {17, 21};
  s.phases[1].writes = w;
  s.expect = {Expect("phase", "insert", "lost_writes == 0"), Expect("phase", "insert", "acked_writes >= 5000"),
              Expect("phase", "mixed", "lost_writes == 0")};
  Verdict v = Evaluate(s);
  ASSERT_EQ(v.checks.size(), 3u);
  EXPECT_EQ(v.checks[0].measured, "2");
  EXPECT_FALSE(v.checks[0].pass);
  EXPECT_TRUE(v.checks[1].pass);
  EXPECT_EQ(v.checks[2].measured,
            "not checked (no read-back: the phase needs check_writes: true, and the run must get that far)");
  EXPECT_FALSE(v.checks[2].pass);
  s.phases[1].writes->lost = 0;
  s.phases[1].writes->unchecked = 40;
  s.expect = {Expect("phase", "insert", "lost_writes == 0"), Expect("phase", "insert", "unchecked_writes == 0")};
  v = Evaluate(s);
  EXPECT_EQ(v.checks[0].measured, "0 lost, but 40 not checked");
  EXPECT_FALSE(v.checks[0].pass);
  EXPECT_EQ(v.checks[1].measured, "40");
  EXPECT_EQ(WritesMarkdown(*s.phases[1].writes),
            "Acknowledged writes: 5000 inserts acknowledged, 0 lost among those read back; 4 ambiguous (connection "
            "lost before the answer): 3 committed; **40 not checked** (4964 read).");
  s.phases[1].writes->lost = 2;
  s.phases[1].writes->unchecked = 0;
  EXPECT_EQ(WritesMarkdown(*s.phases[1].writes),
            "Acknowledged writes: 5000 inserts acknowledged, **2 lost** (not found twice, 1 s apart); ids: 17, 21; "
            "4 ambiguous (connection lost before the answer): 3 committed.");
}

// A failed insert the database holds is a row beyond acknowledged +
// ambiguous: the run counted an outcome wrong.
TEST(VerdictTest, FailedInsertsFoundAreUnexpectedWrites) {
  RunSummary s = Summary();
  record::WritesChecked w;
  w.phase = "mixed";
  w.acked = 900;
  w.failed = 30;
  w.failed_found = 2;
  w.failed_found_ids = {5, 8};
  s.phases[0].writes = w;
  s.expect = {Expect("phase", "mixed", "unexpected_writes == 0"), Expect("phase", "mixed", "lost_writes == 0")};
  Verdict v = Evaluate(s);
  ASSERT_EQ(v.checks.size(), 2u);
  EXPECT_EQ(v.checks[0].measured, "2");
  EXPECT_FALSE(v.checks[0].pass);
  EXPECT_TRUE(v.checks[1].pass);
  EXPECT_EQ(WritesMarkdown(w),
            "Acknowledged writes: 900 inserts acknowledged, every one read back (0 lost); 30 failed inserts (any other "
            "outcome) read back: **2 found** (committed, though the run counted them as failed); ids: 5, 8.");
  w.failed_found = 0;
  w.failed_found_ids.clear();
  w.unchecked = 3;
  s.phases[0].writes = w;
  v = Evaluate(s);
  EXPECT_EQ(v.checks[0].measured, "0 unexpected, but 3 not checked");
  EXPECT_EQ(WritesMarkdown(w),
            "Acknowledged writes: 900 inserts acknowledged, 0 lost among those read back; 30 failed inserts (any other "
            "outcome) read back: none found (rows <= acknowledged + ambiguous); **3 not checked** (927 read).");
}

// "unavailability < 1.5x history": against the median of the plan's
// earlier runs, once there are 3 of them; before, it passes, saying so.
TEST(VerdictTest, RelativeToHistory) {
  RunSummary s = Summary();
  s.expect = {Expect("fault", "kill", "unavailability < 1.5x history"), Expect("phase", "mixed", "p99 <= 2x history")};
  Verdict v = Evaluate(s);
  ASSERT_EQ(v.checks.size(), 2u);
  EXPECT_TRUE(v.passed());
  EXPECT_EQ(v.checks[0].key, "fault 0: kill db3: unavailability");
  EXPECT_EQ(v.checks[0].measured, "4.00 s (not enough history: no run history read)");
  EXPECT_EQ(v.checks[1].key, "phase mixed: p99");

  s.history = "history.db";
  s.baseline["fault 0: kill db3: unavailability"] = {2.0, 2};
  v = Evaluate(s);
  EXPECT_TRUE(v.checks[0].pass);
  EXPECT_EQ(v.checks[0].measured, "4.00 s (not enough history: 2 earlier runs)");

  s.baseline["fault 0: kill db3: unavailability"] = {2.0, 5};  // 4 s > 1.5 x 2 s
  s.baseline["phase mixed: p99"] = {0.02, 3};                  // 30 ms <= 2 x 20 ms
  v = Evaluate(s);
  EXPECT_FALSE(v.checks[0].pass);
  EXPECT_EQ(v.checks[0].measured, "4.00 s (history 2.00 s, median of 5 runs; limit 3.00 s)");
  EXPECT_TRUE(v.checks[1].pass) << v.checks[1].measured;
  EXPECT_EQ(VerdictToJson(v)["checks"][0]["value"], 4.0);
  EXPECT_EQ(VerdictToJson(v)["checks"][0]["key"], "fault 0: kill db3: unavailability");
}

TEST(VerdictTest, NoExpectationsNoVerdict) {
  Verdict v = Evaluate(Summary());
  EXPECT_TRUE(v.checks.empty());
  EXPECT_TRUE(v.passed());
  EXPECT_EQ(RenderVerdictMarkdown(v), "");
}

}  // namespace
}  // namespace stampede::report
