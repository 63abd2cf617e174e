#include "drivers/fake_async_driver.h"

#include <algorithm>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>

#include "common/clock.h"

namespace stampede::drivers {

Task<Status> FakeAsyncDriver::Connect(const ConnectOptions& options) {
  port_ = options.port;
  aborted_ = false;
  cluster_->connects.fetch_add(1);
  const int64_t delay_ns = cluster_->connect_delay ? cluster_->connect_delay(port_) : 0;
  const int64_t timeout_ns = int64_t(options.connect_timeout_ms) * kNsPerMs;
  if (timeout_ns > 0 && delay_ns > timeout_ns) {
    co_await Wait(timeout_ns);
    cluster_->connect_timeouts.fetch_add(1);
    co_return Status::Error(options.Endpoint() + ": timeout expired");
  }
  if (!co_await Wait(delay_ns)) co_return Status::Error(options.Endpoint() + ": connection cut");
  Status s = cluster_->connect ? cluster_->connect(port_) : Status::Ok();
  connected_ = s.ok();
  co_return s.ok() ? s : Status::Error(options.Endpoint() + ": " + s.message());
}

Task<Status> FakeAsyncDriver::Prepare(const std::vector<StatementSpec>& statements) {
  writes_.clear();
  for (const StatementSpec& s : statements) writes_.push_back(s.write);
  co_return Status::Ok();
}

Task<OpResult> FakeAsyncDriver::Execute(const OpRequest& request, std::string* error) {
  return Answer(request.stmt, IsWrite(request.stmt), error);
}

Task<OpResult> FakeAsyncDriver::Control(std::string_view statement, bool write, std::string* error) {
  (void)statement;
  return Answer(-1, write, error);
}

FakeAnswer FakeAsyncDriver::Ask(int stmt) {
  const FakeCall call{port_, stmt, IsWrite(stmt), cluster_->calls.fetch_add(1)};
  if (port_ >= 0 && port_ < FakeCluster::kMaxPorts) cluster_->calls_on[size_t(port_)].fetch_add(1);
  return cluster_->answer ? cluster_->answer(call) : FakeAnswer{};
}

Task<bool> FakeAsyncDriver::Wait(int64_t delay_ns) {
  if (delay_ns > 0) {
    in_flight_ = true;
    timer_.expires_after(std::chrono::nanoseconds(delay_ns));
    boost::system::error_code ec;
    co_await timer_.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    in_flight_ = false;
  }
  co_return !aborted_;
}

Task<OpResult> FakeAsyncDriver::Answer(int stmt, bool write, std::string* error) {
  if (!connected_) {
    *error = "not connected";
    co_return OpResult{Outcome::kUnavailable};
  }
  const FakeAnswer a = Ask(stmt);
  const bool answered = co_await Wait(a.delay_ns);
  if (!answered || a.lose_connection) {
    connected_ = false;
    *error = answered ? "connection lost" : "connection cut";
    co_return OpResult{LostInFlight(write)};
  }
  if (a.outcome != Outcome::kOk) *error = "fake " + std::string(OutcomeName(a.outcome));
  co_return OpResult{a.outcome, a.outcome == Outcome::kOk ? 1 : 0};
}

Task<void> FakeAsyncDriver::ExecuteAppended(int n, OpResult* results, int64_t* ended_ns, std::string* errors) {
  std::vector<FakeAnswer> answers;
  int64_t delay_ns = 0;
  for (int i = 0; i < n; ++i) {
    answers.push_back(connected_ ? Ask(appended_[size_t(i)]) : FakeAnswer{});
    delay_ns = std::max(delay_ns, answers.back().delay_ns);
  }
  const bool answered = connected_ && co_await Wait(delay_ns);
  bool lost = !answered;
  for (int i = 0; i < n; ++i) {
    lost |= answers[size_t(i)].lose_connection;
    const Outcome o = lost ? LostInFlight(IsWrite(appended_[size_t(i)])) : answers[size_t(i)].outcome;
    results[i] = OpResult{o, o == Outcome::kOk ? 1 : 0};
    ended_ns[i] = MonoNowNs();
    if (o != Outcome::kOk) errors[i] = lost ? "connection lost" : "fake " + std::string(OutcomeName(o));
  }
  if (lost) connected_ = false;
  appended_.clear();
}

void FakeAsyncDriver::Abort() {
  connected_ = false;
  if (in_flight_) {
    aborted_ = true;
    cluster_->aborts.fetch_add(1);
    timer_.cancel();
  }
}

DriverInfo FakeDriverInfo(FakeCluster* cluster) {
  return DriverInfo{"fake",
                    "scripted, for the runner's unit tests",
                    Dialect::kPostgres,
                    {"fake"},
                    nullptr,
                    [cluster](const std::string&, const boost::asio::any_io_executor& ex) {
                      return std::unique_ptr<AsyncDriver>(new FakeAsyncDriver(cluster, ex));
                    },
                    {"fake"}};
}

}  // namespace stampede::drivers
