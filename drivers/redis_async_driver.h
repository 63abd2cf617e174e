// Redis on an Asio socket: commands are encoded (RESP) into a buffer reused
// across operations and written; replies are read into another and parsed by
// hiredis's reader with reply functions that keep only what is needed
// (type, integer, element count, error text), so no reply object is
// allocated. One node (flavor redis); the cluster flavor stays on the
// threaded driver for now.
#ifndef STAMPEDE_DRIVERS_REDIS_ASYNC_DRIVER_H_
#define STAMPEDE_DRIVERS_REDIS_ASYNC_DRIVER_H_

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <string>
#include <vector>

#include "drivers/async_driver.h"
#include "drivers/redis_command.h"

struct redisReader;

namespace stampede::drivers {

// What the reader kept of the last reply.
struct RedisReplySummary {
  int type = 0;
  long long integer = 0;
  long long elements = 0;
  std::string error;
};

class RedisAsyncDriver : public AsyncDriver {
 public:
  explicit RedisAsyncDriver(const boost::asio::any_io_executor& executor);
  ~RedisAsyncDriver() override;

  Task<Status> Connect(const ConnectOptions& options) override;
  Task<Status> Prepare(const std::vector<StatementSpec>& statements) override;
  Task<OpResult> Execute(const OpRequest& request, std::string* error) override;
  Task<OpResult> Control(std::string_view statement, bool write, std::string* error) override;
  bool connected() const override { return connected_; }
  void Abort() override;
  void Close() override;

 private:
  // Sends words (AUTH, SELECT) and reads the reply; false unless ok.
  Task<bool> Words(const std::vector<std::string>& words, std::string* error);
  // Sends args_[0..argc) and reads the reply.
  Task<OpResult> Command(int argc, bool write, std::string* error);
  OpResult Lost(bool write, const std::string& why, std::string* error);

  boost::asio::ip::tcp::socket socket_;
  bool connected_ = false;
  bool aborted_ = false;
  redisReader* reader_ = nullptr;
  RedisReplySummary reply_;
  std::string endpoint_;
  RedisCommands commands_;
  std::vector<std::string> args_;  // rendered words, reused
  std::string out_;                // the encoded command, reused
  std::array<char, 4096> in_;      // a read; hiredis's reader keeps the rest
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_REDIS_ASYNC_DRIVER_H_
