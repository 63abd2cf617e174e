// Redis driver on hiredis (redis; cluster mode comes with redis-cluster).
//
// "Statements" are command words with $n placeholders, e.g.
// "SET crud:$1 $2". Arguments are rendered into buffers owned by the driver
// and reused across operations.
#ifndef STAMPEDE_DRIVERS_REDIS_DRIVER_H_
#define STAMPEDE_DRIVERS_REDIS_DRIVER_H_

#include <string>
#include <vector>

#include "drivers/driver.h"
#include "drivers/statement_template.h"

struct redisContext;

namespace stampede::drivers {

class RedisDriver : public Driver {
 public:
  RedisDriver() = default;
  ~RedisDriver() override;

  Status Connect(const ConnectOptions& options) override;
  Status Prepare(const std::vector<StatementSpec>& statements) override;
  OpResult Execute(const OpRequest& request, std::string* error) override;
  Status ExecuteOnce(std::string_view statement) override;
  bool connected() const override;
  void Close() override;

 private:
  struct Command {
    std::vector<std::vector<Segment>> words;
    bool write = false;
  };
  // Sends argv and classifies the reply; shared by Execute and ExecuteOnce.
  OpResult Send(int argc, bool write, std::string* error);

  redisContext* ctx_ = nullptr;
  std::string endpoint_;
  std::vector<Command> commands_;
  std::vector<std::string> args_;  // rendered words, reused
  std::vector<const char*> argv_;
  std::vector<size_t> argvlen_;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_REDIS_DRIVER_H_
