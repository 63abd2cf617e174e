#include "coordinator/history_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

namespace stampede::coordinator {
namespace {

v1::HistoryEvent Event(v1::HistoryEvent::Type type, int64_t t, uint32_t process) {
  v1::HistoryEvent e;
  e.set_type(type);
  e.set_time_ns(t);
  e.set_process(process);
  e.set_endpoint(1);
  e.set_agent("a1");
  v1::HistoryMop* a = e.add_mops();
  a->set_key(3);
  a->set_value(17);
  v1::HistoryMop* r = e.add_mops();
  r->set_read(true);
  r->set_key(4);
  r->add_values(1);
  r->add_values(5);
  return e;
}

TEST(HistoryFileTest, ALineIsElleListAppend) {
  EXPECT_EQ(HistoryLine(7, "p\"1", "127.0.0.1:5432", 250, Event(v1::HistoryEvent::OK, 1250, 3)),
            R"({"index":7,"type":"ok","f":"txn","process":3,"time":250,"value":[["append",3,17],["r",4,[1,5]]],)"
            R"("phase":"p\"1","endpoint":"127.0.0.1:5432","agent":"a1"})");
  v1::HistoryEvent invoke = Event(v1::HistoryEvent::INVOKE, 1000, 3);
  invoke.set_final(true);
  EXPECT_EQ(HistoryLine(6, "p", "", 0, invoke),
            R"({"index":6,"type":"invoke","f":"txn","process":3,"time":0,"value":[["append",3,17],["r",4,null]],)"
            R"("phase":"p","endpoint":"","agent":"a1","final":true})");
}

TEST(HistoryFileTest, EventsWaitASecondToBeWrittenInTimeOrder) {
  const std::string dir = ::testing::TempDir() + "/history-file-" + std::to_string(getpid());
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  const std::string path = dir + "/history.jsonl";
  std::remove(path.c_str());
  HistoryWriter w;
  ASSERT_TRUE(w.Open(path).ok());
  const std::vector<std::string> endpoints = {"a:1", "b:2"};
  constexpr int64_t kSec = HistoryWriter::kReorderNs;
  // Agent 1's second, then agent 2's with an earlier event: put in order.
  ASSERT_TRUE(w.Write("p", 0, endpoints, {Event(v1::HistoryEvent::INVOKE, 100, 0)}).ok());
  ASSERT_TRUE(w.Write("p", 0, endpoints, {Event(v1::HistoryEvent::INVOKE, 50, 1)}).ok());
  ASSERT_TRUE(w.Write("p", 0, endpoints, {Event(v1::HistoryEvent::OK, 2 * kSec, 0)}).ok());
  // Too late: 10 is long written past.
  ASSERT_TRUE(w.Write("p", 0, endpoints, {Event(v1::HistoryEvent::OK, 10, 1)}, true).ok());
  ASSERT_TRUE(w.Flush().ok());
  EXPECT_EQ(w.out_of_order(), 1u);
  std::ifstream in(path);
  std::vector<int64_t> times;
  for (std::string line; std::getline(in, line);) times.push_back(nlohmann::json::parse(line)["time"]);
  EXPECT_EQ(times, (std::vector<int64_t>{50, 100, 10, 2 * kSec}));
  // history.json: one array of the same operations.
  ASSERT_TRUE(WriteHistoryArray(path, dir + "/history.json").ok());
  std::ifstream json(dir + "/history.json");
  const nlohmann::json all = nlohmann::json::parse(json);
  ASSERT_TRUE(all.is_array());
  EXPECT_EQ(all.size(), 4u);
  EXPECT_EQ(all[3]["index"], 3);
  // A reopened file goes on counting.
  HistoryWriter again;
  ASSERT_TRUE(again.Open(path).ok());
  ASSERT_TRUE(again.Write("p", 0, endpoints, {Event(v1::HistoryEvent::OK, 5 * kSec, 0)}, true).ok());
  ASSERT_TRUE(again.Flush().ok());
  std::ifstream in2(path);
  std::string last;
  for (std::string line; std::getline(in2, line);) last = line;
  EXPECT_EQ(nlohmann::json::parse(last)["index"], 4);
  ASSERT_EQ(system(("rm -rf " + dir).c_str()), 0);
}

}  // namespace
}  // namespace stampede::coordinator
