// One endpoint over a phase: the connection events on it and the
// operations it served, from the journal's second lines
// (record::EndpointSecond), for summary.json and report.md.
#ifndef STAMPEDE_REPORT_ENDPOINT_SUMMARY_H_
#define STAMPEDE_REPORT_ENDPOINT_SUMMARY_H_

#include <cstdint>
#include <map>
#include <sstream>
#include <string>

#include "record/second.h"
#include "report/journal.h"

namespace stampede::report {

struct EndpointSummary {
  uint64_t lost = 0, reconnects = 0, connect_failures = 0;
  uint64_t ok = 0;                         // operations that ended ok on it
  double first_ok_t = -1, last_ok_t = -1;  // s since the run started, -1: none

  void Add(const record::EndpointSecond& e);
  Json ToJson() const;
};

// The phase's table of endpoints: operations served (where measured),
// connections lost, reconnects, failed connects.
void EndpointsMarkdown(const std::map<std::string, EndpointSummary>& endpoints, std::ostringstream& md);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_ENDPOINT_SUMMARY_H_
