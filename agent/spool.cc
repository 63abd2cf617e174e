#include "agent/spool.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/clock.h"
#include "common/log.h"

namespace stampede::agent {
namespace {

constexpr char kMagic[] = "stampede-spool 1";
constexpr uint32_t kMaxRecord = 64u << 20;

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(char((v >> (8 * i)) & 0xff));
}

uint32_t GetU32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

}  // namespace

Spool::Spool(std::string dir, std::string agent, uint64_t max_bytes)
    : dir_(std::move(dir)),
      agent_(std::move(agent)),
      path_(dir_.empty() ? "" : dir_ + "/" + agent_ + ".spool"),
      max_bytes_(max_bytes) {}

Spool::~Spool() {
  MutexLock lock(mu_);
  CloseLocked();
}

void Spool::CloseLocked() {
  if (file_) std::fclose(file_);
  file_ = nullptr;
}

Status Spool::Begin(const std::string& run_id) {
  MutexLock lock(mu_);
  CloseLocked();
  run_id_ = run_id;
  records_.clear();
  last_phase_ = 0;
  bytes_ = dropped_ = 0;
  write_failed_ = false;
  if (dir_.empty()) return Status::Ok();
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return Status::Error("spool: cannot create " + dir_ + ": " + ec.message());
  file_ = std::fopen(path_.c_str(), "w");
  if (!file_) return Status::FromErrno("spool: " + path_, errno);
  std::fprintf(file_, "%s %s %s\n", kMagic, run_id.c_str(), agent_.c_str());
  std::fflush(file_);
  last_sync_ns_ = MonoNowNs();
  return Status::Ok();
}

bool Spool::LoadPrevious(std::string* run_id) {
  if (dir_.empty()) return false;
  std::string id, agent;
  std::vector<SpoolRecord> records;
  if (!Read(path_, &id, &agent, &records).ok() || id.empty()) return false;
  MutexLock lock(mu_);
  run_id_ = id;
  records_.clear();
  bytes_ = 0;
  last_phase_ = 0;
  for (const SpoolRecord& r : records) {
    bytes_ += r.message.ByteSizeLong() + 8;
    last_phase_ = std::max(last_phase_, r.phase);
  }
  // Go on appending to it; without it, its records are all there is.
  file_ = std::fopen(path_.c_str(), "a");
  if (!file_) records_ = std::move(records);
  *run_id = id;
  return true;
}

void Spool::Append(uint32_t phase, const v1::AgentMessage& message) {
  const uint64_t size = message.ByteSizeLong() + 8;
  MutexLock lock(mu_);
  if (bytes_ + size > max_bytes_) {
    if (dropped_++ == 0) {
      SLOG(kWarn) << "spool full (" << max_bytes_ / (1 << 20) << " MB): records are no longer kept";
    }
    return;
  }
  bytes_ += size;
  last_phase_ = std::max(last_phase_, phase);
  if (!file_ || write_failed_) {
    records_.push_back({phase, message});
    return;
  }
  std::string buf;
  PutU32(&buf, uint32_t(size - 8));
  PutU32(&buf, phase);
  message.AppendToString(&buf);
  if (std::fwrite(buf.data(), 1, buf.size(), file_) != buf.size() || std::fflush(file_) != 0) {
    write_failed_ = true;
    SLOG(kWarn) << "spool: " << path_ << ": " << std::strerror(errno) << "; records are kept in memory only";
    records_.push_back({phase, message});
    return;
  }
  if (MonoNowNs() - last_sync_ns_ >= kNsPerSec) {
    last_sync_ns_ = MonoNowNs();
    ::fdatasync(fileno(file_));
  }
}

std::vector<v1::AgentMessage> Spool::Since(uint32_t phase) const {
  MutexLock lock(mu_);
  std::vector<v1::AgentMessage> out;
  // The file's records first (read back: they are not kept in memory), then
  // those kept in memory since writing it failed.
  if (file_) {
    std::string id, agent;
    std::vector<SpoolRecord> on_disk;
    if (Status s = Read(path_, &id, &agent, &on_disk); !s.ok()) SLOG(kWarn) << "spool: " << s.message();
    for (SpoolRecord& r : on_disk) {
      if (r.phase >= phase) out.push_back(std::move(r.message));
    }
  }
  for (const SpoolRecord& r : records_) {
    if (r.phase >= phase) out.push_back(r.message);
  }
  return out;
}

uint32_t Spool::last_phase() const {
  MutexLock lock(mu_);
  return last_phase_;
}

uint64_t Spool::dropped() const {
  MutexLock lock(mu_);
  return dropped_;
}

void Spool::Drop() {
  MutexLock lock(mu_);
  CloseLocked();
  records_.clear();
  last_phase_ = 0;
  bytes_ = 0;
  if (!dir_.empty()) std::remove(path_.c_str());
  run_id_.clear();
}

std::string Spool::Keep() {
  MutexLock lock(mu_);
  CloseLocked();
  records_.clear();
  last_phase_ = 0;
  bytes_ = 0;
  if (dir_.empty() || run_id_.empty()) return "";
  const std::string kept = dir_ + "/" + agent_ + "." + run_id_ + ".spool";
  std::error_code ec;
  std::filesystem::rename(path_, kept, ec);
  run_id_.clear();
  return ec ? path_ : kept;
}

Status Spool::Read(const std::string& path, std::string* run_id, std::string* agent,
                   std::vector<SpoolRecord>* records) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::FromErrno(path, errno);
  std::string header;
  std::getline(in, header);
  std::istringstream h(header);
  std::string magic, version;
  h >> magic >> version >> *run_id >> *agent;
  if (magic + " " + version != kMagic || run_id->empty()) {
    return Status::Error(path + ": not a stampede spool (expected '" + std::string(kMagic) + " RUN AGENT')");
  }
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  size_t at = 0;
  while (at + 8 <= data.size()) {
    const uint32_t len = GetU32(p + at), phase = GetU32(p + at + 4);
    if (len > kMaxRecord || at + 8 + len > data.size()) break;  // torn at the end
    SpoolRecord r;
    r.phase = phase;
    if (!r.message.ParseFromArray(data.data() + at + 8, int(len))) break;
    records->push_back(std::move(r));
    at += 8 + len;
  }
  return Status::Ok();
}

}  // namespace stampede::agent
