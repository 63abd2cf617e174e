#include "report/append_parse.h"

#include <gtest/gtest.h>

namespace stampede::report {
namespace {

TEST(AppendLineParser, ReadsEveryFieldInAnyOrder) {
  AppendLineParser parser;
  AppendOp op;
  std::string line = R"({"process":7,"type":"ok","time":1500,"value":[["append",3,41],["r",3,[1,5,41]],["r",4,null]],)"
                     R"("phase":"append","endpoint":"10.0.0.1:5432","agent":"a\"2","final":true,"index":9})";
  ASSERT_TRUE(parser.Parse(line, "append", &op));
  EXPECT_EQ(op.type, "ok");
  EXPECT_EQ(op.process, 7u);
  EXPECT_EQ(op.time, 1500);
  EXPECT_TRUE(op.final);
  EXPECT_EQ(op.endpoint, "10.0.0.1:5432");
  EXPECT_EQ(op.agent, "a\"2");
  ASSERT_EQ(op.mops.size(), 3u);
  EXPECT_FALSE(op.mops[0].read);
  EXPECT_EQ(op.mops[0].key, 3);
  EXPECT_EQ(op.mops[0].value, 41);
  EXPECT_TRUE(op.mops[1].read);
  EXPECT_EQ(op.mops[1].list, (std::vector<int64_t>{1, 5, 41}));
  EXPECT_TRUE(op.mops[2].read);
  EXPECT_TRUE(op.mops[2].list.empty());
  EXPECT_EQ(parser.Phase(line), "append");

  // The same op reused for a shorter line: nothing of the last one stays.
  line = R"({"type":"invoke","value":[["r",3,null]],"phase":"append"})";
  ASSERT_TRUE(parser.Parse(line, "append", &op));
  EXPECT_EQ(op.type, "invoke");
  EXPECT_EQ(op.process, 0u);
  EXPECT_FALSE(op.final);
  EXPECT_EQ(op.agent, "");
  ASSERT_EQ(op.mops.size(), 1u);
  EXPECT_TRUE(op.mops[0].list.empty());
}

TEST(AppendLineParser, RefusesWhatIsNotAListAppendOperationOfThePhase) {
  AppendLineParser parser;
  AppendOp op;
  for (std::string line : {
           R"({"type":"ok","value":[["r",1,[1]]],"phase":"other"})",              // another phase
           R"({"type":"ok","value":[["r",1,[1]]]})",                              // no phase
           R"({"value":[["r",1,[1]]],"phase":"append"})",                         // no type
           R"({"type":"ok","value":[["r","k",[1]]],"phase":"append"})",           // a key that is not a number
           R"({"type":"ok","value":[["r",1]],"phase":"append"})",                 // two elements
           R"({"type":"ok","value":[["r",1,[1],2]],"phase":"append"})",           // four
           R"({"type":"ok","value":{"r":1},"phase":"append"})",                   // not an array
           R"({"type":"ok","value":[["r",1,[1]]],"phase":"append","time":"x"})",  // a time that is not a number
           R"({"type":"ok","value":[["r",1,[1]],"phase":"append"})",              // cut short
           R"([1,2,3])",
           "",
           "not json",
       }) {
    EXPECT_FALSE(parser.Parse(line, "append", &op)) << line;
  }
  std::string line = "{\"phase\": 3}";
  EXPECT_EQ(parser.Phase(line), "");
}

}  // namespace
}  // namespace stampede::report
