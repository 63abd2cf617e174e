#include "report/tpmc.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "report/text_format.h"

namespace stampede::report {
namespace {

constexpr double kMaxPerWarehouse = 12.86;

double Param(const PhaseSummary& p, const char* name, double fallback) {
  auto it = p.params.find(name);
  if (it == p.params.end()) return fallback;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  return end == it->second.c_str() || !std::isfinite(v) ? fallback : v;
}

// 1, 0.1, 0.025: as written.
std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

}  // namespace

std::optional<double> Tpmc(const PhaseSummary& p) {
  if (p.workload != "tpcc" || p.duration_s <= 0) return std::nullopt;
  for (const OpSummary& o : p.ops) {
    if (o.name == "new_order") return double(o.outcomes[0]) * 60.0 / p.duration_s;
  }
  return std::nullopt;
}

std::optional<double> TpmcEfficiency(const PhaseSummary& p) {
  const std::optional<double> t = Tpmc(p);
  const double wait = Param(p, "wait", 0), warehouses = Param(p, "warehouses", 1);
  if (!t || wait <= 0 || warehouses < 1) return std::nullopt;
  return *t * wait / (kMaxPerWarehouse * warehouses);
}

std::string TpmcNote(const PhaseSummary& p) {
  const double wait = Param(p, "wait", 0);
  if (wait <= 0) return "(New-Orders a minute, without keying or think times: a throughput, not a conforming tpmC)";
  const std::string w = std::to_string(std::llround(Param(p, "warehouses", 1)));
  if (wait == 1) {
    return "(New-Orders a minute, with the specification's keying and think times and 10 terminals per warehouse; "
           "efficiency: of 12.86 x " +
           w + " warehouses)";
  }
  return "(New-Orders a minute, with keying and think times scaled by " + Num(wait) +
         ": not a conforming tpmC; efficiency: of 12.86 x " + w + " warehouses / " + Num(wait) + ")";
}

std::string TpmcLine(const PhaseSummary& p) {
  const std::optional<double> t = Tpmc(p);
  if (!t) return "";
  std::string line = "tpmC " + std::to_string(std::llround(*t));
  if (const auto e = TpmcEfficiency(p)) line += ", efficiency " + Fixed(*e * 100, 1) + "%";
  return line + " " + TpmcNote(p) + "\n\n";
}

void AddTpmcJson(const PhaseSummary& p, Json* phase) {
  const std::optional<double> t = Tpmc(p);
  if (!t) return;
  (*phase)["tpmc"] = *t;
  (*phase)["tpmc_note"] = TpmcNote(p);
  if (const auto e = TpmcEfficiency(p)) (*phase)["tpmc_efficiency"] = *e;
}

}  // namespace stampede::report
