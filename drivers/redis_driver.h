// Redis blocking connection on hiredis to one node, for one-off statements
// and health probes (and under drivers/redis_cluster_driver.h); workers use
// drivers/redis_async_driver.h.
#ifndef STAMPEDE_DRIVERS_REDIS_DRIVER_H_
#define STAMPEDE_DRIVERS_REDIS_DRIVER_H_

#include <string>
#include <vector>

#include "drivers/driver.h"
#include "drivers/redis_command.h"
#include "drivers/redis_slots.h"

struct redisContext;

namespace stampede::drivers {

class RedisDriver : public Driver {
 public:
  RedisDriver();
  ~RedisDriver() override;

  Status Connect(const ConnectOptions& options) override;
  Status ExecuteOnce(std::string_view statement) override;
  bool connected() const override;
  void Close() override;

  // Sends args[0..argc) as one command. On an error reply, *error gets
  // "endpoint: reply" and, if reply_error is not null, the bare reply.
  OpResult SendArgs(const std::vector<std::string>& args, int argc, bool write, std::string* error,
                    std::string* reply_error = nullptr);
  StatusOr<std::vector<SlotRange>> ClusterSlots();
  const std::string& endpoint() const { return endpoint_; }

 private:
  redisContext* ctx_ = nullptr;
  std::string endpoint_;
  std::vector<const char*> argv_;
  std::vector<size_t> argvlen_;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_REDIS_DRIVER_H_
