// The agents connected to this coordinator, and the hook through which their
// messages reach the run in progress.
//
// Thread-safety: all methods are thread-safe. Listener callbacks run on the
// gRPC thread serving the agent's stream and must not block for long.
#ifndef STAMPEDE_COORDINATOR_AGENT_REGISTRY_H_
#define STAMPEDE_COORDINATOR_AGENT_REGISTRY_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "coordinator/agent_link.h"
#include "proto/stampede.pb.h"

namespace stampede::coordinator {

// One connected agent: its hello, its link, when it was last heard. (Its
// stream is the gRPC Session RPC; "session" elsewhere means a database
// session.) Send() may be called from any thread.
class RemoteAgent {
 public:
  // The link outlives this object's use of it: Close() before it goes.
  RemoteAgent(v1::Hello hello, AgentLink* link);

  const std::string& name() const { return hello_.name(); }
  const v1::Hello& hello() const { return hello_; }
  // False once the stream is gone.
  bool Send(const v1::CoordinatorMessage& message);
  // Called by the stream's handler before it returns.
  void Close();

  // Set once the welcome went out: nothing else may be sent before it.
  void SetWelcomed() { welcomed_.store(true); }
  bool welcomed() const { return welcomed_.load(); }

  // Heartbeats: every message from the agent counts as one.
  void Touch();
  int64_t last_heard_ns() const { return last_heard_ns_.load(); }
  // Ends the session from the coordinator's side (a silent agent): the
  // stream's handler then returns and reports the loss with this reason.
  void Cancel(const std::string& reason);
  std::string cancel_reason() const;

 private:
  const v1::Hello hello_;
  std::atomic<int64_t> last_heard_ns_;
  std::atomic<bool> welcomed_{false};
  mutable Mutex mu_;
  AgentLink* link_ ABSL_GUARDED_BY(mu_);  // null once closed
  // Cancel() must not wait for a Write() blocked on a stuck agent: its own
  // lock, never held across a write.
  mutable Mutex cancel_mu_;
  AgentLink* cancel_link_ ABSL_GUARDED_BY(cancel_mu_);  // null once closed
  std::string cancel_reason_ ABSL_GUARDED_BY(cancel_mu_);
};

class AgentListener {
 public:
  virtual ~AgentListener() = default;
  virtual void OnSnapshot(const std::string& agent, const v1::Snapshot& snapshot) = 0;
  virtual void OnEvent(const std::string& agent, const v1::Event& event) = 0;
  virtual void OnAgentLost(const std::string& agent, const std::string& reason) = 0;
  // A node the agent declared, sampled (checked: declared, numbers sane).
  virtual void OnNodeStats(const std::string& agent, const v1::NodeStats& stats) {
    (void)agent;
    (void)stats;
  }
  // A session opened (before its welcome is sent): the listener fills what
  // the welcome says about the agent's run, and may take the agent back.
  virtual void OnAgentJoined(const std::shared_ptr<RemoteAgent>& session, v1::Welcome* welcome) = 0;
};

class AgentRegistry {
 public:
  // An agent silent this long is lost: its session is cancelled.
  static constexpr int64_t kSilenceNs = 3'000'000'000;

  // False if an agent of that name is connected and heard from within the
  // last 2 s; an older session of that name is cancelled and replaced.
  bool Add(std::shared_ptr<RemoteAgent> session);
  // True if the session was the registered one for its name.
  bool Remove(const std::shared_ptr<RemoteAgent>& session);
  // Cancels the sessions silent for kSilenceNs at now_ns.
  void CancelSilent(int64_t now_ns);
  // The welcomed sessions (nothing may be sent to one before its welcome),
  // sorted by name.
  std::vector<std::shared_ptr<RemoteAgent>> Connected() const;
  // The session's welcome went out.
  void Welcomed(const std::shared_ptr<RemoteAgent>& session);
  size_t size() const;

  // Waits until at least n agents are connected, the deadline (monotonic ns)
  // passes, or stop() returns true (polled). Returns the count seen.
  size_t WaitForAgents(size_t n, int64_t deadline_ns, const std::function<bool()>& stop);

  void SetListener(std::shared_ptr<AgentListener> listener);
  std::shared_ptr<AgentListener> listener() const;

 private:
  size_t WelcomedLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable Mutex mu_;
  std::condition_variable cv_;
  std::vector<std::shared_ptr<RemoteAgent>> sessions_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<AgentListener> listener_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_AGENT_REGISTRY_H_
