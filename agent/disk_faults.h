// Disk faults on a node's data directory (its `data_dir:` in the agent's
// own config). fill allocates one file on the directory's filesystem until
// only `free` bytes are left there, so the database's next write that
// needs space fails as on a full disk; heal removes the file, and so do
// the end of a run, an abort (the fault ledger) and the next start of an
// agent that died with a fill in place.
//
// The file is .stampede-fill in the data directory's parent when that is on
// the same filesystem and writable (the database never sees it), else in
// the data directory itself. It is allocated with fallocate(2): instant,
// and refused (never emulated by writing) where the filesystem cannot.
#ifndef STAMPEDE_AGENT_DISK_FAULTS_H_
#define STAMPEDE_AGENT_DISK_FAULTS_H_

#include <cstdint>
#include <string>

#include "common/status.h"

namespace stampede::agent {

// Where a fill of data_dir goes; an error if neither place is writable.
StatusOr<std::string> FillPath(const std::string& data_dir);
// Leaves free_bytes available (to unprivileged users) on data_dir's
// filesystem; a previous fill is released first. *note says what it did.
Status Fill(const std::string& data_dir, uint64_t free_bytes, std::string* note = nullptr);
// Removes data_dir's fill, if there is one; *released says whether there
// was. A data_dir that does not exist (a node yet to join) has none.
Status ReleaseFill(const std::string& data_dir, bool* released = nullptr);

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_DISK_FAULTS_H_
