// The Driver interface: connect, execute one prepared operation, close.
//
// A Driver owns one connection and belongs to one worker thread: it is
// created, used and destroyed on that thread, and is not thread-safe.
// Drivers never throw; every library error is translated (in one function
// per driver) into an Outcome. Fault actions are not a driver's business.
#ifndef STAMPEDE_DRIVERS_DRIVER_H_
#define STAMPEDE_DRIVERS_DRIVER_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/outcome.h"
#include "common/status.h"

namespace stampede::drivers {

struct ConnectOptions {
  std::string host;
  int port = 0;
  std::string user;
  std::string password;  // never logged
  std::string database;
  std::string flavor;
  int connect_timeout_ms = 5000;
  // Per-operation timeout; 0: none. Drivers that can enforce it natively do
  // (socket timeouts); others expose socket_fd() for the runner's watchdog.
  int op_timeout_ms = 0;

  std::string Endpoint() const { return host + ":" + std::to_string(port); }
};

// One statement a workload wants prepared. The text uses $1..$n placeholders
// in every dialect (the MySQL driver rewrites them to '?'; the Redis driver
// substitutes them into command words, e.g. "SET crud:$1 $2").
struct StatementSpec {
  std::string text;
  bool write = false;  // a lost connection during a write is ambiguous
  // The statement returns one integer (SELECT COUNT(1) ...): the driver puts
  // it into OpResult::value.
  bool scalar = false;
};

// A parameter: an integer or a string owned by the caller until Execute
// returns.
struct Param {
  bool is_int = true;
  int64_t i = 0;
  std::string_view s;

  static Param Int(int64_t v) { return Param{true, v, {}}; }
  static Param Str(std::string_view v) { return Param{false, 0, v}; }
};

constexpr int kMaxParams = 16;

struct OpRequest {
  int stmt = 0;
  int nparams = 0;
  std::array<Param, kMaxParams> params;

  void Set(int i, Param p) {
    params[i] = p;
    if (i >= nparams) nparams = i + 1;
  }
};

struct OpResult {
  Outcome outcome = Outcome::kOk;
  int64_t rows = 0;   // rows returned or affected; Redis: integer or 1/0
  int64_t value = 0;  // scalar statements: the integer returned
};

class Driver {
 public:
  virtual ~Driver() = default;

  // Opens the connection. The error names the endpoint and the cause in one
  // line ("127.0.0.1:5432: password authentication failed for user ...").
  virtual Status Connect(const ConnectOptions& options) = 0;
  // Prepares statements; index in the vector is the statement id for
  // OpRequest::stmt. Called after each (re)connect by the runner.
  virtual Status Prepare(const std::vector<StatementSpec>& statements) = 0;
  // Executes one prepared statement. On a non-ok outcome *error receives the
  // server's or library's message.
  virtual OpResult Execute(const OpRequest& request, std::string* error) = 0;
  // Runs a one-off statement (setup DDL), unmeasured. Redis: command words.
  virtual Status ExecuteOnce(std::string_view statement) = 0;
  // False once the connection is known to be lost.
  virtual bool connected() const = 0;
  // The connection's socket, for the runner's watchdog, which shuts it down
  // when an operation overruns op_timeout_ms, passes the phase's hard stop,
  // or the phase is aborted; -1 if the driver cannot say (or is not
  // connected): then only its own timeouts bound an operation.
  virtual int socket_fd() const { return -1; }
  virtual void Close() = 0;
};

// Optional: drivers whose connections can hold a transaction. The runner
// drives it (BEGIN, the prepared statements through Execute, COMMIT or
// ROLLBACK, CockroachDB's restart savepoint) and decides its retries
// (agent/retry_policy.h), as with AsyncDriver::Control; nothing here loops.
class TransactionalDriver {
 public:
  virtual ~TransactionalDriver() = default;
  // One statement of the transaction protocol, unprepared. write: it may
  // commit (COMMIT, RELEASE SAVEPOINT), so a connection lost during it is
  // ambiguous; otherwise unavailable.
  virtual OpResult Control(std::string_view statement, bool write, std::string* error) = 0;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_DRIVER_H_
