// The validator's rules for workload: custom (docs/workloads.md): op names
// and weights, each statement's template against its parameter generators,
// and `from` references between ops.
#include <set>

#include "drivers/driver.h"
#include "drivers/statement_template.h"
#include "plan/plan_checks.h"
#include "plan/plan_limits.h"

namespace stampede::plan {
namespace {

void CheckGenerator(PlanChecks& c, const v1::ParamGen& g, const std::string& at) {
  const std::string& k = g.kind();
  const std::string f = at + "." + k;
  if (k == "sequence") {
    if (g.a() < 0) c.Add(f, ExpectedInteger(0, 9e18) + std::to_string(g.a()));
  } else if (k == "uniform") {
    if (g.b() < g.a())
      c.Add(f, "expected [MIN, MAX] integers with MIN <= MAX, found [" + std::to_string(g.a()) + ", " +
                   std::to_string(g.b()) + "]");
  } else if (k == "zipfian") {
    c.UInt(uint64_t(std::max<int64_t>(g.a(), 0)), f, 1, double(kMaxZipfianItems));
  } else if (k == "string") {
    c.UInt(uint64_t(std::max<int64_t>(g.a(), 0)), f, 1, double(kMaxGeneratedString));
  } else if (k == "choice" || k == "value") {
    if (g.choices_size() == 0 || (k == "value" && g.choices_size() != 1)) {
      c.Add(f, k == "value" ? "expected one value" : "expected a non-empty list");
    }
  } else if (k == "from") {
    if (g.from_op().empty()) c.Add(f, "expected OP or OP.N (N from 1), found nothing");
  } else if (k != "uuid" && k != "now") {
    c.Add(at,
          "expected sequence, uuid, now, or one of {sequence: START}, {uniform: [MIN, MAX]}, {zipfian: N}, "
          "{string: LENGTH}, {choice: [A, B, ...]}, {value: X}, {from: OP or OP.N}, found " +
              Quoted(k));
  }
}

void CheckStatement(PlanChecks& c, const v1::CustomStatement& st, const std::string& at) {
  if (st.text().empty()) return c.Add(at + ".sql", "missing");
  if (st.params_size() > drivers::kMaxParams) {
    return c.Add(at + ".params",
                 "expected a list of up to " + std::to_string(drivers::kMaxParams) + " parameter generators");
  }
  for (int i = 0; i < st.params_size(); ++i) CheckGenerator(c, st.params(i), at + ".params[" + std::to_string(i) + "]");
  std::vector<int> order;
  auto q = drivers::ToQuestionMarks(st.text(), drivers::kMaxParams, &order);
  if (!q.ok()) return c.Add(at + ".sql", q.status().message());
  int used = 0;
  for (int k : order) used = std::max(used, k + 1);
  if (used > st.params_size()) {
    c.Add(at + ".sql",
          "uses $" + std::to_string(used) + " but params has " + std::to_string(st.params_size()) + " generator(s)");
  }
}

// `from` must name an op and one of its first statement's parameters.
void CheckFrom(PlanChecks& c, const v1::CustomWorkload& custom, const std::string& field) {
  for (int i = 0; i < custom.ops_size(); ++i) {
    for (const auto& st : custom.ops(i).statements()) {
      for (const auto& g : st.params()) {
        if (g.kind() != "from" || g.from_op().empty()) continue;
        const v1::CustomOp* target = nullptr;
        for (const auto& o : custom.ops()) {
          if (o.name() == g.from_op()) target = &o;
        }
        const std::string at = field + "[" + std::to_string(i) + "]";
        if (!target) {
          c.Add(at, "from: no op named " + Quoted(g.from_op()));
        } else if (target->statements_size() == 0 || int(g.from_param()) >= target->statements(0).params_size()) {
          c.Add(at, "from: op " + g.from_op() + " has no parameter " + std::to_string(g.from_param() + 1) +
                        " in its first statement");
        }
      }
    }
  }
}

}  // namespace

void CheckCustom(PlanChecks& c, const v1::CustomWorkload& custom, const std::string& field) {
  if (custom.ops_size() == 0) return c.Add(field, "missing (workload custom needs a list of ops)");
  std::set<std::string> names;
  for (int i = 0; i < custom.ops_size(); ++i) {
    const v1::CustomOp& op = custom.ops(i);
    const std::string at = field + "[" + std::to_string(i) + "]";
    if (op.name().empty()) {
      c.Add(at + ".name", "missing (expected a string)");
    } else if (!names.insert(op.name()).second) {
      c.Add(at + ".name", "duplicate op name " + Quoted(op.name()));
    }
    c.UInt(op.weight(), at + ".weight", 1, kMaxOpWeight);
    if (op.statements_size() == 0) {
      c.Add(at + ".sql", "missing (expected the op's statement, or statements: [...])");
      continue;
    }
    if (size_t(op.statements_size()) > kMaxOpStatements) {
      c.Add(at + ".statements", "expected a list of 1 to " + std::to_string(kMaxOpStatements) + " {sql, params}");
      continue;
    }
    for (int k = 0; k < op.statements_size(); ++k) {
      CheckStatement(c, op.statements(k), at + ".statements[" + std::to_string(k) + "]");
    }
  }
  CheckFrom(c, custom, field);
}

}  // namespace stampede::plan
