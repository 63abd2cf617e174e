#include "plan/plan_loader.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "plan/plan_writer.h"

namespace stampede::plan {
namespace {

constexpr char kGood[] = R"(name: quick
seed: 7
target:
  driver: postgres
  endpoints: [127.0.0.1:5432]
  user: stampede
  password_env: PGPASSWORD
  database: bench
agents: {min: 2}
phases:
  - name: insert
    workload: crud
    workers: 8
    ops: 1000
    params: {reset: true}
  - name: mixed
    workload: kv
    workers: 4
    duration: 10s
    rate: 2000
    params: {read: 0.9, distribution: zipfian}
)";

TEST(PlanLoaderTest, LoadsAGoodPlan) {
  auto r = LoadPlanText(kGood, "p.yaml");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  EXPECT_EQ(r.plan.name(), "quick");
  EXPECT_EQ(r.plan.target().flavor(), "postgres");
  EXPECT_EQ(r.plan.agents().min(), 2u);
  ASSERT_EQ(r.plan.phases_size(), 2);
  EXPECT_EQ(r.plan.phases(0).ops(), 1000u);
  EXPECT_EQ(r.plan.phases(0).params().at("reset"), "true");
  EXPECT_EQ(r.plan.phases(1).duration_ms(), 10000u);
  EXPECT_EQ(r.plan.phases(1).rate(), 2000);
  // The normalized plan loads back to the same thing.
  auto again = LoadPlanText(PlanToYaml(r.plan), "again.yaml");
  ASSERT_TRUE(again.ok()) << again.errors[0];
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(again.plan, r.plan))
      << again.plan.DebugString() << r.plan.DebugString();
}

std::vector<std::string> Errors(const std::string& text) { return LoadPlanText(text, "p.yaml").errors; }

TEST(PlanLoaderTest, UnknownKeySuggestsNearest) {
  auto e = Errors(
      "name: x\ntarget: {driver: redis, endpoints: [h:1]}\nphases:\n"
      "  - {name: a, workload: kv, workrs: 2, ops: 1}\n");
  // Top to bottom, left to right.
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0], "p.yaml:4:5: phases[0].workers: missing (expected a positive integer)");
  EXPECT_EQ(e[1], "p.yaml:4:29: phases[0].workrs: unknown key, did you mean 'workers'?");
}

TEST(PlanLoaderTest, PositionsAndExpectations) {
  auto e = Errors(R"(name: x
target:
  driver: postgress
  endpoints: [localhost]
phases:
  - name: a
    workload: crud
    workers: -4
    duration: 10 parsecs
    params: {insert: many}
)");
  ASSERT_EQ(e.size(), 5u);
  EXPECT_EQ(e[0],
            "p.yaml:3:11: target.driver: expected one of postgres, mysql, redis, found "
            "'postgress' (did you mean 'postgres'?)");
  EXPECT_EQ(e[1], "p.yaml:4:15: target.endpoints[0]: expected host:port, found 'localhost'");
  EXPECT_EQ(e[2], "p.yaml:8:14: phases[0].workers: expected a positive integer up to 100000, found -4");
  EXPECT_EQ(e[3],
            "p.yaml:9:15: phases[0].duration: expected a duration like 10s, 1m30s, 250ms "
            "or 2h, found '10 parsecs'");
  EXPECT_EQ(e[4], "p.yaml:10:22: phases[0].params.insert: expected a non-negative integer, found 'many'");
}

