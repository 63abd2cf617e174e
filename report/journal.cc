#include "report/journal.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace stampede::report {

JournalWriter::~JournalWriter() { Close(); }

Status JournalWriter::Open(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) return Status::Error(path + ": " + std::strerror(errno));
  return Status::Ok();
}

void JournalWriter::Append(const Json& line) {
  std::string text = line.dump() + "\n";
  std::lock_guard<std::mutex> lock(mu_);
  if (!file_) return;
  std::fwrite(text.data(), 1, text.size(), file_);
  std::fflush(file_);
}

void JournalWriter::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (file_) std::fclose(file_);
  file_ = nullptr;
}

StatusOr<std::vector<Json>> ReadJournal(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Error(path + ": " + std::strerror(errno));
  std::vector<Json> lines;
  std::string text;
  int n = 0;
  while (std::getline(in, text)) {
    ++n;
    if (text.empty()) continue;
    Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    // A torn last line (crash mid-write) is skipped; anything else is an error.
    if (j.is_discarded()) {
      if (in.peek() == EOF) break;
      return Status::Error(path + ":" + std::to_string(n) + ": not a JSON object");
    }
    lines.push_back(std::move(j));
  }
  return lines;
}

Json HistogramToJson(const Histogram& h) {
  Json buckets = Json::array();
  h.ForEachBucket([&](int i, uint64_t c) { buckets.push_back({i, c}); });
  return Json{{"sum_ns", h.sum_ns()}, {"max_ns", h.max_ns()}, {"b", std::move(buckets)}};
}

void MergeHistogramJson(const Json& j, Histogram* h) {
  if (!j.is_object()) return;
  for (const Json& b : j.value("b", Json::array())) {
    if (b.is_array() && b.size() == 2) h->AddBucket(b[0].get<int>(), b[1].get<uint64_t>());
  }
  h->AddSummary(j.value("sum_ns", uint64_t{0}), j.value("max_ns", uint64_t{0}));
}

}  // namespace stampede::report
