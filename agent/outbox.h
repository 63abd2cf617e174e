// Messages waiting for the agent's current session to send them. Producers
// (runners, fault actions) never block on the network: a session's writer
// thread takes them out. While there is no session the outbox is closed and
// drops what it is given (the spool has every record the coordinator will
// ask for again). Thread-safe.
#ifndef STAMPEDE_AGENT_OUTBOX_H_
#define STAMPEDE_AGENT_OUTBOX_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

#include "common/mutex.h"
#include "proto/stampede.pb.h"

namespace stampede::agent {

class Outbox {
 public:
  void Open() {
    MutexLock lock(mu_);
    open_ = true;
  }
  void Close() {
    {
      MutexLock lock(mu_);
      open_ = false;
      queue_.clear();
    }
    cv_.notify_all();
  }
  void Push(v1::AgentMessage m) {
    {
      MutexLock lock(mu_);
      if (!open_) return;
      queue_.push_back(std::move(m));
    }
    cv_.notify_all();
  }
  // The next message, waiting up to `wait`; nothing if none came or the
  // outbox closed.
  std::optional<v1::AgentMessage> Pop(std::chrono::milliseconds wait) {
    MutexLock lock(mu_);
    const auto until = std::chrono::steady_clock::now() + wait;
    while (queue_.empty() && open_) {
      if (cv_.wait_until(lock.native(), until) == std::cv_status::timeout) break;
    }
    if (queue_.empty()) return std::nullopt;
    v1::AgentMessage m = std::move(queue_.front());
    queue_.pop_front();
    return m;
  }

 private:
  Mutex mu_;
  std::condition_variable cv_;
  std::deque<v1::AgentMessage> queue_ ABSL_GUARDED_BY(mu_);
  bool open_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_OUTBOX_H_
