// `stampede report DIR --spool FILE`: what an agent spooled for a run whose
// coordinator never took it back, merged into the run's journal. A snapshot
// the journal has (agent, phase, seq) is skipped; the others are appended
// as late second lines marked "from_spool", log lines and fault results
// likewise, each once.
#ifndef STAMPEDE_CLI_SPOOL_MERGE_H_
#define STAMPEDE_CLI_SPOOL_MERGE_H_

#include <string>
#include <vector>

#include "common/status.h"
#include "record/records.h"

namespace stampede::cli {

// Appends to *journal (and returns) the records spool_path adds.
StatusOr<std::vector<record::Record>> MergeSpool(const std::string& spool_path, std::vector<record::Record>* journal);

}  // namespace stampede::cli

#endif  // STAMPEDE_CLI_SPOOL_MERGE_H_
