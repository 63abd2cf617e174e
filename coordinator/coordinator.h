// The coordinator: the gRPC server agents dial, and the runner of plans.
//
// Start() binds and serves; RunPlan() runs one plan at a time (a second
// concurrent call is refused). Thread-safe.
#ifndef STAMPEDE_COORDINATOR_COORDINATOR_H_
#define STAMPEDE_COORDINATOR_COORDINATOR_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "common/status.h"
#include "coordinator/agent_registry.h"
#include "coordinator/run_controller.h"
#include "proto/stampede.pb.h"

namespace stampede::coordinator {

struct CoordinatorOptions {
  std::string listen = "127.0.0.1:7878";  // port 0 picks a free port
  std::string results_root = "results";
  std::shared_ptr<grpc::ServerCredentials> credentials;  // default: insecure
  // Dashboard, JSON API and /metrics (HOST:PORT; port 0 picks one); empty: off.
  std::string http;
  // Push the metrics to this Pushgateway (http://HOST:PORT) during runs.
  std::string pushgateway;
};

class Coordinator {
 public:
  explicit Coordinator(CoordinatorOptions options);
  ~Coordinator();

  // Binds the listen address. "cannot listen on ADDR: <reason>" on failure.
  Status Start();
  int port() const { return port_; }
  int http_port() const;
  std::string address() const;

  // Runs a validated plan to completion (or abort) and writes its results.
  // results_dir overrides results_root/<run-id> when not empty.
  v1::RunResult RunPlan(const v1::Plan& plan, const std::string& plan_yaml,
                        const std::string& results_dir, RunObserver* observer);

  // Aborts a run in progress (its results are still written) and stops
  // serving.
  void Shutdown();
  bool shutting_down() const { return shutting_down_.load(); }

  AgentRegistry& registry() { return registry_; }

 private:
  class Service;
  struct Live;  // the dashboard's and /metrics' view of the runs
  CoordinatorOptions options_;
  AgentRegistry registry_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::mutex run_mu_;  // one run at a time
  std::atomic<bool> shutting_down_{false};
  std::unique_ptr<Live> live_;  // after registry_: its server reads the registry
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_COORDINATOR_H_
