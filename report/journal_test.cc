#include "report/journal.h"

#include <gtest/gtest.h>

#include "common/rng.h"

namespace stampede::report {
namespace {

TEST(PackHistograms, SameHistogramInAFractionOfTheMemory) {
  Histogram h;
  Rng rng(7);
  for (int i = 0; i < 5000; ++i) h.Record(1000 + rng.Next() % 50'000'000);
  h.Record(uint64_t(1) << 40);  // a very slow one: a large bucket index
  Json line = {{"type", "second"},
               {"ops", {{"insert", {{"outcomes", {5001, 0, 0, 0, 0}}, {"latency", HistogramToJson(h)}}}}}};
  const size_t buckets = line["ops"]["insert"]["latency"]["b"].size();
  ASSERT_GT(buckets, 100u);
  PackHistograms(&line);
  const Json& latency = line["ops"]["insert"]["latency"];
  ASSERT_FALSE(latency.contains("b"));
  const std::string& z = latency["z"].get_ref<const std::string&>();
  EXPECT_LE(z.size(), buckets * 5) << "packed: " << z.size() << " bytes for " << buckets << " buckets";
  EXPECT_NO_THROW((void)line.dump());  // ASCII: the line can still be written as JSON
  Histogram back;
  MergeHistogramJson(latency, &back);
  EXPECT_EQ(back.count(), h.count());
  EXPECT_EQ(back.sum_ns(), h.sum_ns());
  EXPECT_EQ(back.max_ns(), h.max_ns());
  for (double q : {0.0, 0.5, 0.9, 0.99, 0.999, 1.0}) EXPECT_EQ(back.ValueAtQuantile(q), h.ValueAtQuantile(q)) << q;
}

TEST(PackHistograms, LeavesWhatItDoesNotKnowAndReadsGarbageSafely) {
  Json odd = {{"ops", {{"x", {{"latency", {{"b", {{5, 1}, {3, 1}}}}}}}}}};  // not ascending
  PackHistograms(&odd);
  EXPECT_TRUE(odd["ops"]["x"]["latency"].contains("b"));
  Histogram h;
  MergeHistogramJson(Json{{"z", "ZZZZZZZZZZZZZZZZZZZZa\xff%%"}}, &h);  // too long a number, then not ours
  MergeHistogramJson(Json{{"z", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}, &h);
  MergeHistogramJson(Json{{"z", "/a/a"}}, &h);  // an index past the last bucket
  EXPECT_EQ(h.count(), 0u);
}

}  // namespace
}  // namespace stampede::report