TEST(PlanLoaderTest, YamlSyntaxError) {
  auto e = Errors("name: x\nphases: [\n  {name: a\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("p.yaml:"), std::string::npos);
  EXPECT_NE(e[0].find("yaml: not valid YAML"), std::string::npos);
}

TEST(PlanLoaderTest, ReadWriteSessionNeedsADriverThatKnowsThePrimary) {
  const std::string phases = "phases:\n  - {name: a, workload: kv, workers: 1, ops: 1}\n";
  auto ok = LoadPlanText(
      "name: x\ntarget: {driver: postgres, endpoints: ['h:1', 'h:2'], session: read-write}\n" + phases, "p.yaml");
  ASSERT_TRUE(ok.ok()) << ok.errors[0];
  EXPECT_EQ(ok.plan.target().session(), "read-write");
  auto any = LoadPlanText("name: x\ntarget: {driver: postgres, endpoints: ['h:1'], session: any}\n" + phases, "p.yaml");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any.plan.target().session(), "");
  EXPECT_TRUE(
      LoadPlanText("name: x\ntarget: {driver: mysql, endpoints: ['h:1'], session: read-write}\n" + phases, "p.yaml")
          .ok());
  auto e = Errors("name: x\ntarget: {driver: redis, flavor: redis-cluster, endpoints: ['h:1'], session: read-write}\n" +
                  phases);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("read-write needs postgres, mysql or redis (flavor redis), not redis-cluster"),
            std::string::npos);
  EXPECT_TRUE(
      LoadPlanText("name: x\ntarget: {driver: redis, endpoints: ['h:1'], session: read-write}\n" + phases, "p.yaml")
          .ok());
  e = Errors("name: x\ntarget: {driver: postgres, endpoints: ['h:1'], session: primary}\n" + phases);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("target.session: expected any or read-write, found 'primary'"), std::string::npos) << e[0];
}

TEST(PlanLoaderTest, SentinelNamesTheMasterOfARedisReadWriteSession) {
  const std::string phases = "phases:\n  - {name: a, workload: kv, workers: 1, ops: 1}\n";
  const std::string redis = "name: x\ntarget: {driver: redis, endpoints: ['h:1', 'h:2'], session: read-write, ";
  auto ok = LoadPlanText(
      redis + "sentinel: {master: mymaster, endpoints: ['s:26379', 's:26380'], password_env: S_PW}}\n" + phases,
      "p.yaml");
  ASSERT_TRUE(ok.ok()) << ok.errors[0];
  EXPECT_EQ(ok.plan.target().sentinel().master(), "mymaster");
  EXPECT_EQ(ok.plan.target().sentinel().endpoints_size(), 2);
  auto again = LoadPlanText(PlanToYaml(ok.plan), "again.yaml");
  ASSERT_TRUE(again.ok()) << again.errors[0];
  EXPECT_EQ(again.plan.target().sentinel().endpoints(1), "s:26380");
  EXPECT_EQ(again.plan.target().sentinel().password_env(), "S_PW");
  auto e = Errors("name: x\ntarget: {driver: redis, endpoints: ['h:1'], sentinel: {master: m, endpoints: ['s:1']}}\n" +
                  phases);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("target.sentinel: needs session: read-write"), std::string::npos) << e[0];
  e = Errors(
      "name: x\ntarget: {driver: postgres, endpoints: ['h:1'], session: read-write, sentinel: {master: m, "
      "endpoints: ['s:1']}}\n" +
      phases);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("target.sentinel: Redis Sentinel needs driver redis, flavor redis"), std::string::npos) << e[0];
  e = Errors(redis + "sentinel: {master: 'a b', endpoints: ['s']}}\n" + phases);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_NE(e[0].find("target.sentinel.master: expected the name the sentinels monitor"), std::string::npos) << e[0];
  EXPECT_NE(e[1].find("target.sentinel.endpoints[0]: expected host:port, found 's'"), std::string::npos) << e[1];
  e = Errors(redis + "sentinel: {master: m, endpoints: ['s:1'], password_env: 'hunter2 secret'}}\n" + phases);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("target.sentinel.password_env: expected the name of an environment variable"), std::string::npos)
      << e[0];
  EXPECT_EQ(e[0].find("hunter2"), std::string::npos) << e[0];
  e = Errors(redis + "sentinel: {master: m}}\n" + phases);
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e[0].find("target.sentinel.endpoints: missing"), std::string::npos) << e[0];
  e = Errors(redis + "sentinel: [s:1]}\n" + phases);
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e[0].find("p.yaml:2:"), std::string::npos) << e[0];
}

