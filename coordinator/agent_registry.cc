#include "coordinator/agent_registry.h"

#include <algorithm>
#include <chrono>

#include "common/clock.h"

namespace stampede::coordinator {

bool AgentSession::Send(const v1::CoordinatorMessage& message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!stream_) return false;
  if (!stream_->Write(message)) {
    stream_ = nullptr;
    return false;
  }
  return true;
}

void AgentSession::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  stream_ = nullptr;
}

bool AgentRegistry::Add(std::shared_ptr<AgentSession> session) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& s : sessions_) {
      if (s->name() == session->name()) return false;
    }
    sessions_.push_back(std::move(session));
    std::sort(sessions_.begin(), sessions_.end(),
              [](const auto& a, const auto& b) { return a->name() < b->name(); });
  }
  cv_.notify_all();
  return true;
}

void AgentRegistry::Remove(const std::shared_ptr<AgentSession>& session) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    sessions_.erase(std::remove(sessions_.begin(), sessions_.end(), session), sessions_.end());
  }
  cv_.notify_all();
}

std::vector<std::shared_ptr<AgentSession>> AgentRegistry::Connected() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sessions_;
}

size_t AgentRegistry::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sessions_.size();
}

size_t AgentRegistry::WaitForAgents(size_t n, int64_t deadline_ns,
                                    const std::function<bool()>& stop) {
  std::unique_lock<std::mutex> lock(mu_);
  while (sessions_.size() < n && MonoNowNs() < deadline_ns && !(stop && stop())) {
    cv_.wait_for(lock, std::chrono::milliseconds(100));
  }
  return sessions_.size();
}

void AgentRegistry::SetListener(std::shared_ptr<SessionListener> listener) {
  std::lock_guard<std::mutex> lock(mu_);
  listener_ = std::move(listener);
}

std::shared_ptr<SessionListener> AgentRegistry::listener() const {
  std::lock_guard<std::mutex> lock(mu_);
  return listener_;
}

}  // namespace stampede::coordinator
