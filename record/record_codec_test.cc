#include "record/record_codec.h"

#include <gtest/gtest.h>

namespace stampede::record {
namespace {

Second Sample() {
  Second s;
  s.phase = "steady";
  s.index = 2;
  s.seq = 7;
  s.t = 12.5;
  s.phase_t = 8.0;
  s.interval_s = 1.0;
  s.agents = 2;
  s.active_workers = 16;
  OpSecond& op = s.ops["select"];
  op.outcomes = {900, 1, 2, 3, 4};
  op.retries = 5;
  op.missed = 6;
  for (uint64_t v = 1000; v < 5'000'000; v += 977) op.latency.Record(v);
  s.ops["update"].outcomes[0] = 10;
  s.agent_ops = {{"a1", 500}, {"a2", 420}};
  s.from = {"a1", "a2"};
  s.agent_cpu_s = {{"a1", 0.25}};
  s.endpoints["127.0.0.1:5432"] = {1, 2, 3};
  return s;
}

TEST(RecordCodec, SecondRoundTripsThroughTheJournalForm) {
  const Second s = Sample();
  const Json line = EncodeSecond(s);
  ASSERT_TRUE(IsSecond(line));
  // Read back from text, as the journal is.
  const Second back = DecodeSecond(Json::parse(line.dump()));
  EXPECT_EQ(back.phase, "steady");
  EXPECT_EQ(back.index, 2u);
  EXPECT_EQ(back.seq, 7u);
  EXPECT_DOUBLE_EQ(back.t, 12.5);
  EXPECT_DOUBLE_EQ(back.phase_t, 8.0);
  EXPECT_EQ(back.agents, 2u);
  EXPECT_EQ(back.active_workers, 16u);
  ASSERT_EQ(back.ops.size(), 2u);
  const OpSecond& op = back.ops.at("select");
  EXPECT_EQ(op.outcomes, s.ops.at("select").outcomes);
  EXPECT_EQ(op.retries, 5u);
  EXPECT_EQ(op.missed, 6u);
  EXPECT_EQ(op.latency.count(), s.ops.at("select").latency.count());
  EXPECT_EQ(op.latency.ValueAtQuantile(0.99), s.ops.at("select").latency.ValueAtQuantile(0.99));
  EXPECT_EQ(op.latency.max_ns(), s.ops.at("select").latency.max_ns());
  EXPECT_EQ(back.agent_ops, s.agent_ops);
  EXPECT_EQ(back.from, s.from);
  EXPECT_EQ(back.agent_cpu_s, s.agent_cpu_s);
  EXPECT_EQ(back.endpoints.at("127.0.0.1:5432").connect_failures, 3u);
  EXPECT_FALSE(back.late);
  EXPECT_EQ(back.Count(), 920u);
  EXPECT_EQ(back.Errors(), 10u);
  EXPECT_EQ(back.Missed(), 6u);
}

TEST(RecordCodec, OptionalFieldsAreLeftOutAsBefore) {
  Second s;
  s.ops["x"].outcomes[0] = 1;
  const Json line = EncodeSecond(s);
  EXPECT_FALSE(line.contains("late"));
  EXPECT_FALSE(line.contains("endpoints"));
  EXPECT_FALSE(line["ops"]["x"].contains("missed"));
  s.late = true;
  EXPECT_TRUE(EncodeSecond(s).value("late", false));
}

TEST(RecordCodec, WrongTypesAndRangesReadAsDefaultsWithoutThrowing) {
  const Json odd = Json::parse(R"({"type":"second","phase":7,"index":-3,"seq":"x","t":"soon",
    "interval_s":null,"agents":1e300,"ops":{"a":{"outcomes":[-1,"2",3.5,1e40],"latency":{"b":[[-1,5],[99999,1],
    ["1",2],[3,-4],[5]],"sum_ns":-1}},"b":7},"agent_ops":[],"from":[1,"a2"],"endpoints":{"e":3},"late":"yes"})");
  Second s;
  ASSERT_NO_THROW(s = DecodeSecond(odd));
  EXPECT_EQ(s.phase, "");
  EXPECT_EQ(s.index, 0u);
  EXPECT_EQ(s.seq, 0u);
  EXPECT_DOUBLE_EQ(s.t, 0.0);
  EXPECT_DOUBLE_EQ(s.interval_s, 1.0);
  EXPECT_EQ(s.agents, 0u);
  EXPECT_FALSE(s.late);
  const OpSecond& a = s.ops.at("a");
  EXPECT_EQ(a.outcomes[0], 0u);
  EXPECT_EQ(a.outcomes[1], 0u);
  EXPECT_EQ(a.outcomes[2], 3u);
  EXPECT_EQ(a.outcomes[3], 0u);
  EXPECT_EQ(a.latency.count(), 0u);  // [3,-4] counts 0
  EXPECT_EQ(s.from, std::vector<std::string>{"a2"});
  EXPECT_NO_THROW(DecodeSecond(Json::array()));
  EXPECT_NO_THROW(DecodeSecond(Json("text")));
}

}  // namespace
}  // namespace stampede::record
