#include "record/expectation.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "common/anomaly.h"
#include "common/duration.h"

namespace stampede::record {
namespace {

constexpr MetricInfo kPhaseMetrics[] = {
    {"p50", MetricUnit::kSeconds},
    {"p90", MetricUnit::kSeconds},
    {"p99", MetricUnit::kSeconds},
    {"p999", MetricUnit::kSeconds},
    {"max", MetricUnit::kSeconds},
    {"mean", MetricUnit::kSeconds},
    {"ops_per_s", MetricUnit::kRate},
    {"count", MetricUnit::kCount},
    {"ok", MetricUnit::kCount},
    {"errors", MetricUnit::kCount},
    {"errors.retryable", MetricUnit::kCount},
    {"errors.unavailable", MetricUnit::kCount},
    {"errors.ambiguous", MetricUnit::kCount},
    {"errors.fatal", MetricUnit::kCount},
    {"retries", MetricUnit::kCount},
    {"missed", MetricUnit::kCount},
    {"rollbacks", MetricUnit::kCount},
    {"disk_full", MetricUnit::kCount},
    {"tpmc", MetricUnit::kCount},
    {"tpmc_efficiency", MetricUnit::kFraction},
    {"acked_writes", MetricUnit::kCount},
    {"lost_writes", MetricUnit::kCount},
    {"unchecked_writes", MetricUnit::kCount},
    {"unexpected_writes", MetricUnit::kCount},
    {"client_saturated_s", MetricUnit::kSeconds},
    {"anomalies", MetricUnit::kCount},
    {"anomalies.wrong_total", MetricUnit::kCount},
    {"anomalies.stale_read", MetricUnit::kCount},
    {"anomalies.lost", MetricUnit::kCount},
    {"anomalies.duplicate", MetricUnit::kCount},
    {"anomalies.incompatible_order", MetricUnit::kCount},
    {"anomalies.aborted_read", MetricUnit::kCount},
    {"anomalies.tpcc_ytd", MetricUnit::kCount},
    {"anomalies.tpcc_order_ids", MetricUnit::kCount},
    {"anomalies.tpcc_new_orders", MetricUnit::kCount},
    {"anomalies.tpcc_order_lines", MetricUnit::kCount},
    {"anomalies.tpcc_undelivered", MetricUnit::kCount},
    {"anomalies.tpcc_history", MetricUnit::kCount},
    {"anomalies.g0", MetricUnit::kCount},
    {"anomalies.g1c", MetricUnit::kCount},
    {"anomalies.g_single", MetricUnit::kCount},
    {"anomalies.g2_item", MetricUnit::kCount},
    {"anomalies.g0_process", MetricUnit::kCount},
    {"anomalies.g1c_process", MetricUnit::kCount},
    {"anomalies.g_single_process", MetricUnit::kCount},
    {"anomalies.g2_item_process", MetricUnit::kCount},
    {"anomalies.g0_realtime", MetricUnit::kCount},
    {"anomalies.g1c_realtime", MetricUnit::kCount},
    {"anomalies.g_single_realtime", MetricUnit::kCount},
    {"anomalies.g2_item_realtime", MetricUnit::kCount},
    {"anomalies.g1b", MetricUnit::kCount},
    {"anomalies.internal", MetricUnit::kCount},
};
static_assert(kNumAnomalies == 12 && kNumCycleAnomalies == 14, "each anomaly kind is a phase metric: anomalies.KIND");

constexpr MetricInfo kFaultMetrics[] = {
    {"unavailability", MetricUnit::kSeconds},
    {"time_to_first_failure", MetricUnit::kSeconds},
    {"error_window", MetricUnit::kSeconds},
    {"time_to_recovered", MetricUnit::kSeconds},
    {"time_to_healthy", MetricUnit::kSeconds},
    {"client_gap", MetricUnit::kSeconds},
    {"lowest_throughput", MetricUnit::kFraction},
    {"errors", MetricUnit::kCount},
    {"time_to_balanced", MetricUnit::kSeconds},
    {"first_op", MetricUnit::kSeconds},
    {"last_op", MetricUnit::kSeconds},
};

template <size_t N>
const MetricInfo* Find(const MetricInfo (&list)[N], std::string_view name) {
  for (const MetricInfo& m : list) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

bool ParseNumber(std::string_view text, double* out) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size() && std::isfinite(*out);
}

StatusOr<double> ParseValue(MetricUnit unit, std::string_view text) {
  double v = 0;
  switch (unit) {
    case MetricUnit::kSeconds: {
      if (text == "0") return 0.0;  // nothing needs no unit (client_saturated_s == 0)
      auto ns = ParseDurationNs(text);
      if (!ns.ok()) return ns.status();
      return double(*ns) / 1e9;
    }
    case MetricUnit::kFraction:
      if (text.size() < 2 || text.back() != '%' || !ParseNumber(text.substr(0, text.size() - 1), &v) || v < 0 ||
          v > 1000) {
        return Status::Error("expected a percentage like 50%");
      }
      return v / 100;
    case MetricUnit::kCount:
      if (!ParseNumber(text, &v) || v < 0 || v > 1e18 || v != std::floor(v)) {
        return Status::Error("expected a whole number like 0");
      }
      return v;
    case MetricUnit::kRate:
      if (!ParseNumber(text, &v) || v < 0 || v > 1e12) return Status::Error("expected ops per second like 1000");
      return v;
  }
  return Status::Error("unknown unit");
}

}  // namespace

const MetricInfo* FindMetric(std::string_view scope, std::string_view name) {
  if (scope == "phase") return Find(kPhaseMetrics, name);
  if (scope == "fault") return Find(kFaultMetrics, name);
  return nullptr;
}

std::vector<std::string> MetricNames(std::string_view scope) {
  std::vector<std::string> out;
  if (scope == "phase") {
    for (const MetricInfo& m : kPhaseMetrics) out.emplace_back(m.name);
  } else if (scope == "fault") {
    for (const MetricInfo& m : kFaultMetrics) out.emplace_back(m.name);
  }
  return out;
}

StatusOr<Expectation> ParseExpectation(std::string_view scope, std::string_view subject, std::string_view text) {
  Expectation e;
  e.scope = std::string(scope);
  e.subject = std::string(subject);
  text = Trim(text);
  e.text = std::string(text.substr(0, 200));
  const std::string form =
      scope == "phase" ? "'[OP.]METRIC CMP VALUE' like 'p99 < 20ms'" : "'METRIC CMP VALUE' like 'unavailability < 10s'";
  size_t i = 0;
  while (i < text.size() && IsNameChar(text[i])) ++i;
  std::string_view name = text.substr(0, i);
  std::string_view rest = Trim(text.substr(i));
  size_t c = 0;
  while (c < rest.size() && c < 2 && (rest[c] == '<' || rest[c] == '>' || rest[c] == '=' || rest[c] == '!')) ++c;
  e.cmp = std::string(rest.substr(0, c));
  if (name.empty() ||
      (e.cmp != "<" && e.cmp != "<=" && e.cmp != ">" && e.cmp != ">=" && e.cmp != "==" && e.cmp != "!=")) {
    return Status::Error("expected " + form + " (CMP one of < <= > >= == !=), found '" + e.text + "'");
  }
  const MetricInfo* metric = FindMetric(scope, name);
  if (!metric && scope == "phase") {
    // OP.METRIC: the op's name is everything before the first dot whose
    // remainder is a metric ("read.p99", "insert.errors.fatal").
    for (size_t dot = name.find('.'); dot != std::string_view::npos; dot = name.find('.', dot + 1)) {
      if ((metric = FindMetric(scope, name.substr(dot + 1))) != nullptr) {
        e.op = std::string(name.substr(0, dot));
        name = name.substr(dot + 1);
        break;
      }
    }
  }
  if (!metric) {
    // The kinds of anomaly only for a name that is one; else their pattern.
    const bool kind = name.rfind("anomalies.", 0) == 0;
    std::string list;
    for (const std::string& m : MetricNames(scope)) {
      if ((m.rfind("anomalies.", 0) == 0) == kind) list += (list.empty() ? "" : ", ") + m;
    }
    if (!kind && scope == "phase") list += ", anomalies.KIND (docs/consistency.md)";
    return Status::Error("expected a metric (" + list + "), found '" + std::string(name) + "' in '" + e.text + "'");
  }
  e.metric = std::string(name);
  const std::string_view v = Trim(rest.substr(c));
  if (v.size() > 8 && v.substr(v.size() - 8) == " history") {
    // "1.5x history": a factor of the median of the plan's earlier runs.
    const std::string_view factor = Trim(v.substr(0, v.size() - 8));
    double f = 0;
    if (factor.size() < 2 || factor.back() != 'x' || !ParseNumber(factor.substr(0, factor.size() - 1), &f) || f < 0 ||
        f > 1000) {
      return Status::Error("expected a factor like 1.5x before 'history' for " + e.metric + " in '" + e.text + "'");
    }
    e.relative = true;
    e.value = f;
    return e;
  }
  auto value = ParseValue(metric->unit, v);
  if (!value.ok()) return Status::Error(value.status().message() + " for " + e.metric + " in '" + e.text + "'");
  e.value = *value;
  return e;
}

bool Holds(double measured, std::string_view cmp, double value) {
  if (cmp == "<") return measured < value;
  if (cmp == "<=") return measured <= value;
  if (cmp == ">") return measured > value;
  if (cmp == ">=") return measured >= value;
  if (cmp == "==") return measured == value;
  if (cmp == "!=") return measured != value;
  return false;
}

std::string FormatMetricValue(MetricUnit unit, double value) {
  char buf[48];
  if (std::isinf(value)) return value > 0 ? "never" : "-inf";
  switch (unit) {
    case MetricUnit::kSeconds:
      if (std::fabs(value) >= 1) {
        std::snprintf(buf, sizeof(buf), "%.2f s", value);
      } else {
        std::snprintf(buf, sizeof(buf), "%.2f ms", value * 1000);
      }
      return buf;
    case MetricUnit::kFraction:
      std::snprintf(buf, sizeof(buf), "%.1f%%", value * 100);
      return buf;
    case MetricUnit::kCount:
      std::snprintf(buf, sizeof(buf), "%.0f", value);
      return buf;
    case MetricUnit::kRate:
      std::snprintf(buf, sizeof(buf), "%.1f/s", value);
      return buf;
  }
  return "?";
}

}  // namespace stampede::record
