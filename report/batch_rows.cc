#include "report/batch_rows.h"

#include "report/text_format.h"

namespace stampede::report {

const OpSummary* PhaseSummary::BatchedOp() const {
  if (batch <= 1) return nullptr;
  for (const OpSummary& o : ops) {
    if (o.name == "insert") return &o;
  }
  return nullptr;
}

nlohmann::json BatchRowsToJson(const PhaseSummary& p, const OpSummary& insert) {
  const uint64_t n = p.batch, ok = insert.outcomes[0];
  const uint64_t ambiguous = insert.outcomes[size_t(Outcome::kAmbiguous)];
  const Histogram& h = insert.latency;
  return {{"per_statement", n},
          {"statements_ok", ok},
          {"rows_ok", ok * n},
          {"rows_ambiguous", ambiguous * n},
          {"rows_failed", (insert.errors() - ambiguous) * n},
          {"rows_per_s", p.duration_s > 0 ? double(ok * n) / p.duration_s : 0.0},
          {"row_latency_us",
           {{"mean", h.MeanNs() / 1000.0 / double(n)},
            {"p50", Us(h.ValueAtQuantile(0.50)) / double(n)},
            {"p99", Us(h.ValueAtQuantile(0.99)) / double(n)}}}};
}

std::string BatchRowsMarkdown(const PhaseSummary& p, const OpSummary& insert) {
  const uint64_t n = p.batch, ok = insert.outcomes[0];
  const uint64_t ambiguous = insert.outcomes[size_t(Outcome::kAmbiguous)];
  const Histogram& h = insert.latency;
  const double d = double(n);
  std::string s = "Batched inserts, " + std::to_string(n) + " rows per statement: " + std::to_string(ok) +
                  " statements ok = " + std::to_string(ok * n) + " rows (" +
                  Fixed(p.duration_s > 0 ? double(ok * n) / p.duration_s : 0, 1) + " rows/s)";
  if (ambiguous) {
    s += "; " + std::to_string(ambiguous) + " ambiguous = " + std::to_string(ambiguous * n) +
         " rows that may be written";
  }
  if (insert.errors() > ambiguous) {
    s += "; " + std::to_string(insert.errors() - ambiguous) +
         " failed = " + std::to_string((insert.errors() - ambiguous) * n) + " rows not written";
  }
  return s + ". Per row (statement latency / " + std::to_string(n) + "): mean " + HumanUs(h.MeanNs() / 1000.0 / d) +
         ", p50 " + HumanUs(Us(h.ValueAtQuantile(0.5)) / d) + ", p99 " + HumanUs(Us(h.ValueAtQuantile(0.99)) / d) + ".";
}

}  // namespace stampede::report
