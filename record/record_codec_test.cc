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
  op.rollbacks = 8;
  op.rows = 12;
  for (uint64_t v = 1000; v < 5'000'000; v += 977) op.latency.Record(v);
  s.ops["update"].outcomes[0] = 10;
  s.agent_ops = {{"a1", 500}, {"a2", 420}};
  s.from = {"a1", "a2"};
  s.agent_cpu_s = {{"a1", 0.25}};
  s.progress = 0.5;
  s.progress_done = 800;
  s.progress_total = 1600;
  s.progress_unit = "rows";
  s.left_s = 3.5;
  s.endpoints["127.0.0.1:5432"] = {1, 2, 3, 40, 1.25, 1.75};
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
  EXPECT_EQ(op.rollbacks, 8u);
  EXPECT_EQ(op.rows, 12u);
  EXPECT_EQ(op.latency.count(), s.ops.at("select").latency.count());
  EXPECT_EQ(op.latency.ValueAtQuantile(0.99), s.ops.at("select").latency.ValueAtQuantile(0.99));
  EXPECT_EQ(op.latency.max_ns(), s.ops.at("select").latency.max_ns());
  EXPECT_EQ(back.agent_ops, s.agent_ops);
  EXPECT_EQ(back.from, s.from);
  EXPECT_EQ(back.agent_cpu_s, s.agent_cpu_s);
  EXPECT_DOUBLE_EQ(back.progress, 0.5);
  EXPECT_EQ(back.progress_done, 800u);
  EXPECT_EQ(back.progress_total, 1600u);
  EXPECT_EQ(back.progress_unit, "rows");
  EXPECT_DOUBLE_EQ(back.left_s, 3.5);
  EXPECT_EQ(back.endpoints.at("127.0.0.1:5432").connect_failures, 3u);
  EXPECT_EQ(back.endpoints.at("127.0.0.1:5432").ok, 40u);
  EXPECT_DOUBLE_EQ(back.endpoints.at("127.0.0.1:5432").first_ok_t, 1.25);
  EXPECT_DOUBLE_EQ(back.endpoints.at("127.0.0.1:5432").last_ok_t, 1.75);
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
  EXPECT_FALSE(line["ops"]["x"].contains("rollbacks"));
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

// Every kind: encoded, written as text, read back and encoded again gives
// the same line; and the line is the one the journal always had.
TEST(RecordCodec, SubSecondTimesRoundTripAndAreLeftOutWhenNone) {
  Second s = Sample();
  EXPECT_FALSE(Encode(s).contains("first_ok_t"));
  s.first_ok_t = 1.001;
  s.last_ok_t = 1.999;
  s.first_err_t = 1.5;
  s.last_err_t = 1.6;
  s.clock_uncertainty_s = 0.0003;
  const auto back = Decode(Json::parse(Encode(s).dump()));
  ASSERT_TRUE(back.has_value());
  const Second& b = std::get<Second>(*back);
  EXPECT_EQ(b.first_ok_t, 1.001);
  EXPECT_EQ(b.last_ok_t, 1.999);
  EXPECT_EQ(b.first_err_t, 1.5);
  EXPECT_EQ(b.last_err_t, 1.6);
  EXPECT_EQ(b.clock_uncertainty_s, 0.0003);
  EXPECT_EQ(std::get<Second>(*Decode(Encode(Sample()))).first_ok_t, -1);
}

TEST(RecordCodec, EveryKindRoundTrips) {
  RunStart run;
  run.run_id = "r1";
  run.plan_name = "p";
  run.results_dir = "/tmp/r1";
  run.started_at = "2026-12-01T00:00:00Z";
  run.target = "postgres (postgres) 127.0.0.1:5432";
  run.recovery = {5, 0.8, 3, 2, 0.15};
  run.agents = {"a1", "a2"};
  run.roles = {{"a1", "load"}, {"a2", "nodes db3"}};
  run.ns_per_op = true;
  run.resumable = true;
  run.mono_start_ns = 123456789;
  run.plan_json = R"({"name":"p","phases":[{"name":"x"}]})";
  RunEnd degraded{true, "", std::string("agent a2 lost")};
  AgentEvent lost{"lost", "a2", 4.5, "no heartbeat for 3 s", "", "", 1.5};
  HealthPoll answered{1.0,
                      0.01,
                      true,
                      true,
                      0,
                      0,
                      3,
                      "3 of 3 nodes",
                      "",
                      "slots",
                      {NodeShare{"127.0.0.1:7000", 5461, -1, 1200, -1, "master", true},
                       NodeShare{"127.0.0.1:7001", 10923, -1, -1, -1, "", false}}};
  HealthPoll failed{2.0, 0.5, false, false, 0, 0, 0, "", "connection refused", "", {}};
  const std::vector<Record> all = {
      run,
      PhaseStart{"insert", 1, "crud", 8, 0.5, 42, {"a1"}, 1000, "load", "InsertOne", 16, 1, {{"table", "t"}}},
      Sample(),
      PhaseEnd{"insert", 1, 9.5, true, 1000, 3, true},
      FaultSent{0, "insert", "kill", "db3", "a2", 2.5, false, ""},
      FaultSent{7, "", "start", "db3", "a2", 9.0, true, ""},
      FaultDone{0, "a2", true, 2.6, "killed pid 12", ""},
      answered,
      failed,
      lost,
      AgentEvent{"back", "a2", 6.0, "", "reconnected", "", std::nullopt},
      CoordinatorEvent{"restarted", 7.0, "took the run back from its journal"},
      LogLine{"a1", "hello", "/tmp/spool"},
      degraded,
      RunEnd{false, "aborted", std::nullopt},
      FaultSent{1, "insert", "loss", "db3", "a2", 3.5, false, "5%, in"},
      NodeSample{"db3", "a2", 4.0, true, 123456789, 5000000, 12.5},
      NodeSample{"db3", "a2", 5.0, false, 123456789, -1, -1},
  };
  for (const Record& r : all) {
    const Json line = Encode(r);
    const std::optional<Record> back = Decode(Json::parse(line.dump()));
    ASSERT_TRUE(back.has_value()) << line.dump();
    EXPECT_EQ(back->index(), r.index()) << line.dump();
    EXPECT_EQ(Encode(*back).dump(), line.dump());
  }
  const Json run_line = Encode(all[0]);
  EXPECT_EQ(run_line["type"], "run");
  EXPECT_EQ(run_line["version"], kJournalVersion);
  EXPECT_EQ(run_line["plan"]["phases"][0]["name"], "x");
  EXPECT_EQ(run_line["recovery"]["healthy_polls"], 2);
  EXPECT_EQ(Encode(all[1])["params"]["table"], "t");
  EXPECT_FALSE(Encode(all[4]).contains("undo"));
  EXPECT_EQ(Encode(all[5])["undo"], true);
  EXPECT_FALSE(Encode(all[4]).contains("detail"));
  EXPECT_EQ(Encode(all[all.size() - 3])["detail"], "5%, in");
  EXPECT_FALSE(Encode(all[5]).contains("phase"));
  EXPECT_FALSE(Encode(all[8]).contains("detail"));
  EXPECT_EQ(Encode(all[8])["error"], "connection refused");
  EXPECT_FALSE(Encode(all[all.size() - 4]).contains("degraded"));
  EXPECT_EQ(Encode(all[13])["degraded"], "agent a2 lost");
  EXPECT_EQ(Encode(all[all.size() - 2])["disk_bytes"], 123456789);
  EXPECT_FALSE(Encode(all.back()).contains("rss_bytes"));  // not known: left out
}

