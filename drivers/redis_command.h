// Redis "statements": command words with $n placeholders ("SET t:$1 $2"),
// compiled once and rendered per operation into reused buffers.
#ifndef STAMPEDE_DRIVERS_REDIS_COMMAND_H_
#define STAMPEDE_DRIVERS_REDIS_COMMAND_H_

#include <string>
#include <vector>

#include "drivers/driver.h"
#include "drivers/statement_template.h"

namespace stampede::drivers {

class RedisCommands {
 public:
  // Words of a one-off command; a compiled one may have up to
  // kMaxCommandWords (a batched MSET: 1 + 2 x 1000).
  static constexpr size_t kMaxWords = 64;
  static constexpr size_t kMaxCommandWords = 2 * kMaxStatementParams;

  Status Compile(const std::vector<StatementSpec>& statements);
  // Renders statement req.stmt into (*args)[0..argc); returns argc. args
  // grows to the command's words if it is shorter; capacity is reused.
  int Render(const OpRequest& req, std::vector<std::string>* args) const;
  // Appends statement req.stmt to *out as one RESP command, its words
  // written in place (no rendered copy): the per-operation path.
  void Encode(const OpRequest& req, std::string* out) const;
  bool write(int stmt) const { return commands_[stmt].write; }
  bool scalar(int stmt) const { return commands_[stmt].scalar; }

 private:
  struct Command {
    std::vector<std::vector<Segment>> words;
    bool write = false;
    bool scalar = false;
  };
  std::vector<Command> commands_;
};

// Appends args[0..argc) as one RESP command to *out.
void EncodeResp(const std::vector<std::string>& args, int argc, std::string* out);

// The cluster hash slot of a key (CRC16-XMODEM mod 16384, honouring {tags}).
int RedisKeySlot(std::string_view key);

// How a new connection logs in, in order, each command with what its
// failure is called: AUTH [user] password (when there is a password), then
// SELECT n (for a database other than 0). Both Redis drivers send these.
struct RedisLoginStep {
  std::vector<std::string> words;
  std::string what;
};
std::vector<RedisLoginStep> RedisLogin(const ConnectOptions& o);

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_REDIS_COMMAND_H_
