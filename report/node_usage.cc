#include "report/node_usage.h"

#include <algorithm>

#include "report/text_format.h"

namespace stampede::report {
namespace {

std::string Mb(int64_t bytes) { return bytes < 0 ? "n/a" : Fixed(double(bytes) / 1e6, 1); }

nlohmann::json OrNull(int64_t v) { return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v); }

}  // namespace

void NodeUsage::Add(const record::NodeSample& s) {
  if (samples++ == 0) first_t = s.t;
  last_t = s.t;
  agent = s.agent;
  running_last = s.running;
  if (s.disk_bytes >= 0) {
    if (disk_first < 0) disk_first = s.disk_bytes;
    disk_last = s.disk_bytes;
    disk_max = std::max(disk_max, s.disk_bytes);
  }
  rss_max = std::max(rss_max, s.rss_bytes);
  if (s.cpu_s >= 0) {
    // CPU since the process started: a drop is a new process (restarted
    // by a fault), whose CPU counts from 0.
    if (cpu_used_s < 0) {
      cpu_used_s = 0;
    } else {
      cpu_used_s += s.cpu_s >= cpu_last ? s.cpu_s - cpu_last : s.cpu_s;
    }
    cpu_last = s.cpu_s;
  }
}

nlohmann::json NodesToJson(const NodeUsages& nodes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [name, n] : nodes) {
    out.push_back({{"node", name},
                   {"agent", n.agent},
                   {"samples", n.samples},
                   {"first_t", n.first_t},
                   {"last_t", n.last_t},
                   {"disk_bytes_start", OrNull(n.disk_first)},
                   {"disk_bytes_end", OrNull(n.disk_last)},
                   {"disk_bytes_max", OrNull(n.disk_max)},
                   {"rss_bytes_max", OrNull(n.rss_max)},
                   {"cpu_s", n.cpu_used_s < 0 ? nlohmann::json(nullptr) : nlohmann::json(n.cpu_used_s)},
                   {"running_at_end", n.running_last}});
  }
  return out;
}

std::string NodesMarkdown(const NodeUsages& nodes) {
  if (nodes.empty()) return "";
  std::string md =
      "\n## Nodes\n\nSampled once a second by the agent that owns each node (docs/results.md).\n\n"
      "| node | agent | disk at start (MB) | disk at end (MB) | change (MB) | peak RSS (MB) | CPU used (s) | running "
      "at the end |\n|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const auto& [name, n] : nodes) {
    const std::string change = n.disk_first < 0 ? "n/a" : Fixed(double(n.disk_last - n.disk_first) / 1e6, 1);
    md += "| " + name + " | " + n.agent + " | " + Mb(n.disk_first) + " | " + Mb(n.disk_last) + " | " + change + " | " +
          Mb(n.rss_max) + " | " + (n.cpu_used_s < 0 ? "n/a" : Fixed(n.cpu_used_s, 1)) + " | " +
          (n.running_last ? "yes" : "no") + " |\n";
  }
  return md;
}

std::string DiskUsageLine(const NodeUsages& nodes) {
  std::string line;
  for (const auto& [name, n] : nodes) {
    if (n.disk_first < 0) continue;
    line += (line.empty() ? "" : ", ") + name + " " + Mb(n.disk_first) + " -> " + Mb(n.disk_last);
  }
  return line.empty() ? "" : "Disk usage (MB, start -> end of the run): " + line + ".";
}

}  // namespace stampede::report
