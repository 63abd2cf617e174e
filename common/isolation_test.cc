#include "common/isolation.h"

#include <gtest/gtest.h>

namespace stampede {
namespace {

// Each SQL flavor's name for each level, set per session, or the reason it
// has none (the plan validator shows it at the line).
TEST(Isolation, EachFlavorsNameForEachLevel) {
  struct Case {
    const char* flavor;
    const char* rc;
    const char* rr;
    const char* snapshot;
    const char* serializable;
  };
  const Case cases[] = {
      {"postgres", "READ COMMITTED", "REPEATABLE READ", "REPEATABLE READ", "SERIALIZABLE"},
      {"cockroachdb", "READ COMMITTED", "REPEATABLE READ", "REPEATABLE READ", "SERIALIZABLE"},
      {"yugabytedb", "READ COMMITTED", "REPEATABLE READ", "REPEATABLE READ", "SERIALIZABLE"},
      {"tidb", "READ COMMITTED", "REPEATABLE READ", "REPEATABLE READ", ""},
      {"mysql", "READ COMMITTED", "REPEATABLE READ", "", "SERIALIZABLE"},
      {"mariadb", "READ COMMITTED", "REPEATABLE READ", "", "SERIALIZABLE"},
      {"galera", "READ COMMITTED", "REPEATABLE READ", "", "SERIALIZABLE"},
      {"redis", "", "", "", ""},
  };
  for (const Case& c : cases) {
    const char* want[] = {c.rc, c.rr, c.snapshot, c.serializable};
    for (size_t i = 0; i < IsolationLevels().size(); ++i) {
      std::string why;
      EXPECT_EQ(IsolationSql(IsolationLevels()[i], c.flavor, &why), want[i]) << c.flavor << " " << IsolationLevels()[i];
      EXPECT_EQ(why.empty(), want[i][0] != '\0') << c.flavor << " " << IsolationLevels()[i] << ": " << why;
    }
  }
  std::string why;
  EXPECT_EQ(IsolationSql("chaos", "postgres", &why), "");
  EXPECT_NE(why.find("expected one of read-committed"), std::string::npos);
}

TEST(Isolation, DefaultsAndWhatEachLevelForbids) {
  EXPECT_EQ(DefaultIsolation("postgres"), "read-committed");
  EXPECT_EQ(DefaultIsolation("cockroachdb"), "serializable");
  EXPECT_EQ(DefaultIsolation("tidb"), "snapshot");
  EXPECT_EQ(DefaultIsolation("galera"), "repeatable-read");
  EXPECT_EQ(DefaultIsolation("redis"), "");
  // Read committed allows G-single and G2-item; snapshot (and repeatable
  // read, judged as snapshot) only G2-item; serializable nothing.
  EXPECT_FALSE(IsolationForbids("read-committed", "g_single_realtime"));
  EXPECT_FALSE(IsolationForbids("read-committed", "g2_item"));
  EXPECT_TRUE(IsolationForbids("read-committed", "g1c"));
  EXPECT_TRUE(IsolationForbids("snapshot", "g_single"));
  EXPECT_FALSE(IsolationForbids("repeatable-read", "g2_item_process"));
  EXPECT_TRUE(IsolationForbids("serializable", "g2_item"));
  EXPECT_TRUE(IsolationForbids("serializable", "lost"));
  EXPECT_TRUE(IsolationForbids("", "g2_item"));  // no level named: everything counts
}

}  // namespace
}  // namespace stampede
