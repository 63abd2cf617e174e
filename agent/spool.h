// An agent's spool: every record it sends its coordinator about a run
// (snapshots, events), appended to a file as it is made (kept in memory
// only without a file, or after writing it failed, so a long run's agent
// stays the same size: bench/soak),
// so what the agent measured outlives the coordinator (and the agent's own
// process): after a lost session the agent hands in what the coordinator
// asks for again, a restarted agent hands in its predecessor's, and
// `stampede report DIR --spool FILE` merges a spool into a run's results.
//
// The file, DIR/NAME.spool: a line "stampede-spool 1 RUN_ID AGENT\n", then
// records [u32 length][u32 phase index][serialized AgentMessage]. Bounded:
// past max_bytes a record is counted as dropped, not kept. fdatasync'ed at
// most once a second. Thread-safe.
#ifndef STAMPEDE_AGENT_SPOOL_H_
#define STAMPEDE_AGENT_SPOOL_H_

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "proto/stampede.pb.h"

namespace stampede::agent {

struct SpoolRecord {
  uint32_t phase = 0;
  v1::AgentMessage message;
};

class Spool {
 public:
  // dir empty: in memory only (the embedded agents of `stampede run`).
  Spool(std::string dir, std::string agent, uint64_t max_bytes);
  ~Spool();

  // A new run: the previous spool (of a finished run) is replaced.
  Status Begin(const std::string& run_id);
  // A previous process's spool of a run that did not finish: its run id and
  // records become this spool's. False if there is none.
  bool LoadPrevious(std::string* run_id);
  void Append(uint32_t phase, const v1::AgentMessage& message);
  // The records of phases >= phase, in the order they were made.
  std::vector<v1::AgentMessage> Since(uint32_t phase) const;
  // The highest phase a record is about (0 if none).
  uint32_t last_phase() const;
  uint64_t dropped() const;
  // The run is over and journalled: the file goes.
  void Drop();
  // The run ended without a coordinator to journal it: the file is kept as
  // DIR/NAME.RUN_ID.spool; returns that path ("" in memory only).
  std::string Keep();
  const std::string& path() const { return path_; }

  // Reads a spool file (for `stampede report --spool`).
  static Status Read(const std::string& path, std::string* run_id, std::string* agent,
                     std::vector<SpoolRecord>* records);

 private:
  void CloseLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string dir_, agent_, path_;
  const uint64_t max_bytes_;
  mutable Mutex mu_;
  std::string run_id_ ABSL_GUARDED_BY(mu_);
  std::FILE* file_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::vector<SpoolRecord> records_ ABSL_GUARDED_BY(mu_);  // those not in the file
  uint32_t last_phase_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t last_sync_ns_ ABSL_GUARDED_BY(mu_) = 0;
  bool write_failed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_SPOOL_H_
