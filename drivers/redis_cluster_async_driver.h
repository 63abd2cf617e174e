// Redis Cluster on the asynchronous engine (flavor redis-cluster): one
// RedisAsyncDriver per node the worker has talked to, on the worker's event
// loop. Routes each command by its key's hash slot (drivers/redis_slots.h),
// follows MOVED (updating the map) and ASK (ASKING first), and reloads the
// map after a node is lost, TRYAGAIN or CLUSTERDOWN, as the blocking
// drivers/redis_cluster_driver.h does for one-off statements.
//
// The per-operation path looks the node up by index, not by name; a
// redirect or a map reload may allocate (they are the cluster changing).
#ifndef STAMPEDE_DRIVERS_REDIS_CLUSTER_ASYNC_DRIVER_H_
#define STAMPEDE_DRIVERS_REDIS_CLUSTER_ASYNC_DRIVER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "drivers/async_driver.h"
#include "drivers/redis_async_driver.h"
#include "drivers/redis_slots.h"

namespace stampede::drivers {

class RedisClusterAsyncDriver : public AsyncDriver {
 public:
  explicit RedisClusterAsyncDriver(const boost::asio::any_io_executor& executor);
  ~RedisClusterAsyncDriver() override;

  // Connects to options' node (a seed) and loads the slot map from it.
  Task<Status> Connect(const ConnectOptions& options) override;
  Task<Status> Prepare(const std::vector<StatementSpec>& statements) override;
  // A scalar statement without a key (a count) runs on every master and
  // the integers are summed; any other goes where its key lives.
  Task<OpResult> Execute(const OpRequest& request, std::string* error) override;
  // Routed by its second word like any command (MULTI and EXEC have none:
  // they go to the first master).
  Task<OpResult> Control(std::string_view statement, bool write, std::string* error) override;
  // Pipelining (drivers/redis_cluster_pipeline.cc): each request is encoded
  // when appended; ExecuteAppended groups them by the node of their slot,
  // writes every node's group, then reads each node's answers. A MOVED or
  // ASK answer is followed for that operation alone; a keyless count runs
  // over the masters as Execute's does.
  void Append(const OpRequest& request) override;
  Task<void> ExecuteAppended(int n, OpResult* results, int64_t* ended_ns, std::string* errors) override;
  // True while a slot map is loaded: a lost node marks the map stale and
  // the next operation reloads it; only a failed reload needs Connect.
  bool connected() const override { return map_loaded_; }
  void Abort() override;
  void Close() override;

 private:
  // The node's connection, opened if need be; null (and *error) if it
  // cannot be. index: into map_.nodes().
  Task<RedisAsyncDriver*> Node(int index, std::string* error);
  Task<RedisAsyncDriver*> NodeAt(const std::string& endpoint, std::string* error);
  Task<Status> LoadMap();
  Task<bool> EnsureMap(std::string* error);
  Task<OpResult> Route(int argc, bool write, std::string* error);
  Task<OpResult> SumOverMasters(int argc, std::string* error);
  // Pipelined: op i's answer was a redirect (or TRYAGAIN): follows it.
  Task<void> Redirected(int i, OpResult* result, int64_t* ended_ns, std::string* error);
  // Pipelined: sends the groups of ops, one node at a time.
  Task<void> WriteGroups(OpResult* results, int64_t* ended_ns, std::string* errors);
  Task<void> ReadGroups(OpResult* results, int64_t* ended_ns, std::string* errors);

  static constexpr int kMaxRedirects = 5;

  boost::asio::any_io_executor executor_;
  ConnectOptions base_;  // credentials and timeouts; host/port per node
  std::vector<std::string> seeds_;
  std::map<std::string, std::unique_ptr<RedisAsyncDriver>> pool_;
  std::vector<RedisAsyncDriver*> by_index_;  // map_.nodes()[i] -> its driver (or null)
  SlotMap map_;
  bool map_loaded_ = false;
  bool map_stale_ = false;
  bool aborted_ = false;
  RedisAsyncDriver* active_ = nullptr;  // the node with a command in flight
  RedisCommands commands_;
  std::vector<std::string> args_;  // rendered words, reused
  std::vector<std::string> asking_ = {"ASKING"};
  // Pipelined: what was appended (buffers reused across rounds) and the
  // ops grouped by node index.
  struct Pending {
    std::string encoded;
    int slot = -1;  // -1: keyless (a count over the masters)
    bool write = false;
    std::vector<std::string> keyless_args;  // keyless only: the words
  };
  std::vector<Pending> pending_;
  int appended_ = 0;
  std::vector<std::vector<int>> groups_;
  std::vector<RedisAsyncDriver*> group_nodes_;
  std::vector<OpResult> sub_results_;
  std::vector<int64_t> sub_ended_;
  std::vector<std::string> sub_errors_;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_REDIS_CLUSTER_ASYNC_DRIVER_H_
