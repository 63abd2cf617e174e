// The agents connected to this coordinator, and the hook through which their
// messages reach the run in progress.
//
// Thread-safety: all methods are thread-safe. Listener callbacks run on the
// gRPC thread serving the agent's stream and must not block for long.
#ifndef STAMPEDE_COORDINATOR_AGENT_REGISTRY_H_
#define STAMPEDE_COORDINATOR_AGENT_REGISTRY_H_

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/sync_stream.h>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "proto/stampede.pb.h"

namespace stampede::coordinator {

using AgentStream = grpc::ServerReaderWriter<v1::CoordinatorMessage, v1::AgentMessage>;

// One connected agent. Send() may be called from any thread.
class AgentSession {
 public:
  AgentSession(v1::Hello hello, AgentStream* stream) : hello_(std::move(hello)), stream_(stream) {}

  const std::string& name() const { return hello_.name(); }
  const v1::Hello& hello() const { return hello_; }
  // False once the stream is gone.
  bool Send(const v1::CoordinatorMessage& message);
  // Called by the stream's handler before it returns.
  void Close();

 private:
  const v1::Hello hello_;
  std::mutex mu_;
  AgentStream* stream_;  // guarded by mu_; null once closed
};

class SessionListener {
 public:
  virtual ~SessionListener() = default;
  virtual void OnSnapshot(const std::string& agent, const v1::Snapshot& snapshot) = 0;
  virtual void OnEvent(const std::string& agent, const v1::Event& event) = 0;
  virtual void OnAgentLost(const std::string& agent) = 0;
};

class AgentRegistry {
 public:
  // False if an agent of that name is already connected.
  bool Add(std::shared_ptr<AgentSession> session);
  void Remove(const std::shared_ptr<AgentSession>& session);
  std::vector<std::shared_ptr<AgentSession>> Connected() const;  // sorted by name
  size_t size() const;

  // Waits until at least n agents are connected, the deadline (monotonic ns)
  // passes, or stop() returns true (polled). Returns the count seen.
  size_t WaitForAgents(size_t n, int64_t deadline_ns, const std::function<bool()>& stop);

  void SetListener(std::shared_ptr<SessionListener> listener);
  std::shared_ptr<SessionListener> listener() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::shared_ptr<AgentSession>> sessions_;  // guarded by mu_
  std::shared_ptr<SessionListener> listener_;            // guarded by mu_
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_AGENT_REGISTRY_H_
