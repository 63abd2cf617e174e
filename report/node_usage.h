// The database nodes' resources over a run, from the journal's "node" lines
// (agent/node_sampler.h): disk usage at the start and end, peak memory, CPU
// used, in summary.json ("nodes") and report.md ("## Nodes", and the disk
// row under a stepped workload's recap, as the origin's recap had).
#ifndef STAMPEDE_REPORT_NODE_USAGE_H_
#define STAMPEDE_REPORT_NODE_USAGE_H_

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "record/records.h"

namespace stampede::report {

struct NodeUsage {
  std::string agent;
  uint64_t samples = 0;
  double first_t = 0, last_t = 0;
  int64_t disk_first = -1, disk_last = -1, disk_max = -1;  // bytes; -1: not known
  int64_t rss_max = -1;
  double cpu_used_s = -1;  // over the run (a restarted process's CPU counted from its start)
  double cpu_last = -1;
  bool running_last = false;

  void Add(const record::NodeSample& s);
};

using NodeUsages = std::map<std::string, NodeUsage>;  // by node name

nlohmann::json NodesToJson(const NodeUsages& nodes);
// "## Nodes" with a row per node; "" without samples.
std::string NodesMarkdown(const NodeUsages& nodes);
// "Disk usage (MB): node1 10.2 -> 45.6, node2 ..."; "" if no node has a data_dir.
std::string DiskUsageLine(const NodeUsages& nodes);

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_NODE_USAGE_H_
