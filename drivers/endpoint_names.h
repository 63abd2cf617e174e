// The endpoints a phase's operations were served by, as indexes: first the
// plan's target.endpoints in order, then the nodes a driver found on its
// own (a Redis Cluster's masters from its slot map, such as one that joined
// mid-run), up to a fixed capacity. The per-endpoint ok counts that tell
// when a joining node served its first operation and a leaving one its last
// are kept by these indexes (agent/worker_stats.h).
//
// Shared by the phase's event loops: IndexOf takes a lock, so it is called
// when a connection is made, never per operation.
#ifndef STAMPEDE_DRIVERS_ENDPOINT_NAMES_H_
#define STAMPEDE_DRIVERS_ENDPOINT_NAMES_H_

#include <algorithm>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::drivers {

class EndpointNames {
 public:
  // extra: how many endpoints beyond the plan's may be added.
  EndpointNames(std::vector<std::string> plan_endpoints, size_t extra)
      : names_(std::move(plan_endpoints)), capacity_(names_.size() + extra) {}

  // The endpoint's index, added if it is new and there is room; -1 when
  // the table is full.
  int IndexOf(std::string_view endpoint) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::find(names_.begin(), names_.end(), endpoint);
    if (it != names_.end()) return int(it - names_.begin());
    if (names_.size() >= capacity_) return -1;
    names_.emplace_back(endpoint);
    return int(names_.size() - 1);
  }

  // The names so far (index i: names[i]).
  std::vector<std::string> Names() const {
    std::lock_guard<std::mutex> lock(mu_);
    return names_;
  }

  size_t capacity() const { return capacity_; }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> names_;
  const size_t capacity_;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_ENDPOINT_NAMES_H_
