#include "report/writes_check.h"

#include "common/strings.h"

namespace stampede::report {
namespace {

// "ids: 3, 9" or, when more were counted than named, "the first: 3, 9".
std::string IdList(const std::vector<int64_t>& named, uint64_t count) {
  std::vector<std::string> ids;
  for (int64_t id : named) ids.push_back(std::to_string(id));
  return std::string(named.size() < count ? "the first: " : "ids: ") + Join(ids, ", ");
}

}  // namespace

nlohmann::json WritesToJson(const record::WritesChecked& w) {
  nlohmann::json j = {{"supported", w.supported},
                      {"acked", w.acked},
                      {"lost", w.lost},
                      {"ambiguous", w.ambiguous},
                      {"ambiguous_committed", w.ambiguous_found},
                      {"unchecked", w.unchecked},
                      {"lost_ids", w.lost_ids},
                      {"failed", w.failed},
                      {"failed_found", w.failed_found},
                      {"failed_found_ids", w.failed_found_ids},
                      {"note", w.note},
                      {"agents_missing", w.agents_missing},
                      {"text", WritesMarkdown(w)}};
  return j;
}

std::string WritesMarkdown(const record::WritesChecked& w) {
  std::string md = "Acknowledged writes: ";
  if (!w.supported) return md + "not checked: " + w.note + ".";
  md += std::to_string(w.acked) + " inserts acknowledged";
  const uint64_t all = w.acked + w.ambiguous + w.failed;
  const uint64_t read = all >= w.unchecked ? all - w.unchecked : 0;
  if (w.lost == 0) {
    md += w.unchecked == 0 ? ", every one read back (0 lost)" : ", 0 lost among those read back";
  } else {
    md += ", **" + std::to_string(w.lost) + " lost** (not found twice, 1 s apart)";
    if (!w.lost_ids.empty()) {
      md += "; " + IdList(w.lost_ids, w.lost);
    }
  }
  if (w.ambiguous > 0) {
    md += "; " + std::to_string(w.ambiguous) +
          " ambiguous (connection lost before the answer): " + std::to_string(w.ambiguous_found) + " committed";
  }
  if (w.failed > 0) {
    md += "; " + std::to_string(w.failed) + " failed inserts (any other outcome) read back: ";
    md += w.failed_found == 0 ? "none found (rows <= acknowledged + ambiguous)"
                              : "**" + std::to_string(w.failed_found) +
                                    " found** (committed, though the run counted them as failed); " +
                                    IdList(w.failed_found_ids, w.failed_found);
  }
  if (w.unchecked > 0) {
    md += "; **" + std::to_string(w.unchecked) + " not checked** (" + std::to_string(read) + " read)" +
          (w.note.empty() ? "" : ": " + w.note);
  }
  if (!w.agents_missing.empty()) md += "; no answer from " + Join(w.agents_missing, ", ");
  return md + ".";
}

}  // namespace stampede::report
