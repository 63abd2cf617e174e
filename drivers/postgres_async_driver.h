// PostgreSQL (and its wire: CockroachDB, YugabyteDB) on libpq's
// asynchronous API: PQconnectPoll, PQsendQueryPrepared, PQconsumeInput and
// PQgetResult driven by the socket's readiness. Parameters go as text from
// buffers reused across operations; results are read in place.
#ifndef STAMPEDE_DRIVERS_POSTGRES_ASYNC_DRIVER_H_
#define STAMPEDE_DRIVERS_POSTGRES_ASYNC_DRIVER_H_

#include <array>
#include <string>
#include <vector>

#include "drivers/async_driver.h"
#include "drivers/socket_waiter.h"

typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;

namespace stampede::drivers {

class PostgresAsyncDriver final : public AsyncDriver {
 public:
  explicit PostgresAsyncDriver(const boost::asio::any_io_executor& executor);
  ~PostgresAsyncDriver() override;

  Task<Status> Connect(const ConnectOptions& options) override;
  Task<Status> Prepare(const std::vector<StatementSpec>& statements) override;
  Task<OpResult> Execute(const OpRequest& request, std::string* error) override;
  bool Begin(const OpRequest& request, OpResult* result, std::string* error) override;
  bool Proceed(OpResult* result, std::string* error) override;
  Task<OpResult> Control(std::string_view statement, bool write, std::string* error) override;
  // libpq's pipeline mode. A Sync ends each implicit transaction: every
  // write has one of its own (it commits, or fails, alone), consecutive
  // reads share one (a failed read leaves the reads after it in its group
  // not run: retryable).
  void Append(const OpRequest& request) override;
  Task<void> ExecuteAppended(int n, OpResult* results, int64_t* ended_ns, std::string* errors) override;
  bool connected() const override { return conn_ != nullptr; }
  void Abort() override { waiter_.Abort(); }
  void Close() override;

 private:
  // Sends what libpq has buffered; false if the connection is gone.
  Task<bool> Flush();
  // Reads the results of the command sent last, into *result; false if the
  // connection was lost on the way.
  Task<bool> Collect(OpResult* result, bool scalar, std::string* error);
  // Collect's step without waiting: takes every result that has arrived.
  // *failed: an error was already recorded for this command.
  enum class Taken { kDone, kMore, kLost };
  Taken TakeResults(OpResult* result, bool scalar, bool* failed, std::string* error, std::string* text = nullptr);
  // Reads the Sync's result that ends one pipelined statement.
  Task<bool> AwaitSync();
  OpResult Lost(bool write, std::string* error);
  // Begin's and Proceed's parts: after PQflush returned `flushed`, and
  // reading the results; true once the operation has ended.
  bool Flushed(int flushed, OpResult* result, std::string* error);
  bool Take(OpResult* result, std::string* error);
  // Writes req's parameters as text; returns libpq's array of them.
  const char* const* SetParams(const OpRequest& req);

  SocketWaiter waiter_;
  PGconn* conn_ = nullptr;
  std::string endpoint_;
  // What an operation reads lives in few cache lines: at 1,000
  // connections every separate block is one more cache miss per operation
  // (docs/PERFORMANCE.md, issue 35). The prepared statements, in one block:
  struct Statement {
    std::string name;  // "s0", ...: within the string itself
    bool write = false;
    bool scalar = false;
  };
  std::vector<Statement> statements_;
  // The operation in flight (Begin, Proceed): its statement and request,
  // whether its request is still being sent, and whether an error was
  // already taken for it.
  const Statement* current_ = nullptr;
  const OpRequest* request_ = nullptr;
  bool flushing_ = false;
  bool failed_ = false;
  // The parameters as text: up to kMaxParams in the driver itself, integers
  // written in place; string parameters and wider requests (a batched
  // insert) in the vectors, grown to the widest seen and reused.
  std::array<const char*, kMaxParams> pointers_{};
  std::array<std::array<char, 24>, kMaxParams> ints_{};
  std::vector<std::string> values_;
  std::vector<const char*> wide_pointers_;
  std::string control_;  // Control's statement
  // Pipelined: what was appended, whether appending failed (the connection
  // is then treated as lost), and whether reads wait for a Sync.
  struct Appended {
    bool write = false, scalar = false;
    bool sync_after = false;  // a Sync follows it
  };
  std::vector<Appended> appended_;
  bool append_failed_ = false;
  bool reads_open_ = false;
  // Ends the open group of reads with a Sync after the last one appended.
  void SyncReads();
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_POSTGRES_ASYNC_DRIVER_H_
