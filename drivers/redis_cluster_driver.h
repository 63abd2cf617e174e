// Redis Cluster driver (flavor redis-cluster) on blocking connections, for
// one-off statements and the threaded engine: routes each command by its
// key's hash slot using the map from CLUSTER SLOTS, follows MOVED (updating
// the map) and ASK (ASKING, once), and reloads the map after a node is lost,
// TRYAGAIN or CLUSTERDOWN. One worker owns the driver and its connections
// (at most one per node it has talked to). The asynchronous engine's twin is
// drivers/redis_cluster_async_driver.h.
//
// The key is the command's second word, as for GET/SET/DEL and the
// commands the built-in workloads issue.
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
  Status Prepare(const std::vector<StatementSpec>& statements) override;
  OpResult Execute(const OpRequest& request, std::string* error) override;
  // Commands without a key (EVAL with no keys, FLUSHDB, ...) run on every
  // master; others go where their key lives. Execute does the same for
  // scalar statements without a key, and sums the integers.
  Status ExecuteOnce(std::string_view statement) override;
  bool connected() const override { return map_loaded_; }
  void Close() override;

 private:
  RedisDriver* Node(const std::string& endpoint, std::string* error);
  Status LoadMap();
  OpResult Route(int argc, bool write, std::string* error);
  // A scalar command without a key (a count): run on every master, summed.
  OpResult SumOverMasters(int argc, std::string* error);

  ConnectOptions base_;  // credentials and timeouts; host/port per node
  std::vector<std::string> seeds_;
  std::map<std::string, std::unique_ptr<RedisDriver>> nodes_;
  SlotMap map_;
  bool map_loaded_ = false;
  bool map_stale_ = false;
  RedisCommands commands_;
  std::vector<std::string> args_;
  std::string reply_error_;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_REDIS_CLUSTER_DRIVER_H_
