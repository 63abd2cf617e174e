#include "report/journal.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/clock.h"

namespace stampede::report {

JournalWriter::~JournalWriter() { Close(); }

Status JournalWriter::Open(const std::string& path) {
  MutexLock lock(mu_);
  path_ = path;
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) return Status::Error(path + ": " + std::strerror(errno));
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

namespace {

// A number in base 32, most significant digit first: the last digit from
// kEnd, the others from kMore, so numbers need no separator.
constexpr char kMore[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345";
constexpr char kEnd[] = "abcdefghijklmnopqrstuvwxyz6789+/";

void PutNumber(uint64_t v, std::string* out) {
  char digits[14];
  int n = 0;
  do {
    digits[n++] = char(v & 31);
    v >>= 5;
  } while (v);
  for (int i = n - 1; i > 0; --i) out->push_back(kMore[int(digits[i])]);
  out->push_back(kEnd[int(digits[0])]);
}

// The next number at *pos; false at the end or on a character not ours.
bool GetNumber(const std::string& s, size_t* pos, uint64_t* v) {
  *v = 0;
  for (int digits = 0; *pos < s.size() && digits < 13; ++digits) {
    const char c = s[(*pos)++];
    const char* more = std::strchr(kMore, c);
    const char* end = more ? nullptr : std::strchr(kEnd, c);
    if (c == '\0' || (!more && !end)) return false;
    *v = (*v << 5) | uint64_t(more ? more - kMore : end - kEnd);
    if (end) return true;
  }
  return false;
}

}  // namespace

void MergeHistogramJson(const Json& j, Histogram* h) {
  if (!j.is_object()) return;
  if (auto b = j.find("b"); b != j.end() && b->is_array()) {
    for (const Json& pair : *b) {
      if (pair.is_array() && pair.size() == 2) h->AddBucket(pair[0].get<int>(), pair[1].get<uint64_t>());
    }
  }
  if (auto z = j.find("z"); z != j.end() && z->is_string()) {
    const std::string& packed = z->get_ref<const std::string&>();
    size_t pos = 0;
    uint64_t index = 0, delta = 0, count = 0;
    while (GetNumber(packed, &pos, &delta) && GetNumber(packed, &pos, &count)) {
      index += delta;
      if (index >= uint64_t(HistogramLayout::kNumBuckets)) break;
      h->AddBucket(int(index), count);
    }
  }
  h->AddSummary(j.value("sum_ns", uint64_t{0}), j.value("max_ns", uint64_t{0}));
}

void PackHistograms(Json* line) {
  auto ops = line->find("ops");
  if (ops == line->end() || !ops->is_object()) return;
  for (auto& op : ops->items()) {
    auto latency = op.value().find("latency");
    if (latency == op.value().end() || !latency->is_object()) continue;
    auto b = latency->find("b");
    if (b == latency->end() || !b->is_array()) continue;
    std::string packed;
    uint64_t previous = 0;
    bool ok = true;
    for (const Json& pair : *b) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() || !pair[1].is_number_integer() ||
          pair[0].get<int64_t>() < int64_t(previous) || pair[1].get<int64_t>() < 0) {
        ok = false;  // not what HistogramToJson writes: leave it as it is
        break;
      }
      PutNumber(pair[0].get<uint64_t>() - previous, &packed);
      PutNumber(pair[1].get<uint64_t>(), &packed);
      previous = pair[0].get<uint64_t>();
    }
    if (!ok) continue;
    latency->erase("b");
    (*latency)["z"] = std::move(packed);
  }
}

}  // namespace stampede::report
