// Polls the cluster's own health once a second on its own thread, for the
// run's journal (health lines) and log (each change of state).
#ifndef STAMPEDE_COORDINATOR_HEALTH_POLLER_H_
#define STAMPEDE_COORDINATOR_HEALTH_POLLER_H_

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "proto/stampede.pb.h"
#include "record/records.h"

namespace stampede::coordinator {

class HealthPoller {
 public:
  // emit: a health poll for the journal; log: a line for the user. Both are
  // called from the poller's thread.
  HealthPoller(std::function<void(const record::HealthPoll&)> emit, std::function<void(const std::string&)> log)
      : emit_(std::move(emit)), log_(std::move(log)) {}
  ~HealthPoller() { Stop(); }

  // Starts polling target.health (nothing if it has no kind); times are
  // seconds since run_start_ns.
  void Start(const v1::Target& target, int64_t run_start_ns);
  void Stop();

 private:
  std::function<void(const record::HealthPoll&)> emit_;
  std::function<void(const std::string&)> log_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_HEALTH_POLLER_H_
