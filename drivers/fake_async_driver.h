// A scripted AsyncDriver for unit tests of the runner (agent/phase_runner):
// no server, no socket. Every connection a test's runner makes asks one
// FakeCluster how to answer: whether a connection attempt succeeds, and for
// each operation its outcome, how long it takes and whether the connection
// drops on it. Timing is real (a timer on the worker's loop), so op_timeout,
// the hard stop and Abort() cut a slow answer exactly as they cut a slow
// server's.
//
//   FakeCluster cluster;
//   cluster.answer = [](const FakeCall& c) { return FakeAnswer{c.n % 2 ? kOk : kRetryable}; };
//   ScopedTestDriver fake(FakeDriverInfo(&cluster));   // target.driver: fake
//
// Thread-safety: FakeCluster's scripts are called from every event loop's
// thread at once (a script reads only atomics or what the test fixed before
// the run); its counters are atomics. A FakeAsyncDriver, like every
// AsyncDriver, belongs to one loop.
#ifndef STAMPEDE_DRIVERS_FAKE_ASYNC_DRIVER_H_
#define STAMPEDE_DRIVERS_FAKE_ASYNC_DRIVER_H_

#include <array>
#include <atomic>
#include <boost/asio/steady_timer.hpp>
#include <functional>

#include "drivers/async_driver.h"
#include "drivers/driver_registry.h"

namespace stampede::drivers {

// One operation as the cluster sees it.
struct FakeCall {
  int port = 0;  // the endpoint's port: which node it reached
  int stmt = 0;
  bool write = false;
  uint64_t n = 0;  // operations the cluster had been sent before this one
};

struct FakeAnswer {
  Outcome outcome = Outcome::kOk;
  int64_t delay_ns = 0;          // the answer comes this long after the call
  bool lose_connection = false;  // the connection drops before it answers
};

struct FakeCluster {
  static constexpr int kMaxPorts = 8;  // counted per port for ports 0..7
  // How an operation is answered; unset: ok at once.
  std::function<FakeAnswer(const FakeCall&)> answer;
  // Whether a connection attempt to a port succeeds; unset: it does.
  std::function<Status(int port)> connect;
  // How long the server takes to answer a connection attempt; unset: no
  // time. One that takes longer than connect_timeout fails at it.
  std::function<int64_t(int port)> connect_delay;

  std::atomic<uint64_t> calls{0};  // operations sent, retries included
  std::atomic<uint64_t> connects{0};
  std::atomic<uint64_t> connect_timeouts{0};
  std::atomic<uint64_t> aborts{0};  // operations in flight that Abort() cut
  std::array<std::atomic<uint64_t>, kMaxPorts> calls_on{};
};

class FakeAsyncDriver : public AsyncDriver {
 public:
  FakeAsyncDriver(FakeCluster* cluster, const boost::asio::any_io_executor& ex) : cluster_(cluster), timer_(ex) {}

  Task<Status> Connect(const ConnectOptions& options) override;
  Task<Status> Prepare(const std::vector<StatementSpec>& statements) override;
  Task<OpResult> Execute(const OpRequest& request, std::string* error) override;
  Task<OpResult> Control(std::string_view statement, bool write, std::string* error) override;
  // A batch's answers all come after the longest of their delays; a lost
  // connection ends its operation and every one after it.
  void Append(const OpRequest& request) override { appended_.push_back(request.stmt); }
  Task<void> ExecuteAppended(int n, OpResult* results, int64_t* ended_ns, std::string* errors) override;
  bool connected() const override { return connected_; }
  void Abort() override;
  void Close() override { connected_ = false; }

 private:
  Task<OpResult> Answer(int stmt, bool write, std::string* error);
  FakeAnswer Ask(int stmt);
  bool IsWrite(int stmt) const { return stmt >= 0 && size_t(stmt) < writes_.size() && writes_[size_t(stmt)]; }
  // Waits delay_ns on the loop; false if Abort() cut the wait.
  Task<bool> Wait(int64_t delay_ns);

  FakeCluster* cluster_;
  boost::asio::steady_timer timer_;
  std::vector<bool> writes_;   // per prepared statement
  std::vector<int> appended_;  // statements of the batch being built
  int port_ = 0;
  bool connected_ = false;
  bool in_flight_ = false;
  bool aborted_ = false;
};

// The registry entry for driver "fake" (dialect postgres, flavor "fake",
// which pipelines):
// give it to a ScopedTestDriver.
DriverInfo FakeDriverInfo(FakeCluster* cluster);

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_FAKE_ASYNC_DRIVER_H_
