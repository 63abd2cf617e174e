#include "runs/history_html.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace stampede::runs {
namespace {

TEST(HistoryHtml, ChartsEveryNumberAndLinksReportsThatAreThere) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / ("history-html-" + std::to_string(getpid()));
  fs::create_directories(root / "results" / "r1");
  std::ofstream(root / "results" / "r1" / "report.html") << "<html></html>";
  std::vector<RunRecord> runs(2);
  runs[0].run_id = "r1";
  runs[0].dir = (root / "results" / "r1").string();
  runs[0].metrics = {{"mixed read ops/s", 600, true}};
  runs[1].run_id = "r2";
  runs[1].dir = (root / "results" / "r2").string();  // gone
  runs[1].metrics = {{"mixed read ops/s", 300, true}, {"mixed read p99 (ms)", 2, false}};
  LevelChange c;
  c.metric = "mixed read ops/s";
  c.run = 1;
  c.before = 600;
  c.after = 300;
  c.change = -0.5;
  c.worse = true;
  const nlohmann::json v = HistoryView("nightly", runs, {c}, (root / "pages").string());
  EXPECT_EQ(v["runs"][0]["report"], "../results/r1/report.html");
  EXPECT_EQ(v["runs"][1]["report"], "");
  ASSERT_EQ(v["metrics"].size(), 2u);
  EXPECT_EQ(v["metrics"][0]["values"], nlohmann::json::parse("[600, 300]"));
  EXPECT_EQ(v["metrics"][1]["values"], nlohmann::json::parse("[null, 2]"));
  EXPECT_TRUE(v["metrics"][0]["higher_is_better"]);
  EXPECT_EQ(v["changes"][0]["run"], 1);
  const std::string html = RenderHistoryHtml(v);
  EXPECT_NE(html.find("window.STAMPEDE_HISTORY = {"), std::string::npos);
  EXPECT_NE(html.find("<title>stampede history: nightly</title>"), std::string::npos);
  EXPECT_EQ(html.find("<script src="), std::string::npos) << "every script inlined";
  fs::remove_all(root);
}

}  // namespace
}  // namespace stampede::runs
