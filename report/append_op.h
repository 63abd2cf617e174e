// One completed operation of an append phase's history (history.jsonl, in
// Elle's list-append JSON), as the checks read it.
#ifndef STAMPEDE_REPORT_APPEND_OP_H_
#define STAMPEDE_REPORT_APPEND_OP_H_

#include <cstdint>
#include <string>
#include <vector>

namespace stampede::report {

struct AppendMop {
  bool read = false;
  int64_t key = 0;
  int64_t value = 0;          // an append's
  std::vector<int64_t> list;  // a read's, in an ok completion
};

struct AppendOp {
  std::string type;  // invoke, ok, fail, info
  uint32_t process = 0;
  int64_t time = 0;  // ns since the run started
  bool final = false;
  std::string endpoint;
  std::string agent;  // whose clock stamped it
  std::vector<AppendMop> mops;
};

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_APPEND_OP_H_
