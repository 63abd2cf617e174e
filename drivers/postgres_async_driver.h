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

class PostgresAsyncDriver : public AsyncDriver {
 public:
  explicit PostgresAsyncDriver(const boost::asio::any_io_executor& executor);
  ~PostgresAsyncDriver() override;

  Task<Status> Connect(const ConnectOptions& options) override;
  Task<Status> Prepare(const std::vector<StatementSpec>& statements) override;
  Task<OpResult> Execute(const OpRequest& request, std::string* error) override;
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
  // Copies req's parameters into values_ (pointers_ point at them).
  void SetParams(const OpRequest& req);

  SocketWaiter waiter_;
  PGconn* conn_ = nullptr;
  std::string endpoint_;
  std::vector<std::string> names_;
  std::vector<bool> writes_, scalars_;
  // Grown to the widest request seen (a batched insert), then reused.
  std::vector<std::string> values_ = std::vector<std::string>(kMaxParams);
  std::vector<const char*> pointers_ = std::vector<const char*>(kMaxParams);
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