TEST(PlanLoaderTest, BatchIsRowsPerInsertOfAWorkloadThatBatches) {
  const std::string pg = "name: x\ntarget: {driver: postgres, endpoints: ['h:1']}\nphases:\n";
  auto ok = LoadPlanText(pg + "  - {name: a, workload: crud, workers: 2, ops: 100, batch: 100}\n", "p.yaml");
  ASSERT_TRUE(ok.ok()) << ok.errors[0];
  EXPECT_EQ(ok.plan.phases(0).batch(), 100u);
  auto again = LoadPlanText(PlanToYaml(ok.plan), "again.yaml");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.plan.phases(0).batch(), 100u);
  auto e = Errors(pg + "  - {name: a, workload: crud, workers: 2, ops: 100, batch: 1001}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "p.yaml:4:60: phases[0].batch: expected a positive integer up to 1000, found 1001");
  e = Errors(pg + "  - {name: a, workload: ycsb, workers: 2, ops: 100, batch: 10}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "p.yaml:4:60: phases[0].batch: cannot batch ycsb: its inserts are not batched (crud's are)");
  e = Errors(
      "name: x\ntarget: {driver: redis, flavor: redis-cluster, endpoints: ['h:1']}\nphases:\n"
      "  - {name: a, workload: crud, workers: 2, ops: 100, batch: 10}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("cannot batch crud: one MSET's keys would span hash slots"), std::string::npos) << e[0];
}

TEST(PlanLoaderTest, PipelineNeedsAClosedLoopADriverThatPipelinesAndSingleStatementOps) {
  const std::string redis = "name: x\ntarget: {driver: redis, endpoints: ['h:1']}\nphases:\n";
  auto ok = LoadPlanText(redis + "  - {name: a, workload: kv, workers: 2, duration: 5s, pipeline: 16}\n", "p.yaml");
  ASSERT_TRUE(ok.ok()) << ok.errors[0];
  EXPECT_EQ(ok.plan.phases(0).pipeline(), 16u);
  auto again = LoadPlanText(PlanToYaml(ok.plan), "again.yaml");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.plan.phases(0).pipeline(), 16u);
  auto e = Errors(redis + "  - {name: a, workload: kv, workers: 2, duration: 5s, rate: 100, pipeline: 16}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0],
            "p.yaml:4:76: phases[0].pipeline: only for a closed-loop phase without stages (a worker sends its next "
            "round when the last one is answered)");
  e = Errors(redis + "  - {name: a, workload: kv, workers: 2, duration: 5s, pipeline: 1001}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "p.yaml:4:65: phases[0].pipeline: expected a positive integer up to 1000, found 1001");
  e = Errors(redis + "  - {name: a, workload: crud, workers: 2, duration: 5s, pipeline: 4, params: {txn: 2}}\n");
  ASSERT_EQ(e.size(), 1u);  // crud's own check comes first: no transactions on Redis
  EXPECT_NE(e[0].find("txn"), std::string::npos) << e[0];
  e = Errors(redis + "  - {name: a, workload: ycsb, workers: 2, duration: 5s, pipeline: 4}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0],
            "p.yaml:4:67: phases[0].pipeline: cannot pipeline ycsb: its operations are not pipelined yet (crud, "
            "kv, rebalance2021 and custom are)");
  EXPECT_TRUE(LoadPlanText("name: x\ntarget: {driver: redis, flavor: redis-cluster, endpoints: ['h:1']}\nphases:\n"
                           "  - {name: a, workload: kv, workers: 2, duration: 5s, pipeline: 4}\n",
                           "p.yaml")
                  .ok());
  e = Errors(
      "name: x\ntarget: {driver: postgres, flavor: cockroachdb, endpoints: ['h:1']}\nphases:\n"
      "  - {name: a, workload: kv, workers: 2, duration: 5s, pipeline: 4}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("the postgres driver pipelines flavor postgres only, not 'cockroachdb'"), std::string::npos)
      << e[0];
  e = Errors(
      "name: x\ntarget: {driver: mysql, endpoints: ['h:1']}\nphases:\n"
      "  - {name: a, workload: kv, workers: 2, duration: 5s, pipeline: 4}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("the mysql driver does not pipeline yet"), std::string::npos) << e[0];
}

TEST(PlanLoaderTest, MissingTargetAndInlinePassword) {
  auto e = Errors("name: x\nphases:\n  - {name: a, workload: kv, workers: 1, ops: 1}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "p.yaml:1:1: target: missing (expected a mapping with driver and endpoints)");
  e = Errors(
      "name: x\ntarget: {driver: redis, endpoints: ['h:1'], password: hunter2}\n"
      "phases:\n  - {name: a, workload: kv, workers: 1, ops: 1}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("target.password: inline passwords are not accepted"), std::string::npos);
  EXPECT_EQ(e[0].find("hunter2"), std::string::npos);
}

TEST(PlanLoaderTest, Faults) {
  const std::string head =
      "name: x\ntarget: {driver: redis, endpoints: ['h:1']}\n"
      "phases:\n  - {name: load, workload: kv, workers: 1, ops: 1000}\n"
      "  - {name: run, workload: kv, workers: 1, duration: 30s}\n";
  auto r = LoadPlanText(head +
                            "faults:\n  - {at: load@50%, action: kill, node: db3}\n"
                            "  - {at: run+5s, action: pause, node: db3, repeat: 3, every: 8s}\n",
                        "p.yaml");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  ASSERT_EQ(r.plan.faults_size(), 4);
  EXPECT_EQ(r.plan.faults(0).at_percent(), 50);
  EXPECT_EQ(r.plan.faults(3).at_ms(), 21000u);
  auto again = LoadPlanText(PlanToYaml(r.plan), "again.yaml");
  ASSERT_TRUE(again.ok()) << again.errors[0];
  auto e = Errors(head +
                  "faults:\n  - {at: run+40s, action: kill, node: db3}\n"
                  "  - {at: nope+1s, action: explode, node: db3}\n"
                  "  - {at: run@50%, action: kill, node: db3}\n");
  ASSERT_EQ(e.size(), 4u);
  EXPECT_NE(e[0].find("faults[0].at: phase run lasts 30s: a fault at run+40s would never happen"), std::string::npos)
      << e[0];
  EXPECT_NE(e[1].find("faults[1].at: expected a phase of this plan (load, run), found 'nope'"), std::string::npos)
      << e[1];
  EXPECT_NE(e[2].find("faults[1].action: expected one of kill, stop, pause, resume, start, restart"), std::string::npos)
      << e[2];
  EXPECT_NE(e[3].find("PHASE@PERCENT needs a phase with an operation count"), std::string::npos) << e[3];
}

TEST(PlanLoaderTest, WorkloadCombinationChecked) {
  auto e = Errors(
      "name: x\ntarget: {driver: redis, endpoints: ['h:1']}\n"
      "phases:\n  - {name: a, workload: crud, workers: 1, ops: 1, params: {insert: 0}}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("at least one of insert"), std::string::npos);
}

TEST(PlanLoaderTest, CheckWritesOnlyWhereTheWritesCanBeReadBack) {
  const std::string head = "name: x\ntarget: {driver: redis, endpoints: ['h:1']}\nphases:\n";
  auto good = LoadPlanText(head + "  - {name: a, workload: crud, workers: 1, ops: 1, check_writes: true}\n", "p.yaml");
  ASSERT_TRUE(good.errors.empty()) << good.errors[0];
  EXPECT_TRUE(good.plan.phases(0).check_writes());
  auto again = LoadPlanText(PlanToYaml(good.plan), "again.yaml");
  ASSERT_TRUE(again.errors.empty());
  EXPECT_TRUE(again.plan.phases(0).check_writes());
  auto e = Errors(head +
                  "  - {name: a, workload: crud, workers: 1, ops: 1, check_writes: true,\n"
                  "     params: {delete: 1}}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0],
            "p.yaml:4:65: phases[0].check_writes: cannot be checked: crud: its deletes remove acknowledged inserts");
  e = Errors(head + "  - {name: a, workload: kv, workers: 1, ops: 1, check_writes: yes please}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("phases[0].check_writes: expected true or false"), std::string::npos) << e[0];
}

constexpr char kCustom[] = R"yaml(name: c
target: {driver: mysql, flavor: mariadb, endpoints: [127.0.0.1:3306]}
setup:
  - {postgres: "CREATE TABLE t (id BIGINT)", mysql: "CREATE TABLE t (id BIGINT) ENGINE=InnoDB"}
  - {redis: "FLUSHDB"}
report: {ns_per_op: true}
phases:
  - name: p
    workload: custom
    stages: [{duration: 2s, workers: 4}, {duration: 3s, workers: 4}]
    think_time: 1ms
    custom:
      - name: ins
        weight: 3
        sql: "INSERT INTO t (id, a, b, c, d, e, f, g) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        params: [{sequence: 10}, {uniform: [1, 9]}, {zipfian: 50}, {string: 8}, uuid, now, {choice: [x, y]}, {value: z}]
      - name: tx
        txn: true
        statements:
          - {sql: "SELECT * FROM t WHERE id = $1", params: [{from: ins}]}
          - {sql: "UPDATE t SET a = 1 WHERE id = $1", params: [{from: ins.1}]}
)yaml";

TEST(PlanLoaderTest, CustomWorkloadStagesAndSetupRoundTrip) {
  auto r = LoadPlanText(kCustom, "c.yaml");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  ASSERT_EQ(r.plan.setup_size(), 1);  // the redis-only statement is skipped
  EXPECT_EQ(r.plan.setup(0), "CREATE TABLE t (id BIGINT) ENGINE=InnoDB");
  const v1::Phase& p = r.plan.phases(0);
  EXPECT_EQ(p.workers(), 4u);         // from the stages
  EXPECT_EQ(p.duration_ms(), 5000u);  // their sum
  ASSERT_EQ(p.custom().ops_size(), 2);
  EXPECT_TRUE(p.custom().ops(0).statements(0).write());
  EXPECT_FALSE(p.custom().ops(1).statements(0).write());
  EXPECT_EQ(p.custom().ops(1).statements(0).params(0).from_op(), "ins");
  auto again = LoadPlanText(PlanToYaml(r.plan), "again.yaml");
  ASSERT_TRUE(again.ok()) << again.errors[0] << "\n" << PlanToYaml(r.plan);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(r.plan, again.plan)) << PlanToYaml(r.plan);
}

TEST(PlanLoaderTest, ExpectationsLoadAndRoundTrip) {
  const std::string text = std::string(kGood) + R"(expect:
  phases:
    "*": ["errors.fatal == 0"]
    mixed: ["p99 < 20ms", "read.p999 <= 100ms"]
  faults:
    kill: "unavailability < 10s"
)";
  auto r = LoadPlanText(text, "e.yaml");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  ASSERT_EQ(r.plan.expect_size(), 4);
  EXPECT_EQ(r.plan.expect(1).scope(), "phase");
  EXPECT_EQ(r.plan.expect(1).subject(), "mixed");
  EXPECT_EQ(r.plan.expect(2).text(), "read.p999 <= 100ms");
  EXPECT_EQ(r.plan.expect(3).scope(), "fault");
  auto again = LoadPlanText(PlanToYaml(r.plan), "again.yaml");
  ASSERT_TRUE(again.ok()) << again.errors[0] << "\n" << PlanToYaml(r.plan);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(r.plan, again.plan)) << PlanToYaml(r.plan);

  // One step of a stepped workload may be named too.
  const std::string stepped = R"(name: s
target: {driver: mysql, endpoints: [127.0.0.1:3306]}
phases: [{name: insert, workload: rebalance2021, workers: 4, params: {records_per_worker: 10}}]
expect: {phases: {insert/InsertOne: ["p99 < 20ms"], insert: ["errors == 0"]}}
)";
  auto steps = LoadPlanText(stepped, "s.yaml");
  ASSERT_TRUE(steps.ok()) << steps.errors[0];
  EXPECT_EQ(steps.plan.expect(0).subject(), "insert/InsertOne");
  auto wrong = LoadPlanText(stepped.substr(0, stepped.find("insert/InsertOne")) + "insert/InsertTwo: [\"ok > 0\"]}}\n",
                            "w.yaml");
  ASSERT_EQ(wrong.errors.size(), 1u);
  EXPECT_NE(wrong.errors[0].find("found 'insert/InsertTwo' (did you mean 'insert/InsertOne'?)"), std::string::npos)
      << wrong.errors[0];

  auto bad = LoadPlanText(std::string(kGood) + "expect: {faults: {crash: [\"errors == 0\"]}, phase: {}}\n", "b.yaml");
  ASSERT_EQ(bad.errors.size(), 2u);
  EXPECT_NE(bad.errors[0].find("expect.faults.crash: expected a fault action or \"*\""), std::string::npos)
      << bad.errors[0];
  EXPECT_NE(bad.errors[1].find("expect.phase: unknown key, did you mean 'phases'?"), std::string::npos)
      << bad.errors[1];
}

TEST(PlanLoaderTest, CustomErrorsNamePositions) {
  auto r = LoadPlanText(R"yaml(name: c
target: {driver: postgres, endpoints: [127.0.0.1:5432]}
phases:
  - name: p
    workload: custom
    ops: 10
    workers: 1
    custom:
      - {name: a, sql: "SELECT $2", params: [{gaussian: 3}]}
      - {name: b, sql: "SELECT $1", params: [{from: nope}]}
)yaml",
                        "c.yaml");
  ASSERT_FALSE(r.ok());
  std::string all;
  for (const auto& e : r.errors) all += e + "\n";
  EXPECT_NE(all.find("c.yaml:9:47: phases[0].custom[0].params[0]: expected sequence, uuid, now"), std::string::npos)
      << all;
  EXPECT_NE(all.find("uses $2 but params has 1 generator(s)"), std::string::npos) << all;
  EXPECT_NE(all.find("c.yaml:10:9: phases[0].custom[1]: from: no op named 'nope'"), std::string::npos) << all;
  EXPECT_EQ(r.errors.size(), 3u) << all;
}

}  // namespace
}  // namespace stampede::plan

namespace stampede::plan {
namespace {

TEST(PlanLoaderTest, AgentsLoadChoosesLoadAgents) {
  const std::string head = "name: x\ntarget: {driver: redis, endpoints: [127.0.0.1:6379]}\n";
  const std::string phases = "phases: [{name: a, workload: kv, workers: 1, duration: 1s}]\n";
  auto r = LoadPlanText(head + "agents: {min: 2, load: {labels: {role: load, zone: a}}}\n" + phases, "p.yaml");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  EXPECT_EQ(r.plan.agents().load_labels().at("role"), "load");
  auto again = LoadPlanText(PlanToYaml(r.plan), "again.yaml");
  ASSERT_TRUE(again.ok()) << again.errors[0];
  EXPECT_EQ(again.plan.agents().load_labels().size(), 2u);
  r = LoadPlanText(head + "agents: {load: all}\n" + phases, "p.yaml");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.plan.agents().load(), "all");
  EXPECT_EQ(LoadPlanText(PlanToYaml(r.plan), "again.yaml").plan.agents().load(), "all");
  r = LoadPlanText(head + "agents: {load: some}\n" + phases, "p.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors[0], "p.yaml:3:16: agents.load: expected all, no-nodes or {labels: {role: load}}, found 'some'");
}

// What yaml-cpp would accept silently (the first of two keys wins) and
// what used to validate without meaning anything: refused, each with its
// place.
TEST(PlanLoaderTest, RefusesAKeyWrittenTwiceNamingBothPlaces) {
  auto e = Errors(
      "name: x\ntarget: {driver: redis, endpoints: [h:1]}\nphases:\n  - {name: a, workload: kv, workers: 2, ops: 1}\n"
      "phases:\n  - {name: b, workload: kv, workers: 2, ops: 1}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "p.yaml:5:1: phases: written twice in one mapping (first at 3:1; only one may be given)");
  e = Errors(
      "name: x\ntarget: {driver: redis, endpoints: [h:1], endpoints: [h:2]}\nphases:\n"
      "  - {name: a, workload: kv, workers: 2, ops: 1, workers: 3}\n");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0], "p.yaml:2:43: target.endpoints: written twice in one mapping (first at 2:25; only one may be given)");
  EXPECT_EQ(e[1],
            "p.yaml:4:49: phases[0].workers: written twice in one mapping (first at 4:29; only one may be given)");
}

TEST(PlanLoaderTest, RedisDatabaseIsANumber) {
  const std::string plan =
      "name: x\ntarget: {driver: redis, endpoints: [h:1], database: DB}\nphases:\n"
      "  - {name: a, workload: kv, workers: 2, ops: 1}\n";
  auto with = [&](const std::string& db) {
    std::string p = plan;
    p.replace(p.find("DB"), 2, db);
    return Errors(p);
  };
  EXPECT_TRUE(with("3").empty());
  ASSERT_EQ(with("bench").size(), 1u);
  EXPECT_EQ(with("bench")[0],
            "p.yaml:2:53: target.database: expected a Redis database number, 0 to 65535, found 'bench'");
  EXPECT_EQ(with("70000").size(), 1u);
  EXPECT_EQ(with("-1").size(), 1u);
}

TEST(PlanLoaderTest, AFaultAfterAnOpsBoundedPhaseCanEndIsRefused) {
  const std::string plan =
      "name: x\ntarget: {driver: redis, endpoints: [h:1]}\nphases:\n"
      "  - {name: insert, workload: kv, workers: 2, ops: 1000, timeout: 90s}\n"
      "faults:\n  - {at: AT, action: kill, node: db3}\n";
  auto at = [&](const std::string& when) {
    std::string p = plan;
    p.replace(p.find("AT"), 2, when);
    return Errors(p);
  };
  EXPECT_TRUE(at("insert+80s").empty());
  ASSERT_EQ(at("insert+2h").size(), 1u);
  EXPECT_EQ(at("insert+2h")[0],
            "p.yaml:6:10: faults[0].at: phase insert ends within 90s (its timeout): a fault at insert+2h would "
            "never happen");
  // Without a phase timeout, the run's (default: an hour) bounds it.
  std::string untimed = plan;
  untimed.replace(untimed.find(", timeout: 90s"), 14, "");
  untimed.replace(untimed.find("AT"), 2, "insert+2h");
  ASSERT_EQ(Errors(untimed).size(), 1u);
  EXPECT_NE(Errors(untimed)[0].find("the run's timeout is 1h"), std::string::npos) << Errors(untimed)[0];
}

// A password pasted where its variable's name belongs is not echoed.
TEST(PlanLoaderTest, APastedSecretIsNotEchoed) {
  auto e = Errors(
      "name: x\ntarget: {driver: redis, endpoints: [h:1], password_env: \"s3cr3t-P@ss!\"}\nphases:\n"
      "  - {name: a, workload: kv, workers: 2, ops: 1}\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].find("s3cr3t"), std::string::npos) << e[0];
  EXPECT_NE(e[0].find("target.password_env: expected the name of an environment variable"), std::string::npos);
}

// action: rolling-restart over nodes: a chained restart per node, and
// back to YAML as it was written.
TEST(PlanLoaderTest, ARollingRestartIsARestartPerNodeInOrder) {
  const std::string text =
      "name: x\ntarget: {driver: mysql, flavor: galera, endpoints: [h:1], health: {kind: galera}}\nphases:\n"
      "  - {name: load, workload: kv, workers: 2, duration: 60s}\n"
      "faults:\n  - {at: load+10s, action: rolling-restart, nodes: [node1, node2, node3], max_wait: 45s, "
      "throughput_floor: 0.5}\n";
  auto r = LoadPlanText(text, "p.yaml");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  ASSERT_EQ(r.plan.faults_size(), 3);
  for (int k = 0; k < 3; ++k) {
    const v1::Fault& f = r.plan.faults(k);
    EXPECT_EQ(f.action(), "restart");
    EXPECT_EQ(f.node(), "node" + std::to_string(k + 1));
    EXPECT_EQ(f.roll().step(), uint32_t(k));
    EXPECT_EQ(f.roll().steps(), 3u);
    EXPECT_EQ(f.roll().max_wait_ms(), 45000u);
    EXPECT_DOUBLE_EQ(f.roll().throughput_floor(), 0.5);
  }
  auto again = LoadPlanText(PlanToYaml(r.plan), "again.yaml");
  ASSERT_TRUE(again.ok()) << again.errors[0];
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(again.plan, r.plan)) << PlanToYaml(r.plan);
  // It waits on the cluster's health between restarts: no probe, no roll.
  std::string no_probe = text;
  no_probe.replace(no_probe.find(", health: {kind: galera}"), 24, "");
  auto bad = Errors(no_probe);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].find("it needs target.health"), std::string::npos) << bad[0];
  EXPECT_FALSE(Errors("name: x\ntarget: {driver: redis, endpoints: [h:1], health: {kind: redis}}\nphases:\n"
                      "  - {name: load, workload: kv, workers: 2, duration: 60s}\n"
                      "faults:\n  - {at: load+10s, action: rolling-restart}\n")
                   .empty());
}

}  // namespace
}  // namespace stampede::plan
