// history.jsonl: the transactions of a run's append phases, one Elle
// list-append operation per line, in time order, written as the seconds
// are merged (docs/consistency.md, "History format"). Events wait a second
// before they are written, so that agents' snapshots taken at slightly
// different instants still interleave in time order; one that arrives
// later than that is written where it arrives, and counted. And
// history.json, the same operations as one JSON array, which is what
// elle-cli's JSON reader takes.
//
// Not thread-safe: the run controller serializes access.
#ifndef STAMPEDE_COORDINATOR_HISTORY_FILE_H_
#define STAMPEDE_COORDINATOR_HISTORY_FILE_H_

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "common/status.h"
#include "proto/stampede.pb.h"

namespace stampede::coordinator {

// One event as its line (no newline): {"index":..,"type":"ok","f":"txn",
// "process":..,"time":..,"value":[["append",k,v],["r",k,[..]]],"phase":..,
// "endpoint":..,"agent":..[,"final":true]}; time: ns since the run started.
std::string HistoryLine(uint64_t index, const std::string& phase, const std::string& endpoint, int64_t time_ns,
                        const v1::HistoryEvent& e);

class HistoryWriter {
 public:
  // Opens path to append (a resumed run's lines are kept; the index goes on).
  Status Open(const std::string& path);
  bool open() const { return out_.is_open(); }
  // Takes events of phase `phase`; writes those kReorderNs older than the
  // newest taken so far (all: every one), in time order. endpoints: the
  // plan's, by index; run_start_ns: where the lines' times count from.
  Status Write(const std::string& phase, int64_t run_start_ns, const std::vector<std::string>& endpoints,
               std::vector<v1::HistoryEvent> events, bool all = false);
  Status Flush();
  const std::string& path() const { return path_; }
  // Events written after a later one had been (they came too late).
  uint64_t out_of_order() const { return out_of_order_; }
  static constexpr int64_t kReorderNs = 1000000000;

 private:
  struct Waiting {
    std::string phase;
    v1::HistoryEvent event;
  };
  std::ofstream out_;
  std::string path_;
  uint64_t index_ = 0;
  std::vector<Waiting> waiting_;
  int64_t newest_ns_ = INT64_MIN, last_written_ns_ = INT64_MIN;
  uint64_t out_of_order_ = 0;
};

// history.jsonl's lines as one JSON array (history.json), read and written
// line by line.
Status WriteHistoryArray(const std::string& jsonl, const std::string& json);

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_HISTORY_FILE_H_
