// Reads one line of an append phase's history (history.jsonl, Elle's
// list-append JSON) into an AppendOp: the history check reads every line
// twice, and a long run's history has millions, so this parses with
// simdjson's On-Demand API (several times faster than a DOM parser; see
// docs/design-notes.md). One parser per thread: it keeps its buffers.
#ifndef STAMPEDE_REPORT_APPEND_PARSE_H_
#define STAMPEDE_REPORT_APPEND_PARSE_H_

#include <memory>
#include <string>
#include <string_view>

#include "report/append_op.h"

namespace stampede::report {

class AppendLineParser {
 public:
  AppendLineParser();
  ~AppendLineParser();
  AppendLineParser(const AppendLineParser&) = delete;
  AppendLineParser& operator=(const AppendLineParser&) = delete;

  // The line's operation into *op if it is one of phase `phase`; false for
  // another phase's line, one that is not JSON, or not a list-append
  // operation. The line's capacity may grow (the parser reads a little
  // past its end).
  bool Parse(std::string& line, std::string_view phase, AppendOp* op);
  // The line's "phase" ("" if it has none).
  std::string Phase(std::string& line);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_APPEND_PARSE_H_
