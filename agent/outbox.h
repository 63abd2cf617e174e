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

#include "proto/stampede.pb.h"

namespace stampede::agent {

class Outbox {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
  }
  void Close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = false;
      queue_.clear();
    }
    cv_.notify_all();
  }
  void Push(v1::AgentMessage m) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!open_) return;
      queue_.push_back(std::move(m));
    }
    cv_.notify_all();
  }
  // The next message, waiting up to `wait`; nothing if none came or the
  // outbox closed.
  std::optional<v1::AgentMessage> Pop(std::chrono::milliseconds wait) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, wait, [&] { return !queue_.empty() || !open_; });
    if (queue_.empty()) return std::nullopt;
    v1::AgentMessage m = std::move(queue_.front());
    queue_.pop_front();
    return m;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<v1::AgentMessage> queue_;  // guarded by mu_
  bool open_ = false;                   // guarded by mu_
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_OUTBOX_H_
