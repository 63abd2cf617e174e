#include "coordinator/agent_registry.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "common/clock.h"

namespace stampede::coordinator {

RemoteAgent::RemoteAgent(v1::Hello hello, AgentLink* link)
    : hello_(std::move(hello)), last_heard_ns_(MonoNowNs()), link_(link), cancel_link_(link) {}

void RemoteAgent::Touch() { last_heard_ns_.store(MonoNowNs()); }

void RemoteAgent::Cancel(const std::string& reason) {
  MutexLock lock(cancel_mu_);
  if (cancel_reason_.empty()) cancel_reason_ = reason;
  if (cancel_link_) cancel_link_->Cancel();
}

std::string RemoteAgent::cancel_reason() const {
  MutexLock lock(cancel_mu_);
  return cancel_reason_;
}

bool RemoteAgent::Send(const v1::CoordinatorMessage& message) {
  MutexLock lock(mu_);
  if (!link_) return false;
  if (!link_->Write(message)) {
    link_ = nullptr;
    return false;
  }
  return true;
}

void RemoteAgent::Close() {
  {
    MutexLock lock(cancel_mu_);
    cancel_link_ = nullptr;
  }
  MutexLock lock(mu_);
  link_ = nullptr;
}

bool AgentRegistry::Add(std::shared_ptr<RemoteAgent> session) {
  constexpr int64_t kReplaceAfterNs = 2 * kNsPerSec;
  {
    MutexLock lock(mu_);
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
      if ((*it)->name() != session->name()) continue;
      if (MonoNowNs() - (*it)->last_heard_ns() < kReplaceAfterNs) return false;
      // The agent came back before its old, silent session was noticed.
      (*it)->Cancel("replaced by a new session of the same agent");
      sessions_.erase(it);
      break;
    }
    sessions_.push_back(std::move(session));
    std::sort(sessions_.begin(), sessions_.end(), [](const auto& a, const auto& b) { return a->name() < b->name(); });
  }
  cv_.notify_all();
  return true;
}

bool AgentRegistry::Remove(const std::shared_ptr<RemoteAgent>& session) {
  bool removed;
  {
    MutexLock lock(mu_);
    auto it = std::remove(sessions_.begin(), sessions_.end(), session);
    removed = it != sessions_.end();
    sessions_.erase(it, sessions_.end());
  }
  cv_.notify_all();
  return removed;
}

void AgentRegistry::CancelSilent(int64_t now_ns) {
  std::vector<std::shared_ptr<RemoteAgent>> silent;
  {
    MutexLock lock(mu_);
    for (const auto& s : sessions_) {
      if (now_ns - s->last_heard_ns() >= kSilenceNs) silent.push_back(s);
    }
  }
  for (const auto& s : silent) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "silent for %.1f s", double(now_ns - s->last_heard_ns()) / 1e9);
    s->Cancel(buf);
  }
}

std::vector<std::shared_ptr<RemoteAgent>> AgentRegistry::Connected() const {
  MutexLock lock(mu_);
  std::vector<std::shared_ptr<RemoteAgent>> out;
  for (const auto& s : sessions_) {
    if (s->welcomed()) out.push_back(s);
  }
  return out;
}

size_t AgentRegistry::size() const { return Connected().size(); }

void AgentRegistry::Welcomed(const std::shared_ptr<RemoteAgent>& session) {
  session->SetWelcomed();
  cv_.notify_all();
}

size_t AgentRegistry::WaitForAgents(size_t n, int64_t deadline_ns, const std::function<bool()>& stop) {
  MutexLock lock(mu_);
  while (WelcomedLocked() < n && MonoNowNs() < deadline_ns && !(stop && stop())) {
    cv_.wait_for(lock.native(), std::chrono::milliseconds(100));
  }
  return WelcomedLocked();
}

size_t AgentRegistry::WelcomedLocked() const {
  size_t k = 0;
  for (const auto& s : sessions_) k += s->welcomed() ? 1 : 0;
  return k;
}

void AgentRegistry::SetListener(std::shared_ptr<AgentListener> listener) {
  MutexLock lock(mu_);
  listener_ = std::move(listener);
}

std::shared_ptr<AgentListener> AgentRegistry::listener() const {
  MutexLock lock(mu_);
  return listener_;
}

}  // namespace stampede::coordinator
