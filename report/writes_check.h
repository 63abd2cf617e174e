// The acknowledged-writes check of a phase (check_writes) in summary.json
// and report.md.
#ifndef STAMPEDE_REPORT_WRITES_CHECK_H_
#define STAMPEDE_REPORT_WRITES_CHECK_H_

#include <nlohmann/json.hpp>
#include <string>

#include "record/records.h"

namespace stampede::report {

nlohmann::json WritesToJson(const record::WritesChecked& w);
// One paragraph: "Acknowledged writes: 12800 inserts acknowledged, all 12800
// read back (0 lost); 8 ambiguous: 5 committed, 3 not."
std::string WritesMarkdown(const record::WritesChecked& w);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_WRITES_CHECK_H_
