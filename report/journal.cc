#include "report/journal.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/clock.h"
#include "record/record_codec.h"

namespace stampede::report {

JournalWriter::~JournalWriter() { Close(); }

Status JournalWriter::Open(const std::string& path) {
  MutexLock lock(mu_);
  path_ = path;
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) return Status::FromErrno(path, errno);
  last_sync_ns_ = MonoNowNs();
  return Status::Ok();
}

Status JournalWriter::Append(const Json& line) {
  std::string text = line.dump() + "\n";
  MutexLock lock(mu_);
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

Status JournalWriter::Append(const record::Record& r) { return Append(record::Encode(r)); }

Status JournalWriter::Sync() {
  MutexLock lock(mu_);
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
  MutexLock lock(mu_);
  if (!file_) return;
  if (error_.ok()) SyncLocked();
  std::fclose(file_);
  file_ = nullptr;
}

Status ScanJournal(const std::string& path, const std::function<void(Json&&)>& fn, std::vector<std::string>* warnings) {
  std::ifstream in(path);
  if (!in) return Status::FromErrno(path, errno);
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
    fn(std::move(j));
  }
  return Status::Ok();
}

Status ScanRecords(const std::string& path, const std::function<void(record::Record&&)>& fn,
                   std::vector<std::string>* warnings) {
  return ScanJournal(
      path,
      [&](Json&& line) {
        if (auto r = record::Decode(line)) fn(std::move(*r));
      },
      warnings);
}

StatusOr<std::vector<Json>> ReadJournal(const std::string& path, std::vector<std::string>* warnings) {
  std::vector<Json> lines;
  Status s = ScanJournal(
      path, [&](Json&& line) { lines.push_back(std::move(line)); }, warnings);
  if (!s.ok()) return s;
  return lines;
}

}  // namespace stampede::report
