#include "coordinator/history_file.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace stampede::coordinator {
namespace {

constexpr const char* kTypes[] = {"invoke", "ok", "fail", "info"};

void AppendList(const v1::HistoryMop& m, std::string* out) {
  out->push_back('[');
  for (int i = 0; i < m.values_size(); ++i) {
    if (i) out->push_back(',');
    out->append(std::to_string(m.values(i)));
  }
  out->push_back(']');
}

}  // namespace

std::string HistoryLine(uint64_t index, const std::string& phase, const std::string& endpoint, int64_t time_ns,
                        const v1::HistoryEvent& e) {
  const int type = e.type() >= 0 && e.type() <= 3 ? int(e.type()) : 3;
  std::string line = "{\"index\":" + std::to_string(index) + ",\"type\":\"" + kTypes[type] +
                     "\",\"f\":\"txn\",\"process\":" + std::to_string(e.process()) +
                     ",\"time\":" + std::to_string(time_ns) + ",\"value\":[";
  for (int i = 0; i < e.mops_size(); ++i) {
    const v1::HistoryMop& m = e.mops(i);
    if (i) line.push_back(',');
    line += m.read() ? "[\"r\"," : "[\"append\",";
    line += std::to_string(m.key()) + ",";
    if (!m.read()) {
      line += std::to_string(m.value());
    } else if (e.type() == v1::HistoryEvent::OK) {
      AppendList(m, &line);
    } else {
      line += "null";
    }
    line.push_back(']');
  }
  line += "],\"phase\":" + nlohmann::json(phase).dump() + ",\"endpoint\":" + nlohmann::json(endpoint).dump() +
          ",\"agent\":" + nlohmann::json(e.agent()).dump();
  line += e.final() ? ",\"final\":true}" : "}";
  return line;
}

Status HistoryWriter::Open(const std::string& path) {
  path_ = path;
  {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) ++index_;
  }
  out_.open(path, std::ios::app);
  if (!out_) return Status::Error(path + ": cannot be written");
  return Status::Ok();
}

Status HistoryWriter::Write(const std::string& phase, int64_t run_start_ns, const std::vector<std::string>& endpoints,
                            std::vector<v1::HistoryEvent> events, bool all) {
  static const std::string kNone;
  for (v1::HistoryEvent& e : events) {
    newest_ns_ = std::max(newest_ns_, e.time_ns());
    waiting_.push_back({phase, std::move(e)});
  }
  std::stable_sort(waiting_.begin(), waiting_.end(),
                   [](const Waiting& a, const Waiting& b) { return a.event.time_ns() < b.event.time_ns(); });
  size_t n = 0;
  for (; n < waiting_.size(); ++n) {
    const v1::HistoryEvent& e = waiting_[n].event;
    if (!all && e.time_ns() >= newest_ns_ - kReorderNs) break;
    if (e.time_ns() < last_written_ns_) ++out_of_order_;
    last_written_ns_ = std::max(last_written_ns_, e.time_ns());
    const std::string& endpoint = e.endpoint() < endpoints.size() ? endpoints[e.endpoint()] : kNone;
    out_ << HistoryLine(index_++, waiting_[n].phase, endpoint, e.time_ns() - run_start_ns, e) << '\n';
  }
  waiting_.erase(waiting_.begin(), waiting_.begin() + std::ptrdiff_t(n));
  if (!out_) return Status::Error(path_ + ": write failed");
  return Status::Ok();
}

Status HistoryWriter::Flush() {
  out_.flush();
  if (!out_) return Status::Error(path_ + ": write failed");
  return Status::Ok();
}

Status WriteHistoryArray(const std::string& jsonl, const std::string& json) {
  std::ifstream in(jsonl);
  if (!in) return Status::Error(jsonl + ": cannot be read");
  std::ofstream out(json, std::ios::trunc);
  if (!out) return Status::Error(json + ": cannot be written");
  out << "[";
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    out << (first ? "\n" : ",\n") << line;
    first = false;
  }
  out << "\n]\n";
  out.close();
  if (!out) return Status::Error(json + ": write failed");
  return Status::Ok();
}

}  // namespace stampede::coordinator
