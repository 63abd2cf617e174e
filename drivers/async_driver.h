// The asynchronous Driver: one connection, driven by the readiness of its
// socket on an event loop (Boost.Asio), so that one thread can run many
// workers. The C library under each card library does the protocol (libpq,
// hiredis, the MariaDB C API), in its non-blocking mode.
//
// A driver belongs to one worker and runs on the worker's event loop: every
// call, Abort() included, happens on that loop's thread; not thread-safe.
// Nothing here retries: the runner decides (agent/retry_policy.h).
#ifndef STAMPEDE_DRIVERS_ASYNC_DRIVER_H_
#define STAMPEDE_DRIVERS_ASYNC_DRIVER_H_

// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>:
// it comes first (and clang-format's include sorting must not move it).
// clang-format off
#include <utility>
// clang-format on

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "drivers/driver.h"

namespace stampede::drivers {

class SocketWaiter;

template <typename T>
using Task = boost::asio::awaitable<T>;

class AsyncDriver {
 public:
  virtual ~AsyncDriver() = default;

  // Opens the connection (and logs in). Errors name the endpoint and the
  // cause in one line, as Driver::Connect's.
  virtual Task<Status> Connect(const ConnectOptions& options) = 0;
  // Prepares the statements: OpRequest::stmt indexes them.
  virtual Task<Status> Prepare(const std::vector<StatementSpec>& statements) = 0;
  // Executes one prepared statement; on a non-ok outcome *error gets the
  // server's or the library's message.
  virtual Task<OpResult> Execute(const OpRequest& request, std::string* error) = 0;
  // The same execution without a coroutine frame, for the per-operation
  // path (docs/PERFORMANCE.md, issue 35), where steps() is not null: Begin
  // starts it (request must outlive it); while Begin or Proceed returns
  // false, co_await steps()->Pending() and then call Proceed. Once one
  // returns true, *result and *error hold what Execute would have given.
  // Where steps() is null, Execute is the only way.
  SocketWaiter* steps() const { return steps_; }
  virtual bool Begin(const OpRequest& request, OpResult* result, std::string* error) {
    (void)request;
    return Proceed(result, error);
  }
  virtual bool Proceed(OpResult* result, std::string* error) {
    *result = OpResult{Outcome::kFatal, 0, 0};
    *error = "this driver has no steps";
    return true;
  }
  // A statement of the transaction protocol (BEGIN, COMMIT, ROLLBACK,
  // SAVEPOINT ...), unprepared. write: a lost connection is ambiguous.
  virtual Task<OpResult> Control(std::string_view statement, bool write, std::string* error) = 0;
  // Pipelining (Phase.pipeline; DriverInfo::pipelined_flavors says which
  // drivers offer it). Append queues one request, its parameters encoded at
  // once (they need not outlive the call); ExecuteAppended sends the n
  // appended and reads their answers in order: results[i], ended_ns[i] the
  // MonoNowNs() its answer arrived at, and errors[i] its message when it
  // is not ok (left alone when ok: no allocation). Each error is its
  // operation's own. A connection lost on the way ends
  // every request not yet answered as a lost connection: ambiguous for a
  // write (part of what was sent may have run), unavailable for a read.
  virtual void Append(const OpRequest& request) { (void)request; }
  virtual Task<void> ExecuteAppended(int n, OpResult* results, int64_t* ended_ns, std::string* errors) {
    for (int i = 0; i < n; ++i) {
      results[i] = OpResult{Outcome::kFatal, 0, 0};
      ended_ns[i] = 0;
      errors[i] = "this driver does not pipeline";
    }
    co_return;
  }
  // False once the connection is known to be lost.
  virtual bool connected() const = 0;
  // Cuts the connection now (an op timeout, the phase's hard stop, an
  // abort): the operation in flight, if any, ends as a lost connection.
  virtual void Abort() = 0;
  virtual void Close() = 0;

 protected:
  SocketWaiter* steps_ = nullptr;  // set by a driver that offers Begin and Proceed
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_ASYNC_DRIVER_H_
