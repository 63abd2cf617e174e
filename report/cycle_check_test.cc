#include "report/cycle_check.h"

#include <gtest/gtest.h>

namespace stampede::report {
namespace {

// A micro-operation: an append of value to key, or a read of key's list.
AppendMop A(int64_t key, int64_t value) { return {false, key, value, {}}; }
AppendMop R(int64_t key, std::vector<int64_t> list) { return {true, key, 0, std::move(list)}; }

class History {
 public:
  // A transaction of process p from `from` to `to` ms, ok unless type says.
  History& T(uint32_t p, int64_t from, int64_t to, std::vector<AppendMop> mops, const std::string& type = "ok",
             const std::string& agent = "a1") {
    AppendOp op;
    op.type = type;
    op.process = p;
    op.time = to * 1000000;
    op.agent = agent;
    op.endpoint = "127.0.0.1:5432";
    op.mops = std::move(mops);
    ops_.push_back({op, from * 1000000});
    return *this;
  }
  History& Order(int64_t key, std::vector<int64_t> values) {
    orders_[key] = std::move(values);
    return *this;
  }
  CycleFindings Check(int64_t margin_ns = 0) {
    CycleOptions o;
    o.margin_ns = margin_ns;
    CycleChecker c(o);
    for (const auto& [op, invoked] : ops_) c.Add(op, invoked);
    for (const auto& [key, values] : orders_) c.SetOrder(key, values);
    return c.Check();
  }

