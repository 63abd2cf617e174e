#include "report/journal.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/clock.h"

namespace stampede::report {

JournalWriter::~JournalWriter() { Close(); }

Status JournalWriter::Open(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  path_ = path;
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) return Status::Error(path + ": " + std::strerror(errno));
  last_sync_ns_ = MonoNowNs();
  return Status::Ok();
}

Status JournalWriter::Append(const Json& line) {
  std::string text = line.dump() + "\n";
  std::lock_guard<std::mutex> lock(mu_);
  if (!error_.ok()) return error_;
  if (!file_) return Status::Error(path_ + ": not open");
  errno = 0;
  const size_t written = std::fwrite(text.data(), 1, text.size(), file_);
  if (written != text.size() || std::fflush(file_) != 0) {
    error_ = Status::Error(path_ + ": " + std::strerror(errno ? errno : EIO));
    return error_;
  }
  if (MonoNowNs() - last_sync_ns_ >= kNsPerSec) return SyncLocked();
  return Status::Ok();
}

Status JournalWriter::Sync() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!error_.ok()) return error_;
  if (!file_) return Status::Ok();
  return SyncLocked();
}

Status JournalWriter::SyncLocked() {
  last_sync_ns_ = MonoNowNs();
  if (std::fflush(file_) != 0 || ::fdatasync(fileno(file_)) != 0) {
    error_ = Status::Error(path_ + ": " + std::strerror(errno));
  }
  return error_;
}

void JournalWriter::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!file_) return;
  if (error_.ok()) SyncLocked();
  std::fclose(file_);
  file_ = nullptr;
}

StatusOr<std::vector<Json>> ReadJournal(const std::string& path, std::vector<std::string>* warnings) {
  std::ifstream in(path);
  if (!in) return Status::Error(path + ": " + std::strerror(errno));
  std::vector<Json> lines;
  std::string text;
  int n = 0;
  while (std::getline(in, text)) {
    ++n;
    if (text.empty()) continue;
    Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      if (warnings) {
        warnings->push_back(path + ":" + std::to_string(n) + ": skipped a line that is not a JSON object" +
                            (in.peek() == EOF ? " (torn by a crash or a full disk)" : ""));
      }
      continue;
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
