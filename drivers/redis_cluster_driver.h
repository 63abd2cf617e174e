// Redis Cluster on blocking connections (flavor redis-cluster), for one-off
// statements: a keyless command (FLUSHDB, EVAL with no keys, ...) runs on
// every master; any other is routed by its key's hash slot (its second
// word) using the map from CLUSTER SLOTS, following MOVED and ASK. Workers
// use drivers/redis_cluster_async_driver.h.
#ifndef STAMPEDE_DRIVERS_REDIS_CLUSTER_DRIVER_H_
#define STAMPEDE_DRIVERS_REDIS_CLUSTER_DRIVER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "drivers/redis_driver.h"
#include "drivers/redis_slots.h"

namespace stampede::drivers {

class RedisClusterDriver : public Driver {
 public:
  RedisClusterDriver();
  ~RedisClusterDriver() override;

  // Connects to a seed node and loads the slot map.
  Status Connect(const ConnectOptions& options) override;
  Status ExecuteOnce(std::string_view statement) override;
  bool connected() const override { return map_loaded_; }
  void Close() override;

 private:
  RedisDriver* Node(const std::string& endpoint, std::string* error);
  Status LoadMap();
  OpResult Route(int argc, bool write, std::string* error);

  ConnectOptions base_;  // credentials and timeouts; host/port per node
  std::vector<std::string> seeds_;
  std::map<std::string, std::unique_ptr<RedisDriver>> nodes_;
  SlotMap map_;
  bool map_loaded_ = false;
  bool map_stale_ = false;
  std::vector<std::string> args_;
  std::string reply_error_;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_REDIS_CLUSTER_DRIVER_H_
