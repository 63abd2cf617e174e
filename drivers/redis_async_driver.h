// Redis on an Asio socket: commands are encoded (RESP) into a buffer reused
// across operations and written; replies are read into another and parsed by
// hiredis's reader with reply functions that keep only what is needed
// (type, integer, element count, error text), so no reply object is
// allocated. One node (flavor redis); drivers/redis_cluster_async_driver.h
// routes over several of them (flavor redis-cluster).
#ifndef STAMPEDE_DRIVERS_REDIS_ASYNC_DRIVER_H_
#define STAMPEDE_DRIVERS_REDIS_ASYNC_DRIVER_H_

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <string>
#include <vector>

#include "drivers/async_driver.h"
#include "drivers/redis_command.h"
#include "drivers/redis_slots.h"

struct redisReader;

namespace stampede::drivers {

// What the reader kept of the last reply.
struct RedisReplySummary {
  int type = 0;
  long long integer = 0;
  long long elements = 0;
  std::string error;
  std::string* text = nullptr;  // a top-level string or status reply is copied here (OpRequest::text)
};

class RedisAsyncDriver : public AsyncDriver {
 public:
  explicit RedisAsyncDriver(const boost::asio::any_io_executor& executor);
  ~RedisAsyncDriver() override;

  Task<Status> Connect(const ConnectOptions& options) override;
  Task<Status> Prepare(const std::vector<StatementSpec>& statements) override;
  Task<OpResult> Execute(const OpRequest& request, std::string* error) override;
  Task<OpResult> Control(std::string_view statement, bool write, std::string* error) override;
  void Append(const OpRequest& request) override;
  Task<void> ExecuteAppended(int n, OpResult* results, int64_t* ended_ns, std::string* errors) override;
  // Pipelining over several nodes (the cluster driver): appends a command
  // already encoded (EncodeResp), and runs ExecuteAppended in its two
  // halves, so that every node has its commands before any answer is read.
  void AppendEncoded(std::string_view command, bool write);
  Task<void> WriteAppended();
  Task<void> ReadAppended(int n, OpResult* results, int64_t* ended_ns, std::string* errors);
  bool connected() const override { return connected_; }
  void Abort() override;
  void Close() override;

  // Sends args[0..argc) as one command and reads the reply. On an error
  // reply, *error gets "endpoint: reply" and reply_error() the bare reply.
  Task<OpResult> Send(const std::vector<std::string>& args, int argc, bool write, std::string* error);
  // The last reply's error text; empty unless it was an error.
  std::string_view reply_error() const;
  // CLUSTER SLOTS, read into a whole reply (not a summary).
  Task<StatusOr<std::vector<SlotRange>>> ClusterSlots();
  // ROLE's first word: master, slave or sentinel.
  Task<StatusOr<std::string>> Role();
  const std::string& endpoint() const { return endpoint_; }
  // Its index in the phase's EndpointNames (set by the cluster driver,
  // which tags each operation's result with the node that answered).
  void set_endpoint_index(int index) { endpoint_index_ = index; }
  int endpoint_index() const { return endpoint_index_; }

 private:
  // Opens a TCP connection to host:port for endpoint_ (the caller's timer
  // bounds it: on Abort it is "timed out connecting").
  Task<Status> Open(const std::string& host, int port);
  // AUTH, SELECT and (session read-write) ROLE on the new connection.
  Task<bool> LogIn(const ConnectOptions& o, std::string* error);
  // The master the sentinels name ("host:port"): each asked in turn, within
  // a share of what is left before deadline_ns, until one answers.
  Task<StatusOr<std::string>> AskSentinels(const ConnectOptions& o, int64_t deadline_ns);
  // SENTINEL get-master-addr-by-name o.sentinel_master on a connection of
  // its own to sentinel (AUTH o.sentinel_password first, if any).
  Task<StatusOr<std::string>> AskSentinel(const std::string& sentinel, const ConnectOptions& o);
  // Arms timer to abort the connection at deadline_ns (timed_out_).
  void AbortAt(boost::asio::steady_timer* timer, int64_t deadline_ns);
  // Sends words (AUTH, SELECT) and reads the reply; false unless ok.
  Task<bool> Words(const std::vector<std::string>& words, std::string* error);
  // Writes args[0..argc) and reads one reply with reader into *reply; false
  // (and *lost filled) if the connection was lost.
  Task<bool> Exchange(const std::vector<std::string>& args, int argc, bool write, redisReader* reader, void** reply,
                      OpResult* lost, std::string* error);
  // The same for the command already encoded in out_.
  Task<bool> ExchangeOut(bool write, redisReader* reader, void** reply, OpResult* lost, std::string* error);
  // Reads until reader has a reply in *reply; on a lost connection, false
  // with *why saying so.
  Task<bool> ReadReply(redisReader* reader, void** reply, std::string* why);
  // The summary reader's last reply as an operation's result.
  OpResult FromReply(std::string* error) const;
  OpResult Lost(bool write, const std::string& why, std::string* error);

  boost::asio::ip::tcp::socket socket_;
  bool connected_ = false;
  bool aborted_ = false;
  bool timed_out_ = false;  // aborted by this driver's own timer, not the runner
  redisReader* reader_ = nullptr;
  RedisReplySummary reply_;
  std::string endpoint_;
  RedisCommands commands_;
  std::string out_;                    // the encoded command(s), reused
  std::vector<bool> appended_writes_;  // pipelined: each appended request's write flag
  bool sent_connected_ = false;        // pipelined: connected when WriteAppended began
  bool send_failed_ = false;           // and the write failed (why: send_why_)
  std::string send_why_;
  std::array<char, 4096> in_;  // a read; hiredis's reader keeps the rest
  int endpoint_index_ = -1;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_REDIS_ASYNC_DRIVER_H_
