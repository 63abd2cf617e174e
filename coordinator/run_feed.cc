#include "coordinator/run_feed.h"

#include <chrono>

namespace stampede::coordinator {

void RunFeed::OnStarted(const std::string& run_id, const std::string& results_dir) {
  {
    MutexLock lock(mu_);
    run_id_ = run_id;
    results_dir_ = results_dir;
  }
  if (primary_) primary_->OnStarted(run_id, results_dir);
}

void RunFeed::OnProgress(const v1::Progress& progress) {
  if (primary_) primary_->OnProgress(progress);
  v1::RunUpdate u;
  *u.mutable_progress() = progress;
  Push(std::move(u));
}

void RunFeed::OnLog(const std::string& line) {
  if (primary_) primary_->OnLog(line);
  v1::RunUpdate u;
  u.set_log(line);
  Push(std::move(u));
}

bool RunFeed::Cancelled() { return aborted_.load() || (primary_ && primary_->Cancelled()); }

void RunFeed::Push(v1::RunUpdate u) {
  {
    MutexLock lock(mu_);
    u.set_run_id(run_id_);
    updates_.push_back(std::move(u));
    if (updates_.size() > kKept) {
      updates_.pop_front();
      ++first_;
    }
  }
  cv_.notify_all();
}

void RunFeed::End(const v1::RunResult& result) {
  {
    MutexLock lock(mu_);
    result_ = result;
  }
  cv_.notify_all();
}

std::string RunFeed::run_id() const {
  MutexLock lock(mu_);
  return run_id_;
}

std::string RunFeed::results_dir() const {
  MutexLock lock(mu_);
  return results_dir_;
}

bool RunFeed::ended() const {
  MutexLock lock(mu_);
  return result_.has_value();
}

bool RunFeed::Follow(const std::function<bool(const v1::RunUpdate&)>& write, const std::function<bool()>& stop,
                     bool from_start) {
  MutexLock lock(mu_);
  uint64_t next = from_start ? first_ : first_ + updates_.size();
  while (true) {
    if (next < first_) next = first_;  // too slow: skip what was dropped
    while (next < first_ + updates_.size()) {
      v1::RunUpdate u = updates_[size_t(next - first_)];
      ++next;
      lock.Unlock();
      if (!write(u)) return false;
      lock.Lock();
    }
    if (result_) {
      v1::RunUpdate last;
      last.set_run_id(run_id_);
      *last.mutable_result() = *result_;
      lock.Unlock();
      return write(last);
    }
    if (stop()) return false;
    cv_.wait_for(lock.native(), std::chrono::milliseconds(200));
  }
}

}  // namespace stampede::coordinator
