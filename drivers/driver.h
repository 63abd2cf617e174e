// What every driver shares: connection options, the statements a workload
// prepares, an operation's request and result, and the blocking Driver for
// one-off statements (workers drive drivers/async_driver.h).
//
// A driver owns its connections and is used by one thread (or event loop)
// at a time; not thread-safe. Drivers never throw; every library error is
// translated (in one function per driver) into an Outcome. Fault actions
// are not a driver's business.
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

class EndpointNames;  // drivers/endpoint_names.h

struct ConnectOptions {
  std::string host;
  int port = 0;
  std::string user;
  std::string password;  // never logged
  std::string database;
  std::string flavor;
  int connect_timeout_ms = 5000;
  // "" or read-write (postgres: libpq target_session_attrs).
  std::string session;
  // The session's isolation level as SET TRANSACTION names it ("REPEATABLE
  // READ"), or "": the server's default. The asynchronous SQL drivers set it.
  std::string isolation;
  // Per-operation timeout; 0: none. The blocking drivers set it as their
  // socket timeouts; the runner cuts a worker's operation itself.
  int op_timeout_ms = 0;
  // Redis with Sentinel (session read-write): the sentinels to ask, in
  // order, and the name of the master they monitor. The driver connects
  // only to the master they name.
  std::vector<std::string> sentinels;
  std::string sentinel_master;
  std::string sentinel_password;  // never logged
  // Where a driver that finds nodes on its own (Redis Cluster) names the
  // node each operation ran on (OpResult::endpoint); not owned, may be null.
  EndpointNames* endpoint_names = nullptr;

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

// Parameters an OpRequest holds itself; a statement with more (a batched
// multi-row insert, Phase.batch) points at its caller's array instead.
constexpr int kMaxParams = 16;
constexpr int kMaxStatementParams = 4096;

struct OpRequest {
  // Every field an operation reads comes before params, so that a request
  // of one or two parameters is read from one cache line (at 1,000
  // connections each line is a miss; docs/PERFORMANCE.md, issue 35).
  int stmt = 0;
  int nparams = 0;
  // nparams > kMaxParams: the parameters are wide[0..nparams), owned by
  // the caller until Execute or Append returns.
  const Param* wide = nullptr;
  // A scalar statement's first column (Redis: a string reply), as text, is copied here ("" for no
  // row or NULL); null: not wanted (append's reads of a list).
  std::string* text = nullptr;
  std::array<Param, kMaxParams> params;

  void Set(int i, Param p) {
    params[i] = p;
    if (i >= nparams) nparams = i + 1;
  }
  void SetWide(const Param* p, int n) {
    wide = p;
    nparams = n;
  }
  const Param& param(int i) const { return nparams > kMaxParams ? wide[i] : params[size_t(i)]; }
};

struct OpResult {
  Outcome outcome = Outcome::kOk;
  int64_t rows = 0;   // rows returned or affected; Redis: integer or 1/0
  int64_t value = 0;  // scalar statements: the integer returned
  // An interactive transaction its workload ended with a rollback
  // (WorkerOps::Then::kRollback): done, nothing written.
  bool rolled_back = false;
  // The node that answered, when the driver routes operations among nodes
  // itself (Redis Cluster): its index in ConnectOptions::endpoint_names;
  // -1: the worker's own endpoint (or not known).
  int32_t endpoint = -1;
  // The error was the database's disk (or its snapshot's) being full:
  // counted beside its outcome, so a report can say so.
  bool disk_full = false;
};

// A blocking connection for what is not measured: setup and cleanup
// statements (agent/one_off_statements) and health probes. Workers use the
// asynchronous form (drivers/async_driver.h).
class Driver {
 public:
  virtual ~Driver() = default;

  // Opens the connection. The error names the endpoint and the cause in one
  // line ("127.0.0.1:5432: password authentication failed for user ...").
  virtual Status Connect(const ConnectOptions& options) = 0;
  // Runs a one-off statement (setup DDL), unmeasured. Redis: command words.
  virtual Status ExecuteOnce(std::string_view statement) = 0;
  // False once the connection is known to be lost.
  virtual bool connected() const = 0;
  virtual void Close() = 0;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_DRIVER_H_
