#include "common/history_log.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace stampede {
namespace {

HistoryEvent Event(int64_t t, std::string_view text) {
  HistoryEvent e;
  e.type = HistoryType::kOk;
  e.mono_ns = t;
  e.n = 2;
  e.mops[0] = {false, 1, t, {}};
  e.mops[1] = {true, 2, 0, text};
  return e;
}

TEST(HistoryLogTest, EventsComeBackInOrderAcrossChunks) {
  HistoryLog log;
  const std::string big(100 << 10, '7');  // larger than a chunk
  for (int64_t i = 0; i < 3000; ++i) log.Record(Event(i, i == 1500 ? std::string_view(big) : "1,2,3"));
  int64_t next = 0;
  const uint64_t n = log.Drain([&](const HistoryEvent& e) {
    EXPECT_EQ(e.mono_ns, next);
    EXPECT_EQ(e.mops[0].value, next);
    EXPECT_EQ(e.mops[1].text.size(), next == 1500 ? big.size() : 5u);
    ++next;
    return true;
  });
  EXPECT_EQ(n, 3000u);
  EXPECT_EQ(log.Drain([](const HistoryEvent&) { return true; }), 0u);
}

TEST(HistoryLogTest, AnEventRefusedStaysForTheNextDrain) {
  HistoryLog log;
  for (int64_t i = 0; i < 10; ++i) log.Record(Event(i, ""));
  EXPECT_EQ(log.Drain([](const HistoryEvent& e) { return e.mono_ns < 4; }), 4u);
  int64_t first = -1;
  EXPECT_EQ(log.Drain([&](const HistoryEvent& e) {
    if (first < 0) first = e.mono_ns;
    return true;
  }),
            6u);
  EXPECT_EQ(first, 4);
}

// One writer, one reader at once (run under TSan by ./scripts/sanitize).
TEST(HistoryLogTest, AWriterAndAReaderAtOnce) {
  HistoryLog log;
  constexpr int64_t kEvents = 200000;
  std::thread writer([&] {
    for (int64_t i = 0; i < kEvents; ++i) log.Record(Event(i, "10,20"));
  });
  int64_t next = 0;
  while (next < kEvents) {
    log.Drain([&](const HistoryEvent& e) {
      EXPECT_EQ(e.mono_ns, next);
      EXPECT_EQ(e.mops[1].text, "10,20");
      ++next;
      return true;
    });
  }
  writer.join();
}

}  // namespace
}  // namespace stampede
