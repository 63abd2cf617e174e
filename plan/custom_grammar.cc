#include "plan/custom_grammar.h"

#include "common/strings.h"
#include "drivers/driver_registry.h"
#include "drivers/statement_template.h"
#include "plan/plan_limits.h"
#include "workloads/custom_workload.h"

namespace stampede::plan {

// A list of statements: each a string for every dialect, or a mapping from
// driver or flavor names to the statement for that target (the flavor's
// entry wins; a target with no entry skips the statement).
void CustomGrammar::LoadStatements(const YAML::Node& n, const std::string& field,
                                   google::protobuf::RepeatedPtrField<std::string>* out) {
  if (!n.IsSequence()) {
    Error(n, field,
          "expected a list of statements (strings, or {postgres: ..., mysql: "
          "..., redis: ...}), found " +
              Found(n));
    return;
  }
  for (size_t i = 0; i < n.size(); ++i) {
    const YAML::Node st = n[i];
    const std::string at = field + "[" + std::to_string(i) + "]";
    if (st.IsScalar()) {
      out->Add(std::string(st.Scalar()));
      continue;
    }
    if (!st.IsMap()) {
      Error(st, at,
            "expected a statement or a mapping of driver/flavor to statement, "
            "found " +
                Found(st));
      continue;
    }
    std::string resolved;
    if (ResolveStatement(st, at, &resolved)) out->Add(std::move(resolved));
  }
}

// A statement given per driver/flavor: the target's (flavor first). False
// if the target has none (or on errors, which are reported).
bool CustomGrammar::ResolveStatement(const YAML::Node& st, const std::string& at, std::string* out) {
  const v1::Target& t = plan_.target();
  if (st.IsScalar()) {
    *out = st.Scalar();
    return true;
  }
  {
    std::string by_driver, by_flavor;
    for (auto it = st.begin(); it != st.end(); ++it) {
      const std::string key = it->first.Scalar();
      const YAML::Node value = it->second;
      bool known = drivers::FindDriver(key) != nullptr;
      for (const std::string& d : drivers::DriverNames()) {
        for (const std::string& f : drivers::FindDriver(d)->flavors) known |= f == key;
      }
      if (!known) {
        Error(it->first, at + "." + key, "expected a driver or flavor name, found " + Quoted(key));
        continue;
      }
      if (!value.IsScalar()) {
        Error(value, at + "." + key, "expected a statement, found " + Found(value));
        continue;
      }
      if (key == t.flavor()) by_flavor = value.Scalar();
      if (key == t.driver()) by_driver = value.Scalar();
    }
    *out = !by_flavor.empty() ? by_flavor : by_driver;
    return !out->empty();
  }
}

void CustomGrammar::LoadCustom(const YAML::Node& n, const std::string& field, v1::CustomWorkload* out) {
  if (!n.IsSequence() || n.size() == 0) {
    Error(n, field,
          "expected a list of ops ({name, weight, sql, params} or {name, "
          "statements: [...]}), found " +
              Found(n));
    return;
  }
  for (size_t i = 0; i < n.size(); ++i) {
    const YAML::Node o = n[i];
    const std::string at = field + "[" + std::to_string(i) + "]";
    if (!o.IsMap()) {
      Error(o, at, "expected an op {name, sql, params}, found " + Found(o));
      continue;
    }
    CheckKeys(o, at, {"name", "weight", "txn", "statements", "sql", "params", "write"});
    v1::CustomOp* op = out->add_ops();
    op->set_name(RequiredString(o, "name", at + ".name"));
    op->set_weight(o["weight"] ? uint32_t(UInt(o["weight"], at + ".weight", 1, kMaxOpWeight)) : 1);
    if (o["txn"]) op->set_txn(Bool(o["txn"], at + ".txn"));
    if (o["statements"]) {
      if (o["sql"] || o["params"] || o["write"]) {
        Error(o, at, "expected either statements: [...] or sql:/params:, not both");
        continue;
      }
      const YAML::Node sts = o["statements"];
      if (!sts.IsSequence() || sts.size() == 0 || sts.size() > kMaxOpStatements) {
        Error(sts, at + ".statements",
              "expected a list of 1 to " + std::to_string(kMaxOpStatements) + " {sql, params}, found " + Found(sts));
        continue;
      }
      for (size_t k = 0; k < sts.size(); ++k) {
        const std::string sat = at + ".statements[" + std::to_string(k) + "]";
        if (!sts[k].IsMap()) {
          Error(sts[k], sat, "expected {sql, params}, found " + Found(sts[k]));
          continue;
        }
        CheckKeys(sts[k], sat, {"sql", "params", "write"});
        LoadCustomStatement(sts[k], sat, op->add_statements());
      }
    } else if (o["sql"]) {
      // The op's one statement, written at the op's level.
      Place(at + ".statements[0]", at, o);
      LoadCustomStatement(o, at, op->add_statements());
    }
  }
}

void CustomGrammar::LoadCustomStatement(const YAML::Node& n, const std::string& at, v1::CustomStatement* out) {
  std::string text;
  if (!n["sql"]) {
    Error(n, at + ".sql", "missing");
    return;
  }
  if (!ResolveStatement(n["sql"], at + ".sql", &text)) {
    Error(n["sql"], at + ".sql",
          "no statement for this target (" + plan_.target().driver() + ", flavor " + plan_.target().flavor() + ")");
    return;
  }
  out->set_text(text);
  out->set_write(n["write"] ? Bool(n["write"], at + ".write") : !workloads::CustomStatementIsRead(text));
  const YAML::Node params = n["params"];
  if (params && (!params.IsSequence() || params.size() > size_t(drivers::kMaxParams))) {
    Error(params, at + ".params",
          "expected a list of up to " + std::to_string(drivers::kMaxParams) + " parameter generators, found " +
              Found(params));
    return;
  }
  for (size_t i = 0; params && i < params.size(); ++i) {
    LoadParamGen(params[i], at + ".params[" + std::to_string(i) + "]", out->add_params());
  }
}

void CustomGrammar::LoadParamGen(const YAML::Node& n, const std::string& at, v1::ParamGen* g) {
  static const char* kExpected =
      "expected sequence, uuid, now, or one of {sequence: START}, {uniform: "
      "[MIN, MAX]}, {zipfian: N}, "
      "{string: LENGTH}, {choice: [A, B, ...]}, {value: X}, {from: OP or OP.N}";
  if (n.IsScalar()) {
    const std::string k = n.Scalar();
    if (k != "sequence" && k != "uuid" && k != "now") {
      Error(n, at, std::string(kExpected) + ", found " + Quoted(k));
    }
    g->set_kind(k);
    return;
  }
  if (!n.IsMap() || n.size() != 1) {
    Error(n, at, std::string(kExpected) + ", found " + Found(n));
    return;
  }
  const std::string k = n.begin()->first.Scalar();
  const YAML::Node v = n.begin()->second;
  const std::string f = at + "." + k;
  g->set_kind(k);
  if (k == "sequence") {
    g->set_a(int64_t(UInt(v, f, 0, 9e18)));
  } else if (k == "uniform") {
    if (!v.IsSequence() || v.size() != 2) {
      Error(v, f, "expected [MIN, MAX], found " + Found(v));
      return;
    }
    int64_t lo = 0, hi = 0;
    if (!YAML::convert<int64_t>::decode(v[0], lo) || !YAML::convert<int64_t>::decode(v[1], hi) || hi < lo) {
      Error(v, f, "expected [MIN, MAX] integers with MIN <= MAX, found " + Found(v));
    }
    g->set_a(lo);
    g->set_b(hi);
  } else if (k == "zipfian") {
    g->set_a(int64_t(UInt(v, f, 1, double(kMaxZipfianItems))));
  } else if (k == "string") {
    g->set_a(int64_t(UInt(v, f, 1, double(kMaxGeneratedString))));
  } else if (k == "choice") {
    if (!v.IsSequence() || v.size() == 0) {
      Error(v, f, "expected a non-empty list, found " + Found(v));
      return;
    }
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].IsScalar())
        Error(v[i], f, "expected a scalar, found " + Found(v[i]));
      else
        g->add_choices(v[i].Scalar());
    }
  } else if (k == "value") {
    if (!v.IsScalar())
      Error(v, f, "expected a scalar, found " + Found(v));
    else
      g->add_choices(v.Scalar());
  } else if (k == "from") {
    std::string ref = v.IsScalar() ? v.Scalar() : "";
    size_t dot = ref.rfind('.');
    uint32_t index = 1;
    if (dot != std::string::npos && dot + 1 < ref.size() &&
        ref.find_first_not_of("0123456789", dot + 1) == std::string::npos) {
      index = uint32_t(std::stoul(ref.substr(dot + 1)));
      ref = ref.substr(0, dot);
    }
    if (ref.empty() || index == 0) {
      Error(v, f, "expected OP or OP.N (N from 1), found " + Found(v));
      return;
    }
    g->set_from_op(ref);
    g->set_from_param(index - 1);
  } else {
    Error(n.begin()->first, at, std::string(kExpected) + ", found " + Quoted(k));
  }
}

}  // namespace stampede::plan