 private:
  std::vector<std::pair<AppendOp, int64_t>> ops_;
  std::map<int64_t, std::vector<int64_t>> orders_;
};

std::map<std::string, uint64_t> Kinds(const CycleFindings& f) { return f.counts; }

const std::string& Detail(const CycleFindings& f, const std::string& kind) {
  static const std::string none;
  for (const auto& e : f.examples) {
    if (e.kind == kind) return e.detail;
  }
  return none;
}

using Counts = std::map<std::string, uint64_t>;

TEST(CycleCheck, SerialHistoryHasNone) {
  History h;
  h.T(1, 0, 1, {A(1, 1)})
      .T(2, 2, 3, {R(1, {1}), A(2, 2)})
      .T(1, 4, 5, {A(1, 3), R(2, {2})})
      .T(2, 6, 7, {R(1, {1, 3}), R(2, {2})})
      .T(3, 8, 9, {R(1, {1, 3})}, "ok", "a2")
      .Order(1, {1, 3})
      .Order(2, {2});
  EXPECT_EQ(Kinds(h.Check()), Counts{});
  EXPECT_EQ(Kinds(h.Check(1000000)), Counts{});
}

// Two transactions that overwrite each other's appends in opposite orders.
TEST(CycleCheck, G0WriteCycle) {
  History h;
  h.T(1, 0, 5, {A(1, 1), A(2, 2)}).T(2, 0, 5, {A(1, 3), A(2, 4)}).Order(1, {1, 3}).Order(2, {4, 2});
  const CycleFindings f = h.Check();
  EXPECT_EQ(Kinds(f), (Counts{{"g0", 1}}));
  EXPECT_NE(Detail(f, "g0").find("-ww->"), std::string::npos) << Detail(f, "g0");
  EXPECT_NE(Detail(f, "g0").find("appended 3 to key 1 right after T"), std::string::npos) << Detail(f, "g0");
}

// Each reads the other's append: circular information flow.
TEST(CycleCheck, G1cCircularInformationFlow) {
  History h;
  h.T(1, 0, 5, {A(1, 1), R(2, {2})}).T(2, 0, 5, {R(1, {1}), A(2, 2)}).Order(1, {1}).Order(2, {2});
  EXPECT_EQ(Kinds(h.Check()), (Counts{{"g1c", 1}}));
}

// Read skew: T2 sees T1's append to key 2 but not its append to key 1.
TEST(CycleCheck, GSingleReadSkew) {
  History h;
  h.T(1, 0, 5, {A(1, 1), A(2, 2)}).T(2, 0, 5, {R(1, {}), R(2, {2})}).Order(1, {1}).Order(2, {2});
  const CycleFindings f = h.Check();
  EXPECT_EQ(Kinds(f), (Counts{{"g_single", 1}}));
  const std::string& d = Detail(f, "g_single");
  EXPECT_NE(d.find("read key 1 empty, without T"), std::string::npos) << d;
  EXPECT_NE(d.find("read key 2 up to T"), std::string::npos) << d;
  // The same cycle for Graphviz.
  ASSERT_EQ(f.dots.size(), 1u);
  EXPECT_EQ(f.dots[0].first, "g_single-1");
  const std::string& dot = f.dots[0].second;
  EXPECT_EQ(dot.find("digraph \"g_single-1\" {"), 0u) << dot;
  EXPECT_NE(dot.find("T1 -> T2 [label=\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("T2 -> T1 [label=\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("rw: T"), std::string::npos) << dot;
}

// Write skew: each reads the key the other appends to, empty.
TEST(CycleCheck, G2ItemWriteSkew) {
  History h;
  h.T(1, 0, 5, {R(1, {}), A(2, 1)}).T(2, 0, 5, {A(1, 2), R(2, {})}).Order(1, {2}).Order(2, {1});
  EXPECT_EQ(Kinds(h.Check()), (Counts{{"g2_item", 1}}));
}

TEST(CycleCheck, G1bIntermediateRead) {
  History h;
  h.T(1, 0, 5, {A(1, 1), A(1, 2)}).T(2, 0, 5, {R(1, {1})}).Order(1, {1, 2});
  const CycleFindings f = h.Check();
  EXPECT_EQ(f.counts.at("g1b"), 1u);
}

TEST(CycleCheck, InternalReadMissesItsOwnAppend) {
  History h;
  h.T(1, 0, 5, {A(1, 5), R(1, {1})}).T(2, 0, 1, {A(1, 1)}).T(3, 0, 5, {A(1, 6), R(1, {1, 6})}).Order(1, {1, 6});
  const CycleFindings f = h.Check();
  EXPECT_EQ(f.counts.at("internal"), 1u);
  EXPECT_NE(Detail(f, "internal").find("own appends 5"), std::string::npos);
}

// A stale read: T2 began after T1 was acknowledged and missed its append.
TEST(CycleCheck, StaleReadIsAGSingleRealtimeCycle) {
  History h;
  h.T(1, 0, 1, {A(1, 1)}).T(2, 2, 3, {R(1, {})}).Order(1, {1});
  const CycleFindings f = h.Check();
  EXPECT_EQ(Kinds(f), (Counts{{"g_single_realtime", 1}}));
  EXPECT_NE(Detail(f, "g_single_realtime").find("-realtime->"), std::string::npos);
  // On another agent, within the clocks' margin: no order known.
  History close;
  close.T(1, 0, 1, {A(1, 1)}).T(12, 1, 3, {R(1, {})}, "ok", "a2").Order(1, {1});
  EXPECT_EQ(Kinds(close.Check(1000000)), Counts{});
}

// The same worker's next transaction does not see its own append.
TEST(CycleCheck, OwnAppendMissedIsAProcessCycle) {
  History h;
  h.T(1, 0, 1, {A(1, 1)}).T(1, 2, 3, {R(1, {})}).Order(1, {1});
  EXPECT_EQ(Kinds(h.Check()), (Counts{{"g_single_process", 1}}));
}

// Cycles that need real time or a worker's order, of the other kinds.
TEST(CycleCheck, EachKindHasItsSessionVariants) {
  // A later transaction's append ordered before an acknowledged one's.
  History g0;
  g0.T(1, 0, 1, {A(1, 1)}).T(2, 2, 3, {A(1, 2)}).Order(1, {2, 1});
  EXPECT_EQ(Kinds(g0.Check()), (Counts{{"g0_realtime", 1}}));
  // A worker's transaction read what its next transaction appended.
  History g1c;
  g1c.T(1, 0, 1, {R(2, {2})}).T(1, 2, 3, {A(2, 2)}).Order(2, {2});
  EXPECT_EQ(Kinds(g1c.Check()), (Counts{{"g1c_process", 1}}));
  // T2 began after T1 was acknowledged and missed key 2, which the
  // concurrent T3 appends to while it misses T1's append to key 1.
  History g2;
  g2.T(1, 0, 1, {A(1, 1)}).T(2, 2, 3, {R(2, {})}).T(3, 0, 5, {R(1, {}), A(2, 3)}).Order(1, {1}).Order(2, {3});
  EXPECT_EQ(Kinds(g2.Check()), (Counts{{"g2_item_realtime", 1}}));
}

// A transaction of unknown outcome whose appends were read takes part.
TEST(CycleCheck, UnknownOutcomeWithReadAppendsTakesPart) {
  History h;
  h.T(1, 0, 5, {A(1, 1), A(2, 2)}, "info").T(2, 0, 5, {A(1, 3), A(2, 4)}).Order(1, {1, 3}).Order(2, {4, 2});
  EXPECT_EQ(Kinds(h.Check()), (Counts{{"g0", 1}}));
  // Its completion is not known: nothing follows it in real time.
  History rt;
  rt.T(1, 0, 1, {A(1, 1)}, "info").T(2, 2, 3, {R(1, {})}).Order(1, {1});
  EXPECT_EQ(Kinds(rt.Check()), Counts{});
}

// Cycles of several kinds among many transactions, one per component.
TEST(CycleCheck, OneOfEachKindPerComponent) {
  History h;
  for (int i = 0; i < 3; ++i) {
    const int64_t k = 10 * i, v = 100 * i;
    h.T(1, 0, 5, {R(k + 1, {}), A(k + 2, v + 1)})
        .T(2, 0, 5, {A(k + 1, v + 2), R(k + 2, {})})
        .Order(k + 1, {v + 2})
        .Order(k + 2, {v + 1});
  }
  EXPECT_EQ(Kinds(h.Check()), (Counts{{"g2_item", 3}}));  // three components
}

}  // namespace
}  // namespace stampede::report
