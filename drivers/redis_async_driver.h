// Redis on hiredis's non-blocking context: commands are appended to its
// output buffer, written when the socket takes them, and replies parsed as
// they arrive, on the worker's event loop. One node (flavor redis); the
// cluster flavor stays on the threaded driver for now.
#ifndef STAMPEDE_DRIVERS_REDIS_ASYNC_DRIVER_H_
#define STAMPEDE_DRIVERS_REDIS_ASYNC_DRIVER_H_

#include <string>
#include <vector>

#include "drivers/async_driver.h"
#include "drivers/redis_command.h"
#include "drivers/socket_waiter.h"

struct redisContext;
struct redisReply;

namespace stampede::drivers {

class RedisAsyncDriver : public AsyncDriver {
 public:
  explicit RedisAsyncDriver(const boost::asio::any_io_executor& executor);
  ~RedisAsyncDriver() override;

  Task<Status> Connect(const ConnectOptions& options) override;
  Task<Status> Prepare(const std::vector<StatementSpec>& statements) override;
  Task<OpResult> Execute(const OpRequest& request, std::string* error) override;
  Task<OpResult> Control(std::string_view statement, bool write, std::string* error) override;
  bool connected() const override { return ctx_ != nullptr; }
  void Abort() override { waiter_.Abort(); }
  void Close() override;

 private:
  // Sends words (AUTH, SELECT) and reads the reply; false unless ok.
  Task<bool> Words(const std::vector<std::string>& words, std::string* error);
  // Sends args_[0..argc) and reads the reply.
  Task<OpResult> Command(int argc, bool write, bool scalar, std::string* error);
  OpResult Lost(bool write, std::string* error);

  SocketWaiter waiter_;
  redisContext* ctx_ = nullptr;
  std::string endpoint_;
  RedisCommands commands_;
  std::vector<std::string> args_;  // rendered words, reused
  std::vector<const char*> argv_;
  std::vector<size_t> argvlen_;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_REDIS_ASYNC_DRIVER_H_
