// The agent: dials the coordinator, keeps one Connection (the Session RPC's
// stream) open at a time, and takes part in the runs it is assigned
// (agent/agent_run.h). Connections come and go (redialled with back-off
// until Shutdown()); the run outlives them. Heartbeats go both ways once a
// second: a coordinator silent for 3 s is lost, and it is redialled.
//
// Thread-safety: Run() blocks on its own thread; Shutdown() may be called
// from any thread (e.g. a signal handler thread).
#ifndef STAMPEDE_AGENT_AGENT_H_
#define STAMPEDE_AGENT_AGENT_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "agent/agent_config.h"
#include "agent/agent_run.h"
#include "common/mutex.h"
#include "common/status.h"
#include "metrics/metrics_exporter.h"

namespace stampede::agent {

struct AgentOptions {
  std::string coordinator;  // host:port
  std::string name;
  std::map<std::string, std::string> labels;
  uint32_t capacity = 0;
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  // Appended to "cannot reach coordinator" when the error says nothing
  // useful (a TLS peer that refused our certificate just closes).
  std::string unreachable_hint;
  // Its local config (--config): the nodes it may act on, what to do when
  // the coordinator is gone, where to spool (config.spool_dir; empty: in
  // memory only).
  AgentConfig config;
  // Keep redialling after the coordinator goes away (daemon mode). When
  // false, Run() returns once the first session ends.
  bool reconnect = true;
  // This agent's own /metrics (stampede agent --http), fed from its
  // snapshots; owned by the caller. Null: none.
  metrics::MetricsExporter* metrics = nullptr;
  // How many event loops run its workers (0: one per core).
  EngineOptions engine;
};

class Agent {
 public:
  explicit Agent(AgentOptions options);
  ~Agent();

  // Undoes what an agent killed before it could heal left on the declared
  // nodes, and starts the nodes' fault proxies: an error (a proxy's address
  // in use) means this agent cannot serve. Run() calls it if the caller has
  // not.
  Status Start();
  // Serves sessions until Shutdown() (or, without reconnect, until the
  // session ends). Returns an error only if no session could be opened.
  Status Run();
  void Shutdown();

 private:
  class Connection;
  struct State;
  AgentOptions options_;
  std::unique_ptr<State> state_;
  std::atomic<bool> shutdown_{false};
  bool started_ = false;  // Start() succeeded
  Mutex mu_;
  std::shared_ptr<Connection> current_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_AGENT_H_
