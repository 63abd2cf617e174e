// A run's results directory: made for a new run with the plan as written,
// read for FetchResults (the submitter's copy of the results) and written
// back on the submitter's side. What goes in it: docs/results.md.
#ifndef STAMPEDE_COORDINATOR_RESULT_FILES_H_
#define STAMPEDE_COORDINATOR_RESULT_FILES_H_

#include <fstream>
#include <functional>
#include <string>

#include "common/status.h"
#include "proto/stampede.pb.h"

namespace stampede::coordinator {

inline constexpr size_t kResultChunkBytes = 1 << 20;

// True if `run_id` names a run directory and nothing else (no '/', no
// "..", only the characters run ids are made of).
bool IsRunId(const std::string& run_id);

// Makes a new run's directory: `exact` if given (--results), else
// results_root/run_id, or run_id-2, -3... if that exists. Writes plan.yaml
// into it. Returns the directory.
StatusOr<std::string> MakeRunDir(const std::string& results_root, const std::string& exact, const std::string& run_id,
                                 const std::string& plan_yaml);

// Sends every regular file of results_root/run_id (not subdirectories or
// links), sorted by name, in chunks of at most kResultChunkBytes. Stops
// when send returns false (the caller went away). NOT_FOUND-like error if
// the directory is not there.
Status SendResultFiles(const std::string& results_root, const std::string& run_id,
                       const std::function<bool(const v1::ResultChunk&)>& send);

// Receives chunks into `dir` (created; files it already holds are
// replaced). Refuses a name with a path in it, or a chunk out of order.
class ResultFileWriter {
 public:
  explicit ResultFileWriter(std::string dir) : dir_(std::move(dir)) {}
  Status Write(const v1::ResultChunk& chunk);
  Status Finish();
  size_t files() const { return files_; }

 private:
  std::string dir_;
  std::string current_;
  uint64_t next_offset_ = 0;
  size_t files_ = 0;
  std::ofstream out_;
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_RESULT_FILES_H_