TEST(RecordCodec, WritesCheckedRoundTrips) {
  const std::vector<Record> all = {
      WritesChecked{"insert", 1, true, 3000, 2, 8, 5, 1, {7, 15}, "a2: 127.0.0.1:5432: timed out", {"a3"}, 40, 1, {33}},
      WritesChecked{
          "insert", 1, false, 0, 0, 0, 0, 0, {}, "crud: its deletes remove acknowledged inserts", {}, 0, 0, {}},
  };
  for (const Record& r : all) {
    const Json line = Encode(r);
    const std::optional<Record> back = Decode(Json::parse(line.dump()));
    ASSERT_TRUE(back.has_value()) << line.dump();
    EXPECT_EQ(Encode(*back).dump(), line.dump());
  }
  EXPECT_EQ(Encode(all[0])["type"], "writes");
  EXPECT_FALSE(Encode(all[1]).contains("agents_missing"));
  EXPECT_EQ(Encode(all[0])["failed_found_ids"], Json::array({33}));
  EXPECT_FALSE(Encode(all[1]).contains("failed"));
}

TEST(RecordCodec, HistoryCheckedRoundTrips) {
  HistoryChecked h;
  h.phase = "append";
  h.index = 2;
  h.transactions = 48000;
  h.final_keys = 2020;
  h.counts = {{"lost", 3}, {"stale_read", 1}};
  h.seconds = {{4.25, 3}, {5.5, 1}};
  AnomalyExample e;
  e.kind = "lost";
  e.t = 4.25;
  e.endpoint = "127.0.0.1:5432";
  e.op = "txn";
  e.key = 270;
  e.expected = 8663;
  e.got = -1;
  e.detail = "append 8663 acknowledged, missing from the final read [1,2] (2)";
  h.examples = {e};
  h.note = "1 events came more than a second late";
  const Json line = Encode(Record(h));
  EXPECT_EQ(line["type"], "history_check");
  const std::optional<Record> back = Decode(Json::parse(line.dump()));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(Encode(*back).dump(), line.dump());
  // Kinds this version does not know are not taken.
  Json odd = line;
  odd["anomalies"]["bogus"] = 5;
  EXPECT_EQ(std::get<HistoryChecked>(*Decode(odd)).counts.size(), 2u);
}

TEST(RecordCodec, UnknownKindsAndNonObjectsDecodeToNothing) {
  EXPECT_FALSE(Decode(Json{{"type", "from_the_future"}}).has_value());
  EXPECT_FALSE(Decode(Json::array()).has_value());
  EXPECT_FALSE(Decode(Json(3)).has_value());
  // A run line without a version is version 1; wrong types read as defaults.
  auto r = Decode(Json::parse(R"({"type":"run","agents":5,"roles":[1],"report":7,"recovery":"x","plan":3})"));
  ASSERT_TRUE(r.has_value());
  const RunStart& run = std::get<RunStart>(*r);
  EXPECT_EQ(run.version, 1);
  EXPECT_TRUE(run.agents.empty());
  EXPECT_TRUE(run.roles.empty());
  EXPECT_EQ(run.recovery.healthy_polls, 3);
  EXPECT_EQ(run.plan_json, "");
  auto p = Decode(Json::parse(R"({"type":"phase_start","owed":"x","index":-1,"start_ns":1e300})"));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(std::get<PhaseStart>(*p).owed, -1);
  EXPECT_EQ(std::get<PhaseStart>(*p).start_ns, 0);
}

}  // namespace
}  // namespace stampede::record
