#include "coordinator/history_pages.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runs/run_store.h"

namespace stampede::coordinator {
namespace {

namespace fs = std::filesystem;

TEST(HistoryPages, ServesTheStoredRunsAndTheirReportsOnly) {
  const fs::path root = fs::path(::testing::TempDir()) / ("history-pages-" + std::to_string(getpid()));
  fs::create_directories(root / "r1");
  std::ofstream(root / "r1" / "report.html") << "<html>r1</html>";
  std::ofstream(root / "secret.txt") << "no";
  const std::string history = (root / "history.db").string();
  EXPECT_EQ(HistoryPage("/api/history", history, root.string())->body, "[]");  // no file yet: nothing recorded
  {
    auto store = runs::RunStore::Open(history);
    runs::RunRecord r;
    r.run_id = "r1";
    r.plan = "nightly";
    r.started_at = "2026-12-01T10:00:00Z";
    r.verdict = "ok";
    r.dir = (root / "r1").string();
    r.metrics = {{"load ops/s", 100, true}};
    ASSERT_TRUE(*(*store)->Record(r));
  }
  auto plans = HistoryPage("/api/history", history, root.string());
  ASSERT_TRUE(plans);
  EXPECT_NE(plans->body.find("\"plan\":\"nightly\""), std::string::npos) << plans->body;
  auto plan = HistoryPage("/api/history/nightly", history, root.string());
  EXPECT_NE(plan->body.find("\"report\":\"runs/r1/report.html\""), std::string::npos) << plan->body;
  EXPECT_EQ(HistoryPage("/api/history/%zz%", history, root.string())->status, 404);  // no crash on a bad escape
  EXPECT_EQ(HistoryPage("/runs/r1/report.html", history, root.string())->body, "<html>r1</html>");
  for (const char* bad : {"/runs/../secret.txt/report.html", "/runs/r1/../../etc/passwd", "/runs/.hidden/report.html",
                          "/runs/r1/plan.yaml", "/runs/r2/report.html"}) {
    EXPECT_EQ(HistoryPage(bad, history, root.string())->status, 404) << bad;
  }
  EXPECT_FALSE(HistoryPage("/api/runs", history, root.string())) << "not a history page";
  EXPECT_EQ(HistoryPage("/api/history", "", root.string())->status, 404) << "--history off";
  fs::remove_all(root);
}

}  // namespace
}  // namespace stampede::coordinator
