#include "workloads/append_workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "workloads/workload_registry.h"

namespace stampede::workloads {
namespace {

using Then = WorkerOps::Then;

// The lists in memory, answering append's statements as a database would.
struct FakeLists {
  std::map<int64_t, std::string> lists;

  drivers::OpResult Run(const drivers::OpRequest& req) {
    drivers::OpResult r;
    const int64_t key = req.params[0].i;
    if (req.stmt == AppendWorkload::kAppend) {
      std::string& l = lists[key];
      l += (l.empty() ? "" : ",") + std::to_string(req.params[1].i);
      r.rows = 1;
      return r;
    }
    EXPECT_NE(req.text, nullptr);
    auto it = lists.find(key);
    r.rows = it == lists.end() ? 0 : 1;
    if (req.text) *req.text = it == lists.end() ? "" : it->second;
    return r;
  }
};

// Runs one transaction of w as the runner would (no failures): one
// micro-operation as a plain statement, more as an interactive transaction.
// Returns the statements run.
int RunTxn(WorkerOps* w, FakeLists* db) {
  drivers::OpRequest req;
  const int op = w->Next(&req);
  drivers::OpResult r = db->Run(req);
  drivers::OpRequest next;
  int statements = 1;
  if (w->TransactionSize() == WorkerOps::kInteractive) {
    while (w->Continue(statements, r, &next) == Then::kNext) {
      r = db->Run(next);
      ++statements;
    }
  } else {
    EXPECT_EQ(w->TransactionSize(), 1);
  }
  w->Observe(op, r);
  return statements;
}

std::vector<HistoryEvent> Drained(HistoryLog* log, std::vector<std::string>* texts) {
  std::vector<HistoryEvent> events;
  log->Drain([&](const HistoryEvent& e) {
    events.push_back(e);
    for (int i = 0; i < e.n; ++i) texts->push_back(std::string(e.mops[i].text));
    return true;
  });
  return events;
}

std::unique_ptr<Workload> Append(std::map<std::string, std::string> params, uint32_t workers = 2) {
  WorkloadContext ctx;
  ctx.seed = 7;
  ctx.total_workers = workers;
  ctx.phase_index = 1;
  auto w = CreateWorkload("append", ctx, params);
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? std::move(*w) : nullptr;
}

TEST(AppendWorkloadTest, TransactionsAreRecordedWithWhatTheirReadsReturned) {
  auto w = Append({{"keys", "2"}, {"ops", "4"}});
  ASSERT_TRUE(w->keeps_history());
  FakeLists db;
  HistoryLog log;
  int endpoint = 1;
  auto ops = w->MakeWorker(0);
  ops->SetHistory(&log, &endpoint);
  std::vector<int> statements;
  for (int i = 0; i < 50; ++i) statements.push_back(RunTxn(ops.get(), &db));
  std::vector<std::string> texts;
  const auto events = Drained(&log, &texts);
  ASSERT_EQ(events.size(), 100u);
  for (size_t i = 0; i < statements.size(); ++i) EXPECT_EQ(statements[i], events[2 * i].n);
  EXPECT_NE(std::count(statements.begin(), statements.end(), 1), 0);
  std::set<int64_t> values;
  size_t t = 0, lists_read = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const HistoryEvent& e = events[i];
    EXPECT_EQ(e.type, i % 2 ? HistoryType::kOk : HistoryType::kInvoke);
    EXPECT_EQ(e.endpoint, 1u);
    EXPECT_GE(e.n, 1);
    EXPECT_LE(e.n, 4);
    for (int m = 0; m < e.n; ++m, ++t) {
      // Keys of phase 1's space, in order within the transaction.
      EXPECT_GE(e.mops[m].key, AppendWorkload::KeyBase(1));
      if (m > 0) {
        EXPECT_LE(e.mops[m - 1].key, e.mops[m].key);
      }
      if (!e.mops[m].read && e.type == HistoryType::kInvoke) {
        EXPECT_TRUE(values.insert(e.mops[m].value).second);
      }
      if (e.type == HistoryType::kInvoke || !e.mops[m].read) {
        EXPECT_EQ(texts[t], "");
      } else if (!texts[t].empty()) {
        ++lists_read;  // what the fake held then: a prefix of what it holds now
        EXPECT_EQ(db.lists[e.mops[m].key].rfind(texts[t], 0), 0u) << texts[t];
      }
    }
  }
  EXPECT_GT(values.size(), 20u);
  EXPECT_GT(lists_read, 10u);
}

TEST(AppendWorkloadTest, KeysMoveOnAfterAWorkersShareOfAppends) {
  // 2 keys x 4 appends over 2 workers: a worker moves on after 4 appends.
  auto w = Append({{"keys", "2"}, {"key_appends", "4"}, {"read", "0"}, {"ops", "1"}});
  FakeLists db;
  auto ops = w->MakeWorker(1);
  for (int i = 0; i < 12; ++i) RunTxn(ops.get(), &db);
  const int64_t base = AppendWorkload::KeyBase(1);
  std::set<int64_t> keys;
  for (const auto& [k, l] : db.lists) keys.insert(k - base);
  EXPECT_EQ(*keys.rbegin(), 5);  // generations 0, 1 and 2
  for (const auto& [k, l] : db.lists) {
    // Worker 1 of 2: values 2, 4, 6, ... (count x workers + index + 1).
    EXPECT_EQ(std::stoll(l.substr(0, l.find(','))) % 2, 0) << l;
  }
}

TEST(AppendWorkloadTest, FinalReadsCoverEveryGenerationThatHeldAnything) {
  auto w = Append({{"keys", "2"}, {"key_appends", "2"}, {"read", "0"}, {"ops", "1"}}, 1);
  FakeLists db;
  auto ops = w->MakeWorker(0);
  for (int i = 0; i < 6; ++i) RunTxn(ops.get(), &db);  // 4 appends a generation: 0 and 1
  // Another worker got two generations further (its own reached 1).
  const int64_t base = AppendWorkload::KeyBase(1);
  db.lists[base + 5] = "1000";
  db.lists[base + 6] = "1002";
  std::vector<int64_t> read;
  drivers::OpRequest req;
  for (int op; (op = ops->FinalRead(&req)) >= 0;) {
    read.push_back(req.params[0].i - base);
    ops->Observe(op, db.Run(req));
  }
  // Its own generations and the next (keys 0-5), then on while the one
  // before held anything: 6-7 (generation 2 did), 8-9 (generation 3
  // did); generation 4 held nothing: the reads end.
  std::vector<int64_t> expected;
  for (int64_t k = 0; k < 10; ++k) expected.push_back(k);
  EXPECT_EQ(read, expected);
  EXPECT_NE(ops->Finish().find("final reads: "), std::string::npos);
}

// The script a Redis transaction runs, as Redis would: pairs (key, value),
// value 0 a read, key -1 unused; the reads' lists joined by ';'.
drivers::OpResult RunScript(const drivers::OpRequest& req, FakeLists* db) {
  EXPECT_EQ(req.stmt, AppendWorkload::kScript);
  EXPECT_EQ(req.nparams, 2 * kMaxHistoryMops);
  std::string reply;
  bool first = true;
  for (int i = 0; i < req.nparams; i += 2) {
    const int64_t key = req.params[size_t(i)].i, value = req.params[size_t(i) + 1].i;
    if (key == -1) continue;
    std::string& l = db->lists[key];
    if (value == 0) {
      reply += (first ? "" : ";") + l;
      first = false;
    } else {
      l += (l.empty() ? "" : ",") + std::to_string(value);
    }
  }
  if (req.text) *req.text = reply;
  return drivers::OpResult{};
}

// The same final reads on Redis, where each read's list is the script's
// reply.
TEST(AppendWorkloadTest, FinalReadsOnRedisCoverEveryGenerationThatHeldAnything) {
  WorkloadContext ctx;
  ctx.dialect = drivers::Dialect::kRedis;
  ctx.total_workers = 1;
  ctx.phase_index = 1;
  auto w = CreateWorkload("append", ctx, {{"keys", "2"}, {"key_appends", "2"}, {"read", "0"}, {"ops", "1"}});
  ASSERT_TRUE(w.ok()) << w.status().message();
  FakeLists db;
  auto ops = (*w)->MakeWorker(0);
  drivers::OpRequest req;
  for (int i = 0; i < 6; ++i) {
    const int op = ops->Next(&req);
    ops->Observe(op, RunScript(req, &db));
  }
  const int64_t base = AppendWorkload::KeyBase(1);
  db.lists[base + 5] = "1000";
  db.lists[base + 7] = "1002";  // the last key of a generation: its read is what goes on
  std::vector<int64_t> read;
  for (int op; (op = ops->FinalRead(&req)) >= 0;) {
    read.push_back(req.params[0].i - base);
    ops->Observe(op, RunScript(req, &db));
  }
  std::vector<int64_t> expected;
  for (int64_t k = 0; k < 10; ++k) expected.push_back(k);
  EXPECT_EQ(read, expected);
}

TEST(AppendWorkloadTest, OnRedisATransactionIsOneScript) {
  WorkloadContext ctx;
  ctx.dialect = drivers::Dialect::kRedis;
  ctx.total_workers = 1;
  auto w = CreateWorkload("append", ctx, {{"keys", "2"}, {"ops", "4"}});
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_EQ((*w)->statements().size(), 1u);
  EXPECT_EQ((*w)->statements()[0].text.rfind("EVAL ", 0), 0u);
  EXPECT_NE((*w)->statements()[0].text.find("LRANGE"), std::string::npos);
  FakeLists db;
  HistoryLog log;
  int endpoint = 0;
  auto ops = (*w)->MakeWorker(0);
  ops->SetHistory(&log, &endpoint);
  for (int i = 0; i < 50; ++i) {
    drivers::OpRequest req;
    const int op = ops->Next(&req);
    EXPECT_EQ(ops->TransactionSize(), 1);
    ops->Observe(op, RunScript(req, &db));
  }
  std::vector<std::string> texts;
  const auto events = Drained(&log, &texts);
  ASSERT_EQ(events.size(), 100u);
  size_t t = 0, lists_read = 0;
  for (const HistoryEvent& e : events) {
    for (int m = 0; m < e.n; ++m, ++t) {
      if (e.type != HistoryType::kOk || !e.mops[m].read) continue;
      // Each read's own list, split from the reply: a prefix of the list now.
      EXPECT_EQ(db.lists[e.mops[m].key].rfind(texts[t], 0), 0u) << texts[t];
      if (!texts[t].empty()) ++lists_read;
    }
  }
  EXPECT_GT(lists_read, 10u);
  ctx.flavor = "redis-cluster";
  auto cluster = CreateWorkload("append", ctx, {});
  ASSERT_FALSE(cluster.ok());
  EXPECT_NE(cluster.status().message().find("not on redis-cluster"), std::string::npos);
  ctx.dialect = drivers::Dialect::kMysql;
  ctx.flavor = "";
  auto my = CreateWorkload("append", ctx, {});
  ASSERT_TRUE(my.ok());
  EXPECT_NE((*my)->statements()[0].text.find("ON DUPLICATE KEY UPDATE"), std::string::npos);
  EXPECT_NE((*my)->SetupStatements()[0].find("LONGTEXT"), std::string::npos);
}

}  // namespace
}  // namespace stampede::workloads
