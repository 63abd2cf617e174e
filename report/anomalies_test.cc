#include "report/anomalies.h"

#include <gtest/gtest.h>

#include "record/record_codec.h"
#include "report/verdict.h"

namespace stampede::report {
namespace {

record::Second SecondWith(double t, uint64_t wrong, int examples, bool final = false) {
  record::Second s;
  s.phase = "bank";
  s.t = t;
  if (wrong) s.anomalies["wrong_total"] = wrong;
  for (int i = 0; i < examples; ++i) {
    s.anomaly_examples.push_back(
        {"wrong_total", t - 0.5 + i * 0.01, "a1", "127.0.0.1:5432", "read", -1, 1000, 990 + i, 0, final, ""});
  }
  return s;
}

TEST(AnomaliesTest, CountsSecondsAndKeepsTheFirstExamplesAndTheFinalRead) {
  PhaseAnomalies a;
  a.Add(SecondWith(1, 0, 0));
  a.Add(SecondWith(2, 7, 7));
  a.Add(SecondWith(3, 20, 8));
  a.Add(SecondWith(4, 1, 1, /*final=*/true));
  EXPECT_EQ(a.total(), 28u);
  EXPECT_EQ(a.seconds, (std::vector<double>{2, 3, 4}));
  ASSERT_EQ(a.examples.size(), PhaseAnomalies::kExamplesPerKind + 1);  // 10, and the final read's
  EXPECT_TRUE(a.examples.back().final);
  const std::string md = AnomaliesMarkdown(a, "bank");
  EXPECT_NE(md.find("**Consistency: 28 anomalies** (docs/consistency.md), in 3 seconds."), std::string::npos) << md;
  EXPECT_NE(md.find("| wrong_total | 28 | read total 990, expected 1000 (127.0.0.1:5432, agent a1, 1.50 s)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("the final read's total 990, expected 1000"), std::string::npos) << md;
  const nlohmann::json j = AnomaliesToJson(a);
  EXPECT_EQ(j["total"], 28);
  EXPECT_EQ(j["by_kind"]["wrong_total"], 28);
  EXPECT_EQ(j["examples"].size(), 11u);
}

TEST(AnomaliesTest, AWorkloadThatChecksSaysSoWhenItFoundNothing) {
  PhaseAnomalies none;
  EXPECT_EQ(AnomaliesMarkdown(none, "bank"), "Consistency: 0 anomalies (docs/consistency.md).");
  EXPECT_EQ(AnomaliesMarkdown(none, "crud"), "");
}

// A history check with events missing found what it found in the rest;
// that none were found there says nothing, and an expectation on anomalies
// fails as unknown.
TEST(AnomaliesTest, AHistoryWithEventsMissingIsUnknownNotClean) {
  record::HistoryChecked h;
  h.transactions = 63079;
  h.missing = 37275;
  RunSummary s;
  PhaseSummary append;
  append.name = "append";
  append.workload = "append";
  const auto back = record::Decode(record::Encode(record::Record(h)));  // as the journal keeps it
  ASSERT_TRUE(back && std::holds_alternative<record::HistoryChecked>(*back));
  append.anomalies.Add(std::get<record::HistoryChecked>(*back));
  EXPECT_EQ(AnomaliesMarkdown(append.anomalies, "append")
                .rfind("**Consistency: unknown:** 37275 history events missing (the agents could not send them) "
                       "(docs/consistency.md); in the rest, no anomalies.",
                       0),
            0u)
      << AnomaliesMarkdown(append.anomalies, "append");
  EXPECT_EQ(AnomaliesToJson(append.anomalies)["history"]["missing"], 37275);
  s.phases = {append};
  auto e = record::ParseExpectation("phase", "*", "anomalies == 0");
  ASSERT_TRUE(e.ok());
  s.expect.push_back(*e);
  const Verdict v = Evaluate(s);
  ASSERT_EQ(v.checks.size(), 1u);
  EXPECT_FALSE(v.checks[0].pass);
  EXPECT_EQ(v.checks[0].measured, "unknown: 37275 history events missing (the agents could not send them)");
}

TEST(AnomaliesTest, TheJournalKeepsThemOnTheSecondsLine) {
  const record::Second s = SecondWith(5, 3, 2, true);
  const record::Second back = record::DecodeSecond(record::EncodeSecond(s));
  EXPECT_EQ(back.anomalies, s.anomalies);
  ASSERT_EQ(back.anomaly_examples.size(), 2u);
  EXPECT_EQ(back.anomaly_examples[1].got, 991);
  EXPECT_EQ(back.anomaly_examples[1].endpoint, "127.0.0.1:5432");
  EXPECT_TRUE(back.anomaly_examples[1].final);
  const record::Second plain = record::DecodeSecond(record::EncodeSecond(SecondWith(5, 0, 0)));
  EXPECT_TRUE(plain.anomalies.empty());
  EXPECT_FALSE(record::EncodeSecond(SecondWith(5, 0, 0)).contains("anomalies"));
}

TEST(AnomaliesTest, ExpectationsCountThemPerPhaseAndOnlyWhereChecked) {
  RunSummary s;
  PhaseSummary bank, crud;
  bank.name = "bank";
  bank.workload = "bank";
  bank.anomalies.Add(SecondWith(2, 4, 1));
  crud.name = "load";
  crud.workload = "crud";
  s.phases = {bank, crud};
  for (const char* text : {"anomalies == 0", "anomalies.wrong_total < 5", "anomalies.stale_read == 0"}) {
    auto e = record::ParseExpectation("phase", "*", text);
    ASSERT_TRUE(e.ok()) << e.status().message();
    s.expect.push_back(*e);
  }
  const Verdict v = Evaluate(s);
  ASSERT_EQ(v.checks.size(), 6u);  // each condition on each phase
  EXPECT_FALSE(v.checks[0].pass);
  EXPECT_EQ(v.checks[0].measured, "4");
  EXPECT_FALSE(v.checks[1].pass);
  EXPECT_NE(v.checks[1].measured.find("not checked: workload crud has no consistency check"), std::string::npos);
  EXPECT_TRUE(v.checks[2].pass);
  EXPECT_TRUE(v.checks[4].pass);
}

}  // namespace
}  // namespace stampede::report
